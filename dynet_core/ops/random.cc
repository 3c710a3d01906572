#include "dynet_core/ops/random.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "dynet_core/graph.h"
#include "dynet_core/ops/accumulate.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/counter_rng.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/random_engine.h"

namespace dynet {

namespace {

/// Calls f(first element, elements, seed, data) for each node of a group.
template <class F>
void for_each_node(const OpCall& c, F&& f) {
  const unsigned n = c.y.d.size() / c.nodes;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const RandomData& d = c.op_data<RandomData>(j);
    f(std::size_t(j) * n, n, d);
  }
}

using random_rules::BatchMask;
using random_rules::BlockMask;
using random_rules::ElementMask;

template <class Mask>
void mask_forward(const OpCall& c) {
  const unsigned per_batch = c.y.d.batch_size();
  for_each_node(c, [&](std::size_t off, unsigned n, const RandomData& d) {
    for (unsigned e = 0; e < n; ++e) c.y.v[off + e] = c.xs[0].v[off + e] * Mask::at(d, e, per_batch);
  });
}
template <class Mask>
void mask_backward(const OpCall& c, unsigned) {
  const unsigned per_batch = c.y.d.batch_size();
  for_each_node(c, [&](std::size_t off, unsigned n, const RandomData& d) {
    for (unsigned e = 0; e < n; ++e) c.dx.v[off + e] += c.dy.v[off + e] * Mask::at(d, e, per_batch);
  });
}

constexpr BatchTraits kRandomBatch = ConcatBatch().sig_bytes(2 * sizeof(float));

Expression any_input(CheckCase& c) { return c.input(c.shape(0, 3, c.batch())); }

OpDef DropoutOp = OpRow("dropout")
                      .arity(1)
                      .infer(first_argument_shape)
                      .forward(mask_forward<ElementMask>)
                      .backward(mask_backward<ElementMask>)
                      .saves(kSavesNothing)
                      .batch(kRandomBatch)
                      .check([](CheckCase& c) { return dropout(any_input(c), c.real(0.f, 0.7f)); });
OpDef DropoutBatchOp = OpRow("dropout_batch")
                           .arity(1)
                           .infer(first_argument_shape)
                           .forward(mask_forward<BatchMask>)
                           .backward(mask_backward<BatchMask>)
                           .saves(kSavesNothing)
                           .batch(kRandomBatch)
                           .check([](CheckCase& c) { return dropout_batch(any_input(c), c.real(0.f, 0.7f)); });
OpDef BlockDropoutOp = OpRow("block_dropout")
                           .arity(1)
                           .infer(first_argument_shape)
                           .forward(mask_forward<BlockMask>)
                           .backward(mask_backward<BlockMask>)
                           .saves(kSavesNothing)
                           .batch(kRandomBatch)
                           .check([](CheckCase& c) { return block_dropout(any_input(c), c.real(0.f, 0.7f)); });

void noise_forward(const OpCall& c) {
  for_each_node(c, [&](std::size_t off, unsigned n, const RandomData& d) {
    for (unsigned e = 0; e < n; ++e) c.y.v[off + e] = c.xs[0].v[off + e] + random_rules::noise_at(d, e);
  });
}
void noise_backward(const OpCall& c, unsigned) { accumulate(c.dx.v, c.dy.v, c.y.d.size()); }
OpDef NoiseOp = OpRow("noise")
                    .arity(1)
                    .infer(first_argument_shape)
                    .forward(noise_forward)
                    .backward(noise_backward)
                    .saves(kSavesNothing)
                    .batch(kRandomBatch)
                    .check([](CheckCase& c) { return noise(any_input(c), c.real(0.1f, 1.f)); });

Dim leaf_dim(const DimArgs&, const void* data) { return static_cast<const RandomData*>(data)->dim; }

template <class Sample>
void sample_forward(const OpCall& c) {
  for_each_node(c, [&](std::size_t off, unsigned n, const RandomData& d) {
    for (unsigned e = 0; e < n; ++e) c.y.v[off + e] = Sample::at(d, e);
  });
}
using random_rules::Bernoulli;
using random_rules::Gumbel;
using random_rules::Normal;
using random_rules::Uniform;

OpDef RandomNormalOp =
    OpRow("random_normal")
        .arity(0)
        .infer(leaf_dim)
        .forward(sample_forward<Normal>)
        .saves(kSavesNothing)
        .batch(kRandomBatch)
        .check([](CheckCase& c) { return random_normal(c.cg, c.shape(0, 3, c.batch()), c.real(-1, 1), 2.f); });
OpDef RandomUniformOp =
    OpRow("random_uniform")
        .arity(0)
        .infer(leaf_dim)
        .forward(sample_forward<Uniform>)
        .saves(kSavesNothing)
        .batch(kRandomBatch)
        .check([](CheckCase& c) { return random_uniform(c.cg, c.shape(0, 3, c.batch()), -1.f, 2.f); });
OpDef RandomGumbelOp =
    OpRow("random_gumbel")
        .arity(0)
        .infer(leaf_dim)
        .forward(sample_forward<Gumbel>)
        .saves(kSavesNothing)
        .batch(kRandomBatch)
        .check([](CheckCase& c) { return random_gumbel(c.cg, c.shape(0, 3, c.batch()), c.real(-1, 1), 2.f); });
OpDef RandomBernoulliOp =
    OpRow("random_bernoulli")
        .arity(0)
        .infer(leaf_dim)
        .forward(sample_forward<Bernoulli>)
        .saves(kSavesNothing)
        .batch(kRandomBatch)
        .check([](CheckCase& c) { return random_bernoulli(c.cg, c.shape(0, 3, c.batch()), 0.3f, 2.f); });

void check_probability(const char* op, float p) {
  if (!(p >= 0.f && p < 1.f))
    throw std::invalid_argument(std::string(op) + ": probability " + std::to_string(p) + " must be in [0, 1)");
}

Expression random_node(ComputationGraph& g, const OpDef& op, const Expression* x, float a, float b, const Dim& d) {
  const RandomData* data = g.store(RandomData{a, b, random_engine().next(), d});
  return x ? g.append(op, {*x}, data) : g.append(op, {}, data);
}

Expression masked(const OpDef& op, const Expression& x, float p) {
  check_probability(op.name, p);
  return random_node(graph_of(x, op.name), op, &x, p, 0.f, Dim());
}

}  // namespace

