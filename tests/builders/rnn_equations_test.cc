// Every recurrent builder against DyNet's equations, written out with Eigen from DyNet's sources
// (rnn.cc, gru.cc, lstm.cc, fast-lstm.cc, deep-lstm.cc) over the builder's `params` in DyNet's
// order: two layers, two steps, the first from the zero state and the second from the first's, so
// that each cell's branches with and without a previous state and every parameter are exercised.

#include <catch2/catch.hpp>

#include <Eigen/Core>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include "builders/compact_vanilla_lstm_builder.h"
#include "builders/coupled_lstm_builder.h"
#include "builders/deep_lstm_builder.h"
#include "builders/fast_lstm_builder.h"
#include "builders/gru_builder.h"
#include "builders/simple_rnn_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "scratch_folder.h"
#include "support/device_values.h"
#include "support/scramble.h"

using namespace dynet;
using Eigen::MatrixXf;
using Eigen::VectorXf;

namespace {

constexpr unsigned kInput = 3, kHidden = 2, kLayers = 2;

VectorXf sigmoid(const VectorXf& a) { return (1.f + (-a.array()).exp()).inverse().matrix(); }
VectorXf tanh_of(const VectorXf& a) { return a.array().tanh().matrix(); }
VectorXf cwise(const VectorXf& a, const VectorXf& b) { return a.cwiseProduct(b); }
VectorXf one_minus(const VectorXf& a) { return (1.f - a.array()).matrix(); }
/// layer_norm: g * (x - mean) / sqrt(var + 1e-6) + b. DyNet divides by std + 1e-8; dybatch's op
/// keeps its epsilon inside the root (docs/compatibility.md), which the two-row cells here, of
/// small variance, tell apart.
VectorXf layer_norm(const VectorXf& x, const MatrixXf& g, const MatrixXf& b) {
  const VectorXf centered = x.array() - x.mean();
  return VectorXf(cwise(g, centered / std::sqrt(centered.squaredNorm() / float(x.size()) + 1e-6f)) + b);
}

/// One layer's parameter values in the order of the builder's `params` (then `ln_params`).
using Layer = std::vector<MatrixXf>;
struct State {
  VectorXf h, c;
};
/// One layer of a cell from DyNet's source: its input, and its previous state (null: zero state).
using Cell = std::function<State(const Layer& p, const VectorXf& x, const State* prev)>;

std::vector<Layer> values_of(const std::vector<std::vector<Parameter>>& params,
                             const std::vector<std::vector<Parameter>>& more = {}) {
  std::vector<Layer> layers;
  for (std::size_t l = 0; l < params.size(); ++l) {
    layers.emplace_back();
    for (const Parameter& p : params[l]) layers.back().push_back(host_matrix(p.get_storage().values));
    if (l < more.size())
      for (const Parameter& p : more[l]) layers.back().push_back(host_matrix(p.get_storage().values));
  }
  return layers;
}

VectorXf vec_of(const std::vector<float>& v) { return Eigen::Map<const VectorXf>(v.data(), Eigen::Index(v.size())); }
const VectorXf kXs[2] = {VectorXf::LinSpaced(kInput, -0.8f, 0.9f), VectorXf::LinSpaced(kInput, 0.6f, -0.4f)};

/// Runs both steps through the builder and through `cell`, and compares the full state after
/// each. `deep`: the layers above the first read [h below; x] (DyNet's DeepLSTMBuilder).
/// With `vertex_tasks`, under an engine that runs marked cells as vertex-function tasks (the
/// agenda engine under --dynet-vertex 2), for which builders may lay out their steps otherwise.
void check_two_steps(RNNBuilder& rnn, const std::vector<Layer>& p, const Cell& cell, bool with_cells, bool deep = false,
                     bool vertex_tasks = false) {
  ComputationGraph cg;
  if (vertex_tasks) {
    cg.set_autobatch(1);
    cg.set_vertex(2);
  }
  REQUIRE(cg.runs_vertex_tasks() == vertex_tasks);
  rnn.new_graph(cg);
  rnn.start_new_sequence();
  std::vector<State> now;
  for (int t = 0; t < 2; ++t) {
    rnn.add_input(input(cg, Dim({kInput}), std::vector<float>(kXs[t].data(), kXs[t].data() + kInput)));
    std::vector<State> next;
    VectorXf in = kXs[t];
    for (unsigned l = 0; l < kLayers; ++l) {
      next.push_back(cell(p[l], in, now.empty() ? nullptr : &now[l]));
      if (deep) {
        in = VectorXf(kHidden + kInput);
        in << next.back().h, kXs[t];
      } else {
        in = next.back().h;
      }
    }
    now = next;
    const std::vector<Expression> s = rnn.final_s();
    REQUIRE(s.size() == (with_cells ? 2 : 1) * kLayers);
    for (unsigned l = 0; l < kLayers; ++l) {
      INFO("step " << t << ", layer " << l);
      const VectorXf h = vec_of(as_vector(cg.incremental_forward(s[(with_cells ? kLayers : 0) + l])));
      CHECK((h - now[l].h).cwiseAbs().maxCoeff() < 1e-5f);
      if (with_cells) CHECK((vec_of(as_vector(cg.incremental_forward(s[l]))) - now[l].c).cwiseAbs().maxCoeff() < 1e-5f);
    }
  }
}

/// rnn.cc: p = x2h, h2h, hb[, l2h]; `aux` adds l2h aux (add_auxiliary_input).
State simple_rnn(const Layer& p, const VectorXf& x, const State* prev, const VectorXf* aux = nullptr) {
  VectorXf a = p[2] + p[0] * x;
  if (aux) a += p[3] * *aux;
  if (prev) a += p[1] * prev->h;
  return {tanh_of(a), VectorXf()};
}

/// gru.cc: p = x2z, h2z, bz, x2r, h2r, br, x2h, h2h, bh.
State gru(const Layer& p, const VectorXf& x, const State* prev) {
  if (!prev) return {cwise(sigmoid(p[2] + p[0] * x), tanh_of(p[8] + p[6] * x)), VectorXf()};
  const VectorXf& h = prev->h;
  const VectorXf z = sigmoid(p[2] + p[0] * x + p[1] * h), r = sigmoid(p[5] + p[3] * x + p[4] * h);
  const VectorXf g = tanh_of(p[8] + p[6] * x + p[7] * cwise(r, h));
  return {cwise(one_minus(z), h) + cwise(z, g), VectorXf()};
}

/// lstm.cc's VanillaLSTMBuilder: p = x2i, h2i, bi {4h, ...} rows i, f, o, g, and with layer norm
/// ln_params gh, bh, gx, bx, gc, bc.
State vanilla_lstm(const Layer& p, const VectorXf& x, const State* prev, bool ln, float forget_bias) {
  VectorXf a = p[2] + (ln ? layer_norm(p[0] * x, p[5], p[6]) : VectorXf(p[0] * x));
  if (prev) a += ln ? layer_norm(p[1] * prev->h, p[3], p[4]) : VectorXf(p[1] * prev->h);
  const unsigned n = kHidden;
  const VectorXf i = sigmoid(a.segment(0, n)), f = sigmoid(a.segment(n, n).array() + forget_bias);
  const VectorXf o = sigmoid(a.segment(2 * n, n)), g = tanh_of(a.segment(3 * n, n));
  const VectorXf c = prev ? VectorXf(cwise(f, prev->c) + cwise(i, g)) : cwise(i, g);
  return {cwise(o, tanh_of(ln ? layer_norm(c, p[7], p[8]) : c)), c};
}

/// lstm.cc's CoupledLSTMBuilder, fast-lstm.cc and deep-lstm.cc: p = x2i, h2i, c2i, bi, x2o, h2o,
/// c2o, bo, x2c, h2c, bc. They differ in where the cell feeds the gates: Coupled's i reads c_{t-1}
/// and its o reads c_t at every step; Deep's o reads c_t only with a previous state; Fast's never.
enum class Peep { coupled, deep, fast };
State coupled_lstm(const Layer& p, const VectorXf& x, const State* prev, Peep peep) {
  VectorXf ai = p[3] + p[0] * x, ag = p[10] + p[8] * x, ao = p[7] + p[4] * x;
  if (prev) {
    ai += p[1] * prev->h + (peep == Peep::fast ? VectorXf::Zero(kHidden) : VectorXf(p[2] * prev->c));
    ag += p[9] * prev->h;
    ao += p[5] * prev->h;
  }
  const VectorXf i = sigmoid(ai);
  const VectorXf c = prev ? VectorXf(cwise(one_minus(i), prev->c) + cwise(i, tanh_of(ag))) : cwise(i, tanh_of(ag));
  if (peep == Peep::coupled || (peep == Peep::deep && prev)) ao += p[6] * c;
  return {cwise(sigmoid(ao), tanh_of(c)), c};
}

}  // namespace

