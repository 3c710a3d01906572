#include "dynet_core/ops/normalization.h"

#include <stdexcept>

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/reductions.h"

namespace dynet {

Expression layer_norm(const Expression& x, const Expression& g, const Expression& b) {
  graph_of(x, "layer_norm");
  const Dim xd = called_as("layer_norm", [&] { return x.dim(); });
  if (xd.ndims() > 1 && xd.cols() != 1)
    throw std::invalid_argument("layer_norm: x must be a column vector per batch element, got " + to_string(xd));
  for (const Expression* p : {&g, &b}) {
    graph_of(*p, "layer_norm");
    const Dim pd = called_as("layer_norm", [&] { return p->dim(); });
    if (pd.rows() != xd.rows() || pd.batch_size() != xd.rows())
      throw std::invalid_argument("layer_norm: gain and bias must have x's " + std::to_string(xd.rows()) +
                                  " rows, got " + to_string(pd));
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
