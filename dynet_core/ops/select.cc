#include "dynet_core/ops/select.h"

#include <algorithm>
#include <cstring>

#include "dynet_core/graph.h"
#include "dynet_core/ops/accumulate.h"
#include "dynet_core/ops/broadcast.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/index_list.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/ops/select_blocks.h"

namespace dynet {

namespace {

/// The host-side check before a launch: the caller's indices are in range of the selected dimension.
template <const char* Op>
void check_selected(const OpCall& c) {
  for (unsigned j = 0; j < c.nodes; ++j) {
    const SelectData& s = c.op_data<SelectData>(j);
    s.list.check_caller(Op, AlongDim(c.xs[0].d.single_batch(), s.dim).len, "the selected dimension");
  }
}

/// Ops that copy blocks of their argument: Blocks::each(c, f) calls f(y offset, x offset, floats)
/// for every block; forward copies them, backward adds the gradient back.
template <class Blocks>
void copy_blocks(const OpCall& c) {
  Blocks::each(c, [&](std::size_t iy, std::size_t ix, unsigned n) {
    std::memcpy(c.y.v + iy, c.xs[0].v + ix, n * sizeof(float));
  });
}
template <class Blocks>
void add_blocks_back(const OpCall& c, unsigned) {
  Blocks::each(
      c, [&](std::size_t iy, std::size_t ix, unsigned n) { accumulate(c.dx.v + ix, c.dy.v + iy, n, c.overwrite); });
}

Dim infer_pick(const DimArgs& xs, const void* data) {
  const SelectData& s = *static_cast<const SelectData*>(data);
  const Dim& x = xs[0];
  dims::require_has_dim(x, s.dim);
  s.list.check_stored(x[s.dim], "dimension " + std::to_string(s.dim));
  Dim y = x;
  y.delete_dim(s.dim);
  // As DyNet's PickElement: one index serves every batch element; a vector of them, even of one,
  // gives one per batch element.
  if (!s.list.given_as_vector) return y;
  const unsigned n = s.list.count;
  if (x.bd != 1 && x.bd != n)
    dims::fail("a vector of " + std::to_string(n) + " indices for a batch of " + std::to_string(x.bd) +
               " (give one index, or a vector of one per batch element)");
  return y.with_batch(n);
}

Dim infer_select(const DimArgs& xs, const void* data) {
  const SelectData& s = *static_cast<const SelectData*>(data);
  const Dim& x = xs[0];
  s.list.check_stored(x[s.dim], s.dim == 0 ? "the rows" : "the columns");
  Dim y = x;
  y.set(s.dim, s.m);
  return y;
}

constexpr char kPick[] = "pick";
constexpr char kSelect[] = "select";
constexpr BatchTraits kSelectBatch = ConcatBatch().sig_bytes(sizeof(unsigned));

Expression check_pick(CheckCase& c) {
  const Dim d = c.shape(1, 3, c.batch());
  const unsigned dim = c.uniform(0, d.ndims() - 1);
  if (d.bd == 1 && c.uniform(0, 1)) return pick(c.input(d), c.uniform(0, d[dim] - 1), dim);
  std::vector<unsigned> v(d.bd == 1 ? c.uniform(2, 3) : d.bd);
  for (unsigned& i : v) i = c.uniform(0, d[dim] - 1);
  return pick(c.input(d), v, dim);
}
Expression check_pick_range(CheckCase& c) {
  const Dim d = c.shape(1, 3, c.batch());
  const unsigned dim = c.uniform(0, d.ndims() - 1);
  const unsigned s = c.uniform(0, d[dim] - 1);
  return pick_range(c.input(d), s, c.uniform(s + 1, d[dim]), dim);
}
Expression check_select(CheckCase& c) {
  const Dim d = c.shape(2, 3, c.batch());
  const bool rows = c.uniform(0, 1);
  std::vector<unsigned> v(c.uniform(1, 4));
  for (unsigned& i : v) i = c.uniform(0, d[rows ? 0 : 1] - 1);
  return rows ? select_rows(c.input(d), v) : select_cols(c.input(d), v);
}

OpDef PickOp = OpRow("pick")
                   .arity(1)
                   .infer(infer_pick)
                   .forward(copy_blocks<SelectedBlocks>)
                   .host_check(check_selected<kPick>)
                   .backward(add_blocks_back<SelectedBlocks>)
                   .saves(kSavesNothing)
                   .batch(kSelectBatch)
                   .check(check_pick);
OpDef SelectOp = OpRow("select_rows_cols")
                     .arity(1)
                     .infer(infer_select)
                     .forward(copy_blocks<SelectedBlocks>)
                     .host_check(check_selected<kSelect>)
                     .backward(add_blocks_back<SelectedBlocks>)
                     .saves(kSavesNothing)
                     .batch(kSelectBatch)
                     .check(check_select);

Dim infer_pick_range(const DimArgs& xs, const void* data) {
  const RangeData& r = *static_cast<const RangeData*>(data);
  dims::require_dim_index(r.dim);
  if (r.end > xs[0][r.dim])
    dims::fail("the range [" + std::to_string(r.start) + ", " + std::to_string(r.end) + ") exceeds dimension " +
               std::to_string(r.dim) + " of size " + std::to_string(xs[0][r.dim]));
  Dim y = xs[0];
  y.set(r.dim, r.end - r.start);
  return y;
}

/// A range along the last dimension of x that is not 1 is one span of every batch element.
bool range_span(const void* data, const Dim& x, unsigned& begin, unsigned& end) {
  const RangeData& r = *static_cast<const RangeData*>(data);
  const AlongDim xa(x.single_batch(), r.dim);
  if (xa.post != 1) return false;
  begin = xa.pre * r.start;
  end = xa.pre * r.end;
  return true;
}
OpDef PickRangeOp = OpRow("pick_range")
                        .arity(1)
                        .infer(infer_pick_range)
                        .forward(copy_blocks<RangeBlocks>)
                        .backward(add_blocks_back<RangeBlocks>)
                        .saves(kSavesNothing)
                        .batch(ConcatBatch().sig_bytes(sizeof(RangeData)))
                        .check(check_pick_range)
                        .backward_overwrites()
                        .argument_span(range_span);

Dim infer_pick_batch(const DimArgs& xs, const void* data) {
  const IndexList& l = *static_cast<const IndexList*>(data);
  l.check_stored(xs[0].bd, "the batch");
  return xs[0].with_batch(l.count);
}

/// The host-side check before a launch: the caller's batch elements are in x's batch.
void check_picked_batch(const OpCall& c) {
  c.op_data<IndexList>().check_caller("pick_batch_elems", c.xs[0].d.bd, "the batch");
}

// Not batched: which batch elements a node reads depends on whether its argument is shared.
OpDef PickBatchElemsOp = OpRow("pick_batch_elems")
                             .arity(1)
                             .infer(infer_pick_batch)
                             .forward(copy_blocks<PickedBatchBlocks>)
                             .host_check(check_picked_batch)
                             .backward(add_blocks_back<PickedBatchBlocks>)
                             .saves(kSavesNothing)
                             .check([](CheckCase& c) {
                               const Expression x = c.input(c.shape(0, 2, c.uniform(2, 4)));
                               std::vector<unsigned> v(c.uniform(1, 3));
                               for (unsigned& i : v) i = c.uniform(0, x.dim().bd - 1);
                               return pick_batch_elems(x, v);
                             });

Expression select_node(const OpDef& op, const Expression& x, unsigned dim, unsigned m, bool per_batch,
                       const IndexList& list) {
  ComputationGraph& g = graph_of(x, op.name);
  if (list.count == 0) throw std::invalid_argument(std::string(op.name) + ": no indices given");
  if (dim >= Dim::kMaxDims)
    throw std::invalid_argument(std::string(op.name) + ": dimension " + std::to_string(dim) + " is out of range");
  return g.append(op, {x}, g.store(SelectData{dim, m, per_batch, list}));
}

Expression pick_node(const Expression& x, const IndexList& list, unsigned d) {
  return select_node(PickOp, x, d, 1, list.count > 1, list);
}

Dim infer_strided(const DimArgs& xs, const void* data) {
  const StridedData& s = *static_cast<const StridedData*>(data);
  Dim y = xs[0];
  for (unsigned k = 0; k < xs[0].ndims(); ++k) y.set(k, s.count[k]);
  y.bd = s.count[Dim::kMaxDims];
  return y;
}

OpDef StridedSelectOp = OpRow("strided_select")
                            .arity(1)
                            .infer(infer_strided)
                            .forward(copy_blocks<StridedBlocks>)
                            .backward(add_blocks_back<StridedBlocks>)
                            .saves(kSavesNothing)
                            .batch(ConcatBatch().sig_bytes(sizeof(StridedData)))
                            .check([](CheckCase& c) {
                              const Dim d = c.shape(1, 3, c.uniform(1, 4));
                              std::vector<int> strides, from, to;
                              for (unsigned k = 0; k <= d.ndims(); ++k) {
                                const unsigned size = k < d.ndims() ? d[k] : d.bd;
                                strides.push_back(int(c.uniform(1, 3)));
                                from.push_back(int(c.uniform(0, size - 1)));
                                to.push_back(int(c.uniform(unsigned(from.back()) + 1, size)));
                              }
                              return strided_select(c.input(d), strides, from, to);
                            });

}  // namespace

Expression pick(const Expression& x, unsigned v, unsigned d) {
  return pick_node(x, stored_index(graph_of(x, "pick").store(v)), d);
}
Expression pick(const Expression& x, const std::vector<unsigned>& v, unsigned d) {
  return pick_node(
      x, stored_indices(graph_of(x, "pick").store_array(v.data(), v.size()), static_cast<unsigned>(v.size())), d);
}
Expression pick(const Expression& x, const unsigned* pv, unsigned d) {
  if (!pv) throw std::invalid_argument("pick: null pointer");
  return pick_node(x, caller_index(pv), d);
}
Expression pick(const Expression& x, const std::vector<unsigned>* pv, unsigned d) {
  if (!pv) throw std::invalid_argument("pick: null pointer");
  return pick_node(x, caller_indices(pv), d);
}

void set_pick_indices(const Expression& x, const std::vector<unsigned>& v) {
  const Node& n = node_of(x, {&PickOp}, "set_pick_indices");
  SelectData& s = *static_cast<SelectData*>(const_cast<void*>(n.data));
  s.list.overwrite("set_pick_indices", v, x.pg->node(n.arg(0)).dim[s.dim], "dimension " + std::to_string(s.dim));
  x.pg->invalidate();
}

Expression pick_range(const Expression& x, unsigned s, unsigned e, unsigned d) {
  if (s >= e)
    throw std::invalid_argument("pick_range: the range [" + std::to_string(s) + ", " + std::to_string(e) +
                                ") is empty");
  ComputationGraph& g = graph_of(x, "pick_range");
  return g.append(PickRangeOp, {x}, g.store(RangeData{d, s, e}));
}

Expression pickrange(const Expression& x, unsigned s, unsigned e) {
  return called_as("pickrange", [&] { return pick_range(x, s, e, 0); });
}

Expression strided_select(const Expression& x, const std::vector<int>& strides, const std::vector<int>& from,
                          const std::vector<int>& to) {
  ComputationGraph& g = graph_of(x, "strided_select");
  const Dim xd = called_as("strided_select", [&] { return x.dim(); });
  const unsigned n = std::max({strides.size(), from.size(), to.size()});
  if (n > xd.ndims() + 1)
    throw std::invalid_argument("strided_select: " + std::to_string(n) + " dimensions given for x of dim " +
                                to_string(xd) + " (at most " + std::to_string(xd.ndims() + 1) +
                                ", the last one for the batch)");
  StridedData s{};
  for (unsigned k = 0; k <= Dim::kMaxDims; ++k) {
    s.from[k] = 0;
    s.stride[k] = s.count[k] = 1;
  }
  for (unsigned k = 0; k <= xd.ndims(); ++k) {
    const bool batch = k == xd.ndims();
    const unsigned size = batch ? xd.bd : xd[k];
    const int stride = k < strides.size() ? strides[k] : 1;
    const int first = k < from.size() ? from[k] : 0;
    const int last = k < to.size() ? to[k] : int(size);
    if (stride < 1 || first < 0 || last <= first || unsigned(last) > size)
      throw std::invalid_argument("strided_select: dimension " + std::to_string(k) + " of size " +
                                  std::to_string(size) + " cannot take stride " + std::to_string(stride) + " from " +
                                  std::to_string(first) + " to " + std::to_string(last) +
                                  " (need stride >= 1 and 0 <= from < to <= size)");
    const unsigned slot = batch ? Dim::kMaxDims : k;
    s.from[slot] = unsigned(first);
    s.stride[slot] = unsigned(stride);
    s.count[slot] = (unsigned(last - first) + unsigned(stride) - 1) / unsigned(stride);
  }
  return g.append(StridedSelectOp, {x}, g.store(s));
}

namespace {

/// pick_batch_elems of `v`: copied into the graph, or (DyNet's pointer overloads) the caller's,
/// read at every forward.
Expression picked_batch(const Expression& x, const std::vector<unsigned>& v, bool callers) {
  if (v.empty()) throw std::invalid_argument("pick_batch_elems: no indices given");
  ComputationGraph& g = graph_of(x, "pick_batch_elems");
  const unsigned n = static_cast<unsigned>(v.size());
  const IndexList list = callers ? caller_indices(&v) : stored_indices(g.store_array(v.data(), n), n);
  return g.append(PickBatchElemsOp, {x}, g.store(list));
}

/// select_rows (dim 0) and select_cols (dim 1) of `v`: copied into the graph, or (DyNet's pointer
/// overloads) the caller's, read at every forward.
Expression select_along(const char* name, const Expression& x, unsigned dim, const std::vector<unsigned>& v,
                        bool callers) {
  const unsigned n = static_cast<unsigned>(v.size());
  return called_as(name, [&] {
    const IndexList list = callers ? caller_indices(&v) : stored_indices(graph_of(x, name).store_array(v.data(), n), n);
    return select_node(SelectOp, x, dim, n, false, list);
  });
}

const std::vector<unsigned>& pointed_to(const std::vector<unsigned>* p, const char* name) {
  if (!p) throw std::invalid_argument(std::string(name) + ": null pointer");
  return *p;
}

}  // namespace

Expression pick_batch_elem(const Expression& x, unsigned v) {
  return called_as("pick_batch_elem", [&] { return pick_batch_elems(x, {v}); });
}
Expression pick_batch_elem(const Expression& x, const unsigned* pv) {
  if (!pv) throw std::invalid_argument("pick_batch_elem: null pointer");
  ComputationGraph& g = graph_of(x, "pick_batch_elem");
  return g.append(PickBatchElemsOp, {x}, g.store(caller_index(pv)));
}
Expression pick_batch_elems(const Expression& x, const std::vector<unsigned>& v) { return picked_batch(x, v, false); }
Expression pick_batch_elems(const Expression& x, const std::vector<unsigned>* pv) {
  return picked_batch(x, pointed_to(pv, "pick_batch_elems"), true);
}

Expression select_rows(const Expression& x, const std::vector<unsigned>& rows) {
  return select_along("select_rows", x, 0, rows, false);
}
Expression select_rows(const Expression& x, const std::vector<unsigned>* prows) {
  return select_along("select_rows", x, 0, pointed_to(prows, "select_rows"), true);
}
Expression select_cols(const Expression& x, const std::vector<unsigned>& cols) {
  return select_along("select_cols", x, 1, cols, false);
}
Expression select_cols(const Expression& x, const std::vector<unsigned>* pcols) {
  return select_along("select_cols", x, 1, pointed_to(pcols, "select_cols"), true);
}

void register_select_ops() { register_ops({&PickOp, &PickRangeOp, &SelectOp, &PickBatchElemsOp, &StridedSelectOp}); }

}  // namespace dynet