TEST_CASE("SimpleRNNBuilder computes DyNet's h = tanh(hb + x2h x + h2h h)", "[builders][rnn]") {
  ParameterCollection model;
  SimpleRNNBuilder rnn(kLayers, kInput, kHidden, model);
  test_support::scramble(model);
  check_two_steps(
      rnn, values_of(rnn.params),
      [](const Layer& p, const VectorXf& x, const State* prev) { return simple_rnn(p, x, prev); }, false);
}

TEST_CASE("SimpleRNNBuilder with support_lags adds l2h aux in add_auxiliary_input, as DyNet's", "[builders][rnn]") {
  ParameterCollection model;
  SimpleRNNBuilder rnn(kLayers, kInput, kHidden, model, true);
  test_support::scramble(model);
  const std::vector<Layer> p = values_of(rnn.params);
  REQUIRE(p[1].size() == 4);
  const VectorXf aux = VectorXf::LinSpaced(kHidden, 0.7f, -0.2f);
  ComputationGraph cg;
  rnn.new_graph(cg);
  rnn.start_new_sequence();
  const Expression aux_e = input(cg, Dim({kHidden}), std::vector<float>(aux.data(), aux.data() + kHidden));
  auto in = [&](int t) { return input(cg, Dim({kInput}), std::vector<float>(kXs[t].data(), kXs[t].data() + kInput)); };
  const Expression h1 = rnn.add_auxiliary_input(in(0), aux_e);
  const Expression h2 = rnn.add_input(in(1));
  std::vector<State> s1, s2;
  VectorXf x1 = kXs[0], x2 = kXs[1];
  for (unsigned l = 0; l < kLayers; ++l) {
    s1.push_back(simple_rnn(p[l], x1, nullptr, &aux));
    s2.push_back(simple_rnn(p[l], x2, &s1[l]));
    x1 = s1[l].h;
    x2 = s2[l].h;
  }
  CHECK((vec_of(as_vector(cg.incremental_forward(h1))) - s1.back().h).cwiseAbs().maxCoeff() < 1e-5f);
  CHECK((vec_of(as_vector(cg.incremental_forward(h2))) - s2.back().h).cwiseAbs().maxCoeff() < 1e-5f);

  ParameterCollection other;
  SimpleRNNBuilder unlagged(1, kInput, kHidden, other);
  ComputationGraph cg2;
  unlagged.new_graph(cg2);
  CHECK_THROWS_WITH(
      unlagged.add_auxiliary_input(input(cg2, Dim({kInput}), {1.f, 2.f, 3.f}), zeros(cg2, Dim({kHidden}))),
      Catch::Contains("SimpleRNNBuilder::add_auxiliary_input") && Catch::Contains("support_lags"));
}

