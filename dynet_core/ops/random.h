#pragma once
// Random ops. Each node draws one seed from the random engine (--dynet-seed) when it is built;
// its values are a function of that seed, so recomputation reproduces them exactly.

#include <math.h>

#include <cstdint>

#include "dynet_core/expression.h"
#include "dynet_core/ops/counter_rng.h"

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

/// The op data of every random op.
struct RandomData {
  float a, b;          // first: the signature bytes (p, stddev, range...)
  std::uint64_t seed;  // one per node
  Dim dim;             // leaves only
};

/// Each random op's value for element e of a node, as a pure function of the node's seed
/// (counter_rng.h): every device computes these rules, so masks and samples match across devices.
namespace random_rules {

/// Dropout multipliers of element e (in batch elements of `per_batch`): per element, per batch
/// element, or one for the whole tensor.
struct ElementMask {
  static DYBATCH_HD float at(const RandomData& d, unsigned e, unsigned) {
    return counter_rng::uniform(d.seed, e) >= d.a ? 1.f / (1.f - d.a) : 0.f;
  }
};
struct BatchMask {
  static DYBATCH_HD float at(const RandomData& d, unsigned e, unsigned per_batch) {
    return counter_rng::uniform(d.seed, e / per_batch) >= d.a ? 1.f / (1.f - d.a) : 0.f;
  }
};
struct BlockMask {
  static DYBATCH_HD float at(const RandomData& d, unsigned, unsigned) {
    return counter_rng::uniform(d.seed, 0) >= d.a ? 1.f / (1.f - d.a) : 0.f;
  }
};
/// noise's addend: a standard normal scaled by the stddev.
DYBATCH_HD float noise_at(const RandomData& d, unsigned e) { return d.a * counter_rng::normal(d.seed, e); }

struct Normal {
  static DYBATCH_HD float at(const RandomData& d, unsigned e) { return d.a + d.b * counter_rng::normal(d.seed, e); }
};
struct Uniform {
  static DYBATCH_HD float at(const RandomData& d, unsigned e) {
    return d.a + (d.b - d.a) * counter_rng::uniform(d.seed, e);
  }
};
struct Gumbel {
  static DYBATCH_HD float at(const RandomData& d, unsigned e) {
    // u in (0, 1]: log(u) stays finite, and -log(u) > 0 unless u is exactly 1.
    const float u = 1.f - counter_rng::uniform(d.seed, e);
    return d.a - d.b * logf(fmaxf(-logf(u), 1e-30f));
  }
};
struct Bernoulli {
  static DYBATCH_HD float at(const RandomData& d, unsigned e) {
    return counter_rng::uniform(d.seed, e) < d.a ? d.b : 0.f;
  }
};

}  // namespace random_rules
}  // namespace dynet
