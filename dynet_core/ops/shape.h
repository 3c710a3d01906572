#pragma once
// Reshaping and concatenation.

#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/op_def.h"
#include "dynet_core/ops/broadcast.h"

namespace dynet {

/// The same values with dim d: either d.size() == x.size(), or d has batch size 1 and
/// d.batch_size() == x.batch_size() (the batch size of x is kept).
Expression reshape(const Expression& x, const Dim& d);
/// Joins xs along dimension d; the other dimensions must agree (batch sizes 1 or the same).
Expression concatenate(ExpressionSpan xs, unsigned d = 0);
/// concatenate(xs, 1): column vectors side by side.
Expression concatenate_cols(ExpressionSpan xs);
/// Joins xs (one shape) along the batch dimension.
Expression concatenate_to_batch(ExpressionSpan xs);

/// concatenate's walk over what it copies, which every device's kernels follow: f(k, y offset,
/// x_k offset, floats) for each contiguous block of argument k inside y.
template <class F>
void for_each_concat_block(const OpCall& c, F&& f) {
  const unsigned d = c.op_data<unsigned>();
  const AlongDim ya(c.y.d.single_batch(), d);
  for (unsigned bi = 0; bi < c.y.d.bd; ++bi) {
    unsigned offset = 0;
    for (unsigned k = 0; k < c.nargs; ++k) {
      const unsigned len = c.xs[k].d[d];
      const unsigned block = ya.pre * len;
      for (unsigned o = 0; o < ya.post; ++o)
        f(k, bi * c.y.d.batch_size() + ya.at(0, offset, o), c.xs[k].batch_ptr(bi) - c.xs[k].v + o * block, block);
      offset += len;
    }
  }
}

}  // namespace dynet