TEST_CASE("GRUBuilder computes DyNet's GRU from its nine parameters a layer", "[builders][rnn]") {
  ParameterCollection model;
  GRUBuilder rnn(kLayers, kInput, kHidden, model);
  test_support::scramble(model);
  REQUIRE(rnn.params[0].size() == 9);
  check_two_steps(rnn, values_of(rnn.params), gru, false);
}

TEST_CASE("VanillaLSTMBuilder and CompactVanillaLSTMBuilder compute DyNet's LSTM, gates i, f, o, g in {4 hidden} rows",
          "[builders][rnn]") {
  // The compact builder's fused gates have lstm.cc's forget bias of 1 (nodes-lstm.cc).
  const float forget_bias = GENERATE(1.f, 0.f, 0.5f);
  const bool compact = GENERATE(false, true);
  if (compact && forget_bias != 1.f) return;
  // VanillaLSTMBuilder's two layouts of a step: fused nodes, and DyNet's nodes for vertex tasks.
  const bool vertex_tasks = GENERATE(false, true);
  INFO((vertex_tasks ? "vertex tasks" : "fused nodes"));
  ParameterCollection model;
  std::unique_ptr<RNNBuilder> rnn;
  if (compact)
    rnn = std::make_unique<CompactVanillaLSTMBuilder>(kLayers, kInput, kHidden, model);
  else
    rnn = std::make_unique<VanillaLSTMBuilder>(kLayers, kInput, kHidden, model, false, forget_bias);
  test_support::scramble(model);
  check_two_steps(
      *rnn, values_of(rnn->params),
      [&](const Layer& p, const VectorXf& x, const State* prev) {
        return vanilla_lstm(p, x, prev, false, forget_bias);
      },
      true, false, vertex_tasks);
}

