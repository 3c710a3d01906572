// A bidirectional LSTM tagger as DyNet users write one (examples/tagger-bilstm.cc, simplified):
// forward and backward VanillaLSTMBuilders over word embeddings, a tanh layer and a softmax per
// word, under --dynet-autobatch when given. Passes when every training word gets its tag.
#include "dynet/dict.h"
#include "dynet/expr.h"
#include "dynet/lstm.h"
#include "dynet/model.h"
#include "dynet/training.h"

#include <iostream>
#include <sstream>
#include <vector>

using namespace std;
using namespace dynet;

struct BiLSTMTagger {
  LookupParameter p_w;
  Parameter p_l2th, p_r2th, p_thbias, p_th2t, p_tbias;
  VanillaLSTMBuilder l2rbuilder, r2lbuilder;

  BiLSTMTagger(ParameterCollection& model, unsigned vocab, unsigned tags)
      : l2rbuilder(1, 8, 16, model), r2lbuilder(1, 8, 16, model) {
    p_w = model.add_lookup_parameters(vocab, {8});
    p_l2th = model.add_parameters({16, 16});
    p_r2th = model.add_parameters({16, 16});
    p_thbias = model.add_parameters({16});
    p_th2t = model.add_parameters({tags, 16});
    p_tbias = model.add_parameters({tags});
  }

  // The scores of every word's tags.
  vector<Expression> BuildTaggingGraph(const vector<int>& sent, ComputationGraph& cg) {
    l2rbuilder.new_graph(cg);
    l2rbuilder.start_new_sequence();
    r2lbuilder.new_graph(cg);
    r2lbuilder.start_new_sequence();
    Expression i_l2th = parameter(cg, p_l2th), i_r2th = parameter(cg, p_r2th), i_thbias = parameter(cg, p_thbias);
    Expression i_th2t = parameter(cg, p_th2t), i_tbias = parameter(cg, p_tbias);
    const unsigned slen = sent.size();
    vector<Expression> i_words(slen), fwds(slen), revs(slen);
    for (unsigned t = 0; t < slen; ++t) i_words[t] = lookup(cg, p_w, sent[t]);
    for (unsigned t = 0; t < slen; ++t) fwds[t] = l2rbuilder.add_input(i_words[t]);
    for (unsigned t = 0; t < slen; ++t) revs[slen - t - 1] = r2lbuilder.add_input(i_words[slen - t - 1]);
    vector<Expression> scores;
    for (unsigned t = 0; t < slen; ++t) {
      Expression i_th = tanh(affine_transform({i_thbias, i_l2th, fwds[t], i_r2th, revs[t]}));
      scores.push_back(affine_transform({i_tbias, i_th2t, i_th}));
    }
    return scores;
  }
};

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  Dict words, tags;
  // A word's tag depends on its neighbours: "can" is a verb after a pronoun, a noun after "a".
  const vector<string> data = {"I/P can/V fish/V",        "a/D can/N rusts/V", "we/P can/V swim/V",
                               "a/D fish/N can/V swim/V", "I/P fish/V",        "a/D can/N"};
  vector<pair<vector<int>, vector<int>>> training;
  for (const string& line : data) {
    istringstream in(line);
    vector<int> x, y;
    for (string tok; in >> tok;) {
      const auto slash = tok.find('/');
      x.push_back(words.convert(tok.substr(0, slash)));
      y.push_back(tags.convert(tok.substr(slash + 1)));
    }
    training.emplace_back(x, y);
  }
  ParameterCollection model;
  AdamTrainer trainer(model, 0.02);
  BiLSTMTagger tagger(model, words.size(), tags.size());

  for (unsigned epoch = 0; epoch < 40; ++epoch) {
    ComputationGraph cg;  // the whole training set in one graph, as minibatching DyNet users do
    vector<Expression> errs;
    for (const auto& [x, y] : training) {
      vector<Expression> scores = tagger.BuildTaggingGraph(x, cg);
      for (unsigned t = 0; t < x.size(); ++t) errs.push_back(pickneglogsoftmax(scores[t], y[t]));
    }
    Expression loss = sum(errs);
    cg.forward(loss);
    cg.backward(loss);
    trainer.update();
  }
  unsigned right = 0, total = 0;
  for (const auto& [x, y] : training) {
    ComputationGraph cg;
    vector<Expression> scores = tagger.BuildTaggingGraph(x, cg);
    for (unsigned t = 0; t < x.size(); ++t) {
      vector<float> s = as_vector(cg.incremental_forward(scores[t]));
      right += static_cast<int>(max_element(s.begin(), s.end()) - s.begin()) == y[t];
      ++total;
    }
  }
  cerr << right << " of " << total << " tags right" << endl;
  return right == total ? 0 : 1;
}
