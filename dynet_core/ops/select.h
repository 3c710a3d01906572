#pragma once
// Selecting parts of a tensor: elements along a dimension, ranges, rows, columns, batch elements.
// Index vectors given by pointer are read again at every forward.

#include <vector>

#include "dynet_core/expression.h"

namespace dynet {

/// Element v along dimension d (which is removed); y_b = x_b[.., v, ..].
Expression pick(const Expression& x, unsigned v, unsigned d = 0);
/// One index per batch element (or per output batch element when x has batch size 1).
Expression pick(const Expression& x, const std::vector<unsigned>& v, unsigned d = 0);
Expression pick(const Expression& x, const unsigned* pv, unsigned d = 0);
Expression pick(const Expression& x, const std::vector<unsigned>* pv, unsigned d = 0);
/// DyNet's reusable graphs (its Python module's `set_index`): new indices of a pick node built
/// from copied indices, as many as it was built with and checked as pick checks them; the graph's
/// values are invalidated. Throws std::invalid_argument naming what was wrong.
void set_pick_indices(const Expression& x, const std::vector<unsigned>& v);
/// Elements [s, e) along dimension d.
Expression pick_range(const Expression& x, unsigned s, unsigned e, unsigned d = 0);
/// DyNet's older name for pick_range(x, s, e, 0).
Expression pickrange(const Expression& x, unsigned s, unsigned e);
/// x[from[0]:to[0]:strides[0], from[1]:to[1]:strides[1], ...] (numpy's notation); dimensions not
/// listed take stride 1, from 0 and to their size; an entry after the last dimension of x
/// selects batch elements.
Expression strided_select(const Expression& x, const std::vector<int>& strides, const std::vector<int>& from = {},
                          const std::vector<int>& to = {});
/// Batch element v of x (batch size 1).
Expression pick_batch_elem(const Expression& x, unsigned v);
/// Batch elements v[0], v[1], ... of x.
Expression pick_batch_elems(const Expression& x, const std::vector<unsigned>& v);
/// DyNet's pointer overloads: the caller's index or indices, read at every forward.
Expression pick_batch_elem(const Expression& x, const unsigned* pv);
Expression pick_batch_elems(const Expression& x, const std::vector<unsigned>* pv);
/// Rows (dimension 0) or columns (dimension 1) in the given order; repeats allowed.
Expression select_rows(const Expression& x, const std::vector<unsigned>& rows);
Expression select_cols(const Expression& x, const std::vector<unsigned>& cols);
/// DyNet's modifiable selections: the caller's indices, read at every forward (their count is
/// fixed when the node is built).
Expression select_rows(const Expression& x, const std::vector<unsigned>* prows);
Expression select_cols(const Expression& x, const std::vector<unsigned>* pcols);

}  // namespace dynet
