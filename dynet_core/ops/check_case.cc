#include "dynet_core/ops/check_case.h"

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/leaves.h"

namespace dynet {

CheckCase::CheckCase(ComputationGraph& g, std::uint64_t seed) : cg(g), rng_(seed) {}

CheckCase::CheckCase(ComputationGraph& g, std::uint64_t seed, std::uint64_t value_seed)
    : cg(g), rng_(seed), value_rng_(std::in_place, value_seed) {}

unsigned CheckCase::uniform(unsigned lo, unsigned hi) { return std::uniform_int_distribution<unsigned>(lo, hi)(rng_); }

float CheckCase::real(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng_); }

unsigned CheckCase::batch() { return uniform(0, 1) ? 1 : uniform(2, 3); }

Dim CheckCase::shape(unsigned min_nd, unsigned max_nd, unsigned bd) {
  Dim d;
  const unsigned nd = uniform(min_nd, max_nd);
  for (unsigned k = 0; k < nd; ++k) d.set(k, uniform(1, 4));
  d.bd = bd;
  return d;
}

std::vector<float>& CheckCase::random_values(std::size_t n, float lo, float hi) {
  inputs_.emplace_back(n);
  std::uniform_real_distribution<float> draw(lo, hi);
  for (float& v : inputs_.back()) v = draw(value_rng_ ? *value_rng_ : rng_);
  return inputs_.back();
}

Expression CheckCase::input(const Dim& d, float lo, float hi) {
  std::vector<float>& v = random_values(d.size(), lo, hi);
  Expression e = dynet::input(cg, d, &v);
  variables_.push_back({Kind::Input, v.data(), v.size(), e.i, nullptr});
  return e;
}

Expression CheckCase::distinct_input(const Dim& d) {
  std::vector<float> spread(d.size());
  for (unsigned e = 0; e < spread.size(); ++e) {
    const unsigned j = uniform(0, e);
    spread[e] = spread[j];
    spread[j] = 0.5f * e;
  }
  return input(d, -0.1f, 0.1f) + dynet::input(cg, d, spread);
}

Expression CheckCase::constant_input(const Dim& d, float lo, float hi) {
  return dynet::input(cg, d, &random_values(d.size(), lo, hi));
}

Expression CheckCase::parameter(const Dim& d, float lo, float hi) {
  Parameter p = model_.add_parameters(d, ParameterInitUniform(lo, hi));
  ParameterStorage& s = p.get_storage();
  variables_.push_back({Kind::Parameter, s.values.v, s.size(), 0, s.g.v});
  return dynet::parameter(cg, p);
}

Parameter CheckCase::constant_parameter(const Dim& d) {
  return model_.add_parameters(d, ParameterInitUniform(-1.f, 1.f));
}

LookupParameter CheckCase::lookup_parameter(unsigned rows, const Dim& d, bool differentiable) {
  LookupParameter p = model_.add_lookup_parameters(rows, d, ParameterInitUniform(-1.f, 1.f));
  LookupParameterStorage& s = p.get_storage();
  if (differentiable) variables_.push_back({Kind::Table, s.all_values.v, s.all_values.d.size(), 0, s.all_grads.v});
  return p;
}

}  // namespace dynet