Expression dropout(const Expression& x, float p) { return masked(DropoutOp, x, p); }
Expression dropout_batch(const Expression& x, float p) { return masked(DropoutBatchOp, x, p); }
Expression block_dropout(const Expression& x, float p) { return masked(BlockDropoutOp, x, p); }
Expression noise(const Expression& x, float stddev) {
  if (!(stddev >= 0.f)) throw std::invalid_argument("noise: stddev " + std::to_string(stddev) + " must be >= 0");
  return random_node(graph_of(x, "noise"), NoiseOp, &x, stddev, 0.f, Dim());
}

Expression random_normal(ComputationGraph& g, const Dim& d, float mean, float stddev) {
  if (!(stddev >= 0.f))
    throw std::invalid_argument("random_normal: stddev " + std::to_string(stddev) + " must be >= 0");
  return random_node(g, RandomNormalOp, nullptr, mean, stddev, d);
}
Expression random_uniform(ComputationGraph& g, const Dim& d, float left, float right) {
  if (!(left <= right))
    throw std::invalid_argument("random_uniform: left " + std::to_string(left) + " exceeds right " +
                                std::to_string(right));
  return random_node(g, RandomUniformOp, nullptr, left, right, d);
}
Expression random_gumbel(ComputationGraph& g, const Dim& d, float mu, float beta) {
  if (!(beta > 0.f)) throw std::invalid_argument("random_gumbel: beta " + std::to_string(beta) + " must be > 0");
  return random_node(g, RandomGumbelOp, nullptr, mu, beta, d);
}
Expression dropout_dim(const Expression& x, unsigned d, float p) {
  return called_as("dropout_dim", [&] {
    check_probability("dropout_dim", p);
    Dim mask = x.dim();
    if (d >= mask.ndims())
      throw std::invalid_argument("dropout_dim: dimension " + std::to_string(d) + " is out of range for x " +
                                  to_string(mask));
    mask.set(d, 1);
    return cmult(x, random_bernoulli(*x.pg, mask, 1.f - p, 1.f / (1.f - p)));
  });
}
Expression random_bernoulli(ComputationGraph& g, const Dim& d, float p, float scale) {
  if (!(p >= 0.f && p <= 1.f))
    throw std::invalid_argument("random_bernoulli: probability " + std::to_string(p) + " must be in [0, 1]");
  return random_node(g, RandomBernoulliOp, nullptr, p, scale, d);
}

void register_random_ops() {
  register_ops({&DropoutOp, &DropoutBatchOp, &BlockDropoutOp, &NoiseOp, &RandomNormalOp, &RandomUniformOp,
                &RandomBernoulliOp, &RandomGumbelOp});
}

}  // namespace dynet
