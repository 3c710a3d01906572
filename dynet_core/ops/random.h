#pragma once
// Random ops. Each node draws one seed from the random engine (--dynet-seed) when it is built;
// its values are a function of that seed, so recomputation reproduces them exactly.

#include "dynet_core/expression.h"

namespace dynet {

class ComputationGraph;

/// Inverted dropout: y = x * m / (1 - p), m ~ Bernoulli(1 - p) per element.
Expression dropout(const Expression& x, float p);
/// One mask value per batch element.
Expression dropout_batch(const Expression& x, float p);
/// Drops the whole tensor with probability p (else scales it by 1 / (1 - p)).
Expression block_dropout(const Expression& x, float p);
/// Inverted dropout with one mask value per slice along dimension d: whole rows, columns...
/// are kept or dropped together (each batch element draws its own).
Expression dropout_dim(const Expression& x, unsigned d, float p);
/// y = x + N(0, stddev^2) per element.
Expression noise(const Expression& x, float stddev);

Expression random_normal(ComputationGraph& g, const Dim& d, float mean = 0.f, float stddev = 1.f);
Expression random_uniform(ComputationGraph& g, const Dim& d, float left, float right);
/// Gumbel(mu, beta) samples: mu - beta log(-log u), u ~ U(0, 1).
Expression random_gumbel(ComputationGraph& g, const Dim& d, float mu = 0.f, float beta = 1.f);
/// scale with probability p, else 0.
Expression random_bernoulli(ComputationGraph& g, const Dim& d, float p, float scale = 1.f);

}  // namespace dynet
