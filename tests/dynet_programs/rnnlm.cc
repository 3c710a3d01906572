// An LSTM language model as DyNet users write one (examples/rnnlm-batch.cc, simplified): a word
// embedding table, a two-layer VanillaLSTMBuilder, a softmax layer, Adam. Passes when the
// per-word loss on a small repeated corpus falls below a fifth of its first value.
#include "dynet/dict.h"
#include "dynet/expr.h"
#include "dynet/lstm.h"
#include "dynet/model.h"
#include "dynet/timing.h"
#include "dynet/training.h"

#include <iostream>
#include <sstream>
#include <vector>

using namespace std;
using namespace dynet;

struct RNNLanguageModel {
  LookupParameter p_c;
  Parameter p_R;
  Parameter p_bias;
  VanillaLSTMBuilder builder;

  RNNLanguageModel(ParameterCollection& model, unsigned vocab_size) {
    builder = VanillaLSTMBuilder(2, 16, 32, model);
    p_c = model.add_lookup_parameters(vocab_size, {16});
    p_R = model.add_parameters({vocab_size, 32});
    p_bias = model.add_parameters({vocab_size});
  }

  Expression BuildLMGraph(const vector<int>& sent, ComputationGraph& cg, unsigned kSOS, unsigned kEOS) {
    builder.new_graph(cg);
    builder.start_new_sequence();
    Expression R = parameter(cg, p_R);
    Expression bias = parameter(cg, p_bias);
    vector<Expression> errs;
    for (unsigned t = 0; t <= sent.size(); ++t) {
      unsigned cur = t == 0 ? kSOS : sent[t - 1];
      unsigned next = t == sent.size() ? kEOS : sent[t];
      Expression y = builder.add_input(lookup(cg, p_c, cur));
      Expression r = affine_transform({bias, R, y});
      errs.push_back(pickneglogsoftmax(r, next));
    }
    return sum(errs);
  }
};

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  Dict d;
  const unsigned kSOS = d.convert("<s>");
  const unsigned kEOS = d.convert("</s>");
  const vector<string> corpus = {"the cat sat on the mat", "a dog ran in the park", "the cat ran to the dog",
                                 "a bird sat on a tree"};
  vector<vector<int>> training;
  unsigned words = 0;
  for (const string& line : corpus) {
    istringstream in(line);
    vector<int> sent;
    for (string w; in >> w;) sent.push_back(d.convert(w));
    words += sent.size() + 1;
    training.push_back(sent);
  }
  d.freeze();

  ParameterCollection model;
  AdamTrainer trainer(model, 0.01);
  RNNLanguageModel lm(model, d.size());

  double first = 0, last = 0;
  for (unsigned epoch = 0; epoch < 40; ++epoch) {
    Timer iteration("epoch completed in");
    double loss = 0;
    for (const auto& sent : training) {
      ComputationGraph cg;
      Expression loss_expr = lm.BuildLMGraph(sent, cg, kSOS, kEOS);
      loss += as_scalar(cg.forward(loss_expr));
      cg.backward(loss_expr);
      trainer.update();
    }
    loss /= words;
    if (epoch == 0) first = loss;
    last = loss;
    trainer.status();
    cerr << "E = " << loss << " ppl=" << exp(loss) << endl;
  }
  cerr << "per-word loss " << first << " -> " << last << endl;
  return last < first / 5 ? 0 : 1;
}
