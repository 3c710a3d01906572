#pragma once
// The selection ops' op data and their walks over the blocks they copy: f(y offset, x offset,
// floats) for every contiguous block of a call. Forward copies the blocks and backward adds them
// back, on any device: the walks run on the host and say what a kernel moves.

#include <cstddef>

#include "dynet_core/op_def.h"
#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/index_list.h"

namespace dynet {

/// y[i, j, k] = x[i, index(j), k] along dimension `dim`, with `per_batch` index lists of m entries
/// (one list for every output batch element) or one list shared by all.
struct SelectData {
  unsigned dim;  // first: the signature bytes
  unsigned m;
  bool per_batch;
  IndexList list;
};

/// Calls f(y offset, x offset, floats) for every contiguous block that the selection copies; the
/// indices are read unchecked, as the rows' host_check ran before.
template <class F>
void for_each_selected(const OpCall& c, F&& f) {
  const Tensor& x = c.xs[0];
  const unsigned yb = c.y.d.bd / c.nodes, xb = x.d.bd / c.nodes;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const SelectData& s = c.op_data<SelectData>(j);
    const unsigned* idx = s.list.values();
    const AlongDim xa(x.d.single_batch(), s.dim);
    for (unsigned t = 0; t < yb; ++t) {
      const unsigned xbatch = x.d.bd == 1 ? 0 : j * xb + (xb == 1 ? 0 : t);
      const unsigned* list = idx + (s.per_batch ? t * s.m : 0);
      const std::size_t ybase = std::size_t(j * yb + t) * c.y.d.batch_size();
      const std::size_t xbase = std::size_t(xbatch) * x.d.batch_size();
      for (unsigned o = 0; o < xa.post; ++o)
        for (unsigned q = 0; q < s.m; ++q) f(ybase + xa.pre * (q + s.m * o), xbase + xa.at(0, list[q], o), xa.pre);
    }
  }
}

struct SelectedBlocks {
  template <class F>
  static void each(const OpCall& c, F&& f) {
    for_each_selected(c, f);
  }
};

/// Elements [start, end) along `dim`: every range is in the signature, so a group copies the same
/// slice of every node, block by block.
struct RangeData {
  unsigned dim, start, end;
};

struct RangeBlocks {
  template <class F>
  static void each(const OpCall& c, F&& f) {
    const RangeData& r = c.op_data<RangeData>();
    const AlongDim xa(c.xs[0].d, r.dim);
    const unsigned block = xa.pre * (r.end - r.start);
    for (unsigned k = 0; k < xa.post; ++k) f(std::size_t(k) * block, xa.at(0, r.start, k), block);
  }
};

struct PickedBatchBlocks {
  template <class F>
  static void each(const OpCall& c, F&& f) {
    const unsigned n = c.y.d.batch_size();
    const IndexList& l = c.op_data<IndexList>();
    const unsigned* v = l.values();
    for (unsigned t = 0; t < l.count; ++t) f(std::size_t(t) * n, std::size_t(v[t]) * n, n);
  }
};

/// Per dimension (the batch last): the first element selected, the step and how many.
struct StridedData {
  unsigned from[Dim::kMaxDims + 1];
  unsigned stride[Dim::kMaxDims + 1];
  unsigned count[Dim::kMaxDims + 1];
};

struct StridedBlocks {
  template <class F>
  static void each(const OpCall& c, F&& f) {
    const Dim& xd = c.xs[0].d;
    const Dim& yd = c.y.d;
    const unsigned yb = yd.bd / c.nodes, xb = xd.bd / c.nodes;
    unsigned xstride[Dim::kMaxDims];
    for (unsigned k = 0, s = 1; k < Dim::kMaxDims; s *= xd[k], ++k) xstride[k] = s;
    for (unsigned j = 0; j < c.nodes; ++j) {
      const StridedData& s = c.op_data<StridedData>(j);
      const bool rows_contiguous = s.stride[0] == 1;
      const unsigned block = rows_contiguous ? yd[0] : 1, per_row = rows_contiguous ? 1 : yd[0];
      for (unsigned t = 0; t < yb; ++t) {
        std::size_t iy = std::size_t(j * yb + t) * yd.batch_size();
        const std::size_t xbase =
            std::size_t(j * xb + s.from[Dim::kMaxDims] + t * s.stride[Dim::kMaxDims]) * xd.batch_size();
        const unsigned outer = yd.batch_size() / yd[0];
        unsigned idx[Dim::kMaxDims] = {};
        for (unsigned o = 0; o < outer; ++o) {
          std::size_t ix = xbase + s.from[0];
          for (unsigned k = 1; k < Dim::kMaxDims; ++k) ix += std::size_t(s.from[k] + idx[k] * s.stride[k]) * xstride[k];
          for (unsigned r = 0; r < per_row; ++r, iy += block) f(iy, ix + std::size_t(r) * s.stride[0], block);
          for (unsigned k = 1; k < Dim::kMaxDims; ++k) {
            if (++idx[k] < yd[k]) break;
            idx[k] = 0;
          }
        }
      }
    }
  }
};

}  // namespace dynet