TEST_CASE("a layer-normalized VanillaLSTMBuilder normalizes W_x x, W_h h and c as DyNet's", "[builders][rnn]") {
  ParameterCollection model;
  VanillaLSTMBuilder rnn(kLayers, kInput, kHidden, model, true);
  test_support::scramble(model);
  REQUIRE(rnn.ln_params.size() == kLayers);
  const bool vertex_tasks = GENERATE(false, true);
  INFO((vertex_tasks ? "vertex tasks" : "fused nodes"));
  check_two_steps(
      rnn, values_of(rnn.params, rnn.ln_params),
      [](const Layer& p, const VectorXf& x, const State* prev) { return vanilla_lstm(p, x, prev, true, 1.f); }, true,
      false, vertex_tasks);
}

TEST_CASE("VanillaLSTMBuilder takes three nodes a step after its affine transform, DyNet's fourteen for vertex tasks",
          "[builders][rnn]") {
  ParameterCollection model;
  VanillaLSTMBuilder rnn(1, kInput, kHidden, model);
  for (const bool vertex_tasks : {false, true}) {
    ComputationGraph cg;
    cg.set_autobatch(1);
    cg.set_vertex(vertex_tasks ? 2 : 1);
    rnn.new_graph(cg);
    rnn.start_new_sequence();
    const Expression x = input(cg, Dim({kInput}), std::vector<float>(kInput, 0.5f));
    rnn.add_input(x);
    const VariableIndex before = cg.size();
    rnn.add_input(x);
    // The affine transform, then the gates, the cell and the output; or DyNet's pick_range,
    // logistic, tanh, cmult and sums.
    CHECK(cg.size() - before == (vertex_tasks ? 1u + 14u : 1u + 3u));
  }
}

TEST_CASE("CoupledLSTMBuilder, FastLSTMBuilder and DeepLSTMBuilder compute DyNet's coupled LSTMs (f = 1 - i)",
          "[builders][rnn]") {
  const Peep peep = GENERATE(Peep::coupled, Peep::fast, Peep::deep);
  ParameterCollection model;
  std::unique_ptr<RNNBuilder> rnn;
  if (peep == Peep::coupled) rnn = std::make_unique<CoupledLSTMBuilder>(kLayers, kInput, kHidden, model);
  if (peep == Peep::fast) rnn = std::make_unique<FastLSTMBuilder>(kLayers, kInput, kHidden, model);
  if (peep == Peep::deep) rnn = std::make_unique<DeepLSTMBuilder>(kLayers, kInput, kHidden, model);
  INFO(rnn->get_parameter_collection().get_fullname());
  test_support::scramble(model);
  check_two_steps(
      *rnn, values_of(rnn->params),
      [&](const Layer& p, const VectorXf& x, const State* prev) { return coupled_lstm(p, x, prev, peep); }, true,
      peep == Peep::deep);
}

// A builder trained elsewhere arrives as a file in DyNet's format (the text DyNet 2.1 writes):
// populated from it, a fresh builder of the same kind computes DyNet's equations over the file's
// values, so the file's records land on the right parameters in the right order.
TEST_CASE("builders populated from a file in DyNet's format compute DyNet's equations over its values",
          "[builders][rnn][io]") {
  const ScratchFolder folder;
  const std::string path = folder.file("builder.model");
  ParameterCollection trained_model, fresh_model;
  GRUBuilder trained_gru(kLayers, kInput, kHidden, trained_model);
  VanillaLSTMBuilder trained_lstm(kLayers, kInput, kHidden, trained_model, true);
  test_support::scramble(trained_model);
  TextFileSaver(path, false, ModelFileFormat::DyNet).save(trained_model);
  GRUBuilder fresh_gru(kLayers, kInput, kHidden, fresh_model);
  VanillaLSTMBuilder fresh_lstm(kLayers, kInput, kHidden, fresh_model, true);
  TextFileLoader(path).populate(fresh_model);
  check_two_steps(fresh_gru, values_of(trained_gru.params), gru, false);
  check_two_steps(
      fresh_lstm, values_of(trained_lstm.params, trained_lstm.ln_params),
      [](const Layer& p, const VectorXf& x, const State* prev) { return vanilla_lstm(p, x, prev, true, 1.f); }, true);
}
