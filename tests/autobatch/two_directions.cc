#include "autobatch/two_directions.h"

#include <catch2/catch.hpp>

#include "dynet_core/ops/all_ops.h"
#include "dynet_core/tensor.h"

namespace dynet {

void Recurrence::start(ComputationGraph& cg, int strategy, int vertex) {
  pc.reset_gradient();
  cg.set_autobatch(strategy);
  cg.set_vertex(vertex);
}

void Recurrence::read_gradients(Run& r) const {
  r.w = as_vector(W.get_storage().g);
  r.u = as_vector(U.get_storage().g);
  r.b = as_vector(b.get_storage().g);
  r.embeddings = as_vector(E.get_storage().all_grads);
}

Run two_directions(Recurrence& m, bool computed_inputs, int strategy, int vertex, bool computed_weight,
                   bool inputs_first) {
  ComputationGraph cg;
  m.start(cg, strategy, vertex);
  const Expression w = parameter(cg, m.W), bias = parameter(cg, m.b);
  const Expression u = computed_weight ? parameter(cg, m.U) * 2.f : parameter(cg, m.U);
  LookupParameter& E = m.E;
  const std::vector<unsigned> words = {3, 1, 4, 1, 5, 9, 2};
  std::vector<Expression> inputs;
  if (computed_inputs)
    for (unsigned word : words) inputs.push_back(tanh(lookup(cg, E, word)));
  // Incremental: forward() would compute the whole graph again.
  if (computed_inputs && inputs_first) cg.incremental_forward(concatenate(inputs));
  auto x = [&](unsigned t) { return computed_inputs ? inputs[t] : lookup(cg, E, words[t]); };
  std::vector<Expression> states;
  for (int direction : {1, -1}) {
    Expression h;
    for (unsigned s = 0; s < words.size(); ++s) {
      const unsigned t = direction > 0 ? s : unsigned(words.size()) - 1 - s;
      h = tanh(s == 0 ? affine_transform({bias, u, x(t)}) : affine_transform({bias, u, x(t), w, h}));
      states.push_back(h);
    }
  }
  const Expression all = concatenate(states);
  const Expression loss = sum_elems(cmult(all, all));
  Run r;
  cg.engine().reset_stats();
  r.states = as_vector(inputs_first ? cg.incremental_forward(all) : cg.forward(all));
  r.forward = cg.engine().stats();
  if (inputs_first)
    cg.incremental_forward(loss);
  else
    cg.forward(loss);
  cg.engine().reset_stats();
  cg.backward(loss);
  r.backward = cg.engine().stats();
  m.read_gradients(r);
  return r;
}

void check_close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  INFO(what);
  REQUIRE(got.size() == want.size());
  float norm = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    CHECK(got[i] == Approx(want[i]).epsilon(1e-4).margin(1e-5));
    norm += got[i] * got[i];
  }
  CHECK(norm > 0);
}

void check_agree(const Run& got, const Run& want) {
  check_close(got.states, want.states, "states");
  check_close(got.w, want.w, "W gradient");
  check_close(got.u, want.u, "U gradient");
  check_close(got.b, want.b, "b gradient");
  check_close(got.embeddings, want.embeddings, "embedding gradients");
}

}  // namespace dynet
