// The benchmark language model's two ways of writing a minibatch are one model: sentences read one
// at a time (var-lstm) give the padded and masked batch's loss (rnnlm-batch) and its gradients, so
// the suite compares the same computation whichever way a workload is written.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/io/dict.h"
#include "dynet_core/ops/all_ops.h"
#include "support/device_values.h"
#include "workloads/rnn_language_model.h"

using namespace dynet;

namespace {

using Layout = bench::RNNLanguageModel::Layout;

/// The loss, then every parameter and table gradient.
std::vector<float> loss_and_gradients(ParameterCollection& pc, bench::RNNLanguageModel& lm,
                                      const std::vector<const bench::WordIds*>& batch, Layout layout, int autobatch) {
  pc.reset_gradient();
  ComputationGraph cg;
  cg.set_autobatch(autobatch);
  const Expression loss = lm.loss(cg, batch, layout);
  std::vector<float> values{as_scalar(cg.forward(loss))};
  cg.backward(loss);
  for (const auto& p : pc.parameters_list()) append_values(values, p->g);
  for (const auto& t : pc.lookup_parameters_list()) append_values(values, t->all_grads);
  return values;
}

}  // namespace

TEST_CASE("the language model's sentences one at a time equal its padded and masked batch", "[bench]") {
  Dict words;
  for (const char* w : {"a", "b", "c", "d", "e", "f"}) words.convert(w);
  ParameterCollection pc;
  bench::RNNLanguageModel lm(pc, 5, 7, words, "<s>");
  // Lengths 0 to 6, so that the padded batch masks something at most of its steps.
  const std::vector<bench::WordIds> sentences{{0, 1, 2}, {}, {3, 4, 5, 0, 1, 2}, {5}, {2, 2, 4, 1}};
  std::vector<const bench::WordIds*> batch;
  for (const bench::WordIds& s : sentences) batch.push_back(&s);

  const std::vector<float> padded = loss_and_gradients(pc, lm, batch, Layout::kPadded, 0);
  for (int autobatch : {0, 1, 2}) {
    INFO("--dynet-autobatch " << autobatch);
    const std::vector<float> one_by_one = loss_and_gradients(pc, lm, batch, Layout::kSentenceBySentence, autobatch);
    REQUIRE(one_by_one.size() == padded.size());
    for (std::size_t k = 0; k < padded.size(); ++k) {
      INFO("value " << k);
      REQUIRE(one_by_one[k] == Approx(padded[k]).epsilon(1e-4).margin(1e-6));
    }
  }
}
