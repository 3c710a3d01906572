#pragma once
// Normalization, written as compositions of existing ops (their gradients come with them).

#include "dynet_core/expression.h"

namespace dynet {

/// Layer normalization (Ba et al., 2016) of each column vector x_b:
/// y = g * (x - mean(x)) / sqrt(var(x) + 1e-6) + b, with gain g and bias b of x's shape.
Expression layer_norm(const Expression& x, const Expression& g, const Expression& b);

/// Weight normalization (Salimans and Kingma, 2016): y = g w / |w|, with a scalar gain g.
Expression weight_norm(const Expression& w, const Expression& g);

}  // namespace dynet
