#include "dynet_core/ops/normalization.h"

#include <stdexcept>

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/reductions.h"

namespace dynet {

Expression layer_norm(const Expression& x, const Expression& g, const Expression& b) {
  // As DyNet's: x of any shape is normalized over all its elements (per batch element), and the
  // gain and bias broadcast over it as cmult does: each dimension x's or 1 (a column of x's rows
  // over a matrix's columns, a row over its rows, a scalar).
  graph_of(x, "layer_norm");
  const Dim xd = called_as("layer_norm", [&] { return x.dim(); });
  for (const Expression* p : {&g, &b}) {
    graph_of(*p, "layer_norm");
    const Dim pd = called_as("layer_norm", [&] { return p->dim(); });
    bool broadcasts = true;
    for (unsigned k = 0; k < Dim::kMaxDims; ++k) broadcasts &= pd[k] == 1 || pd[k] == xd[k];
    if (!broadcasts)
      throw std::invalid_argument("layer_norm: gain and bias must broadcast over x " + to_string(xd) +
                                  " (each dimension x's or 1), got " + to_string(pd));
  }
  return called_as("layer_norm", [&] {
    const Expression centered = x - mean_elems(x);
    // The epsilon sits inside the root so the gradient stays finite for a constant x.
    const Expression deviation = sqrt(mean_elems(square(centered)) + 1e-6f);
    return cmult(g, cdiv(centered, deviation)) + b;
  });
}

Expression weight_norm(const Expression& w, const Expression& g) {
  return called_as("weight_norm", [&] {
    if (g.dim().batch_size() != 1)
      throw std::invalid_argument("weight_norm: the gain must be a scalar, got " + to_string(g.dim()));
    return cmult(g, cdiv(w, l2_norm(w)));
  });
}

}  // namespace dynet
