// A language model over words spelled out, as DyNet users write one with DyNet's less common
// builders: each word is its pretrained vector (pretrain.h) joined with a character-level
// representation (C2WBuilder), a DeepLSTMBuilder reads the sentence, and a hierarchical softmax
// over Brown-style word clusters (HierarchicalSoftmaxBuilder) predicts the next word. Passes when
// the per-word loss falls below a third of its first value and a sampled sentence ends.
#include "dynet/c2w.h"
#include "dynet/deep-lstm.h"
#include "dynet/dict.h"
#include "dynet/expr.h"
#include "dynet/hsm-builder.h"
#include "dynet/pretrain.h"
#include "dynet/str-util.h"
#include "dynet/timing.h"
#include "dynet/training.h"

#include <fstream>
#include <iostream>
#include <unordered_map>
#include <vector>

using namespace std;
using namespace dynet;

const unsigned kWordDim = 8, kCharDim = 6, kCharHidden = 8, kHidden = 16, kLayers = 2;

struct CharLM {
  LookupParameter p_w;
  C2WBuilder c2w;
  DeepLSTMBuilder builder;
  HierarchicalSoftmaxBuilder hsm;

  CharLM(ParameterCollection& model, Dict& d, unsigned chars, const string& clusters)
      : p_w(model.add_lookup_parameters(d.size(), {kWordDim})),
        c2w(chars, 1, kCharDim, kCharHidden, model),
        builder(kLayers, kWordDim + 2 * kCharHidden, kHidden, model),
        hsm(kLayers * kHidden, clusters, d, model) {}

  Expression BuildLMGraph(const vector<int>& sent, const vector<vector<int>>& spelling, ComputationGraph& cg, int kSOS,
                          int kEOS) {
    c2w.new_graph(cg);
    builder.new_graph(cg);
    hsm.new_graph(cg);
    builder.start_new_sequence();
    vector<Expression> errs;
    for (unsigned t = 0; t <= sent.size(); ++t) {
      const int cur = t == 0 ? kSOS : sent[t - 1];
      const int next = t == sent.size() ? kEOS : sent[t];
      Expression x = concatenate({lookup(cg, p_w, cur), c2w.add_word(cur, spelling[cur], cg)});
      Expression h = builder.add_input(x);  // every layer's output, joined
      errs.push_back(hsm.neg_log_softmax(h, next));
    }
    return sum(errs);
  }

  vector<int> Sample(const vector<vector<int>>& spelling, int kSOS, int kEOS) {
    ComputationGraph cg;
    c2w.new_graph(cg);
    builder.new_graph(cg);
    hsm.new_graph(cg);
    builder.start_new_sequence();
    vector<int> sent;
    int cur = kSOS;
    while (sent.size() < 20) {
      Expression h = builder.add_input(concatenate({lookup(cg, p_w, cur), c2w.add_word(cur, spelling[cur], cg)}));
      cur = hsm.sample(h);
      if (cur == kEOS) break;
      sent.push_back(cur);
    }
    return sent;
  }
};

int main(int argc, char** argv) {
  dynet::initialize(argc, argv);
  Dict d, chars;
  const int kSOS = d.convert("<s>");
  const int kEOS = d.convert("</s>");
  const vector<string> corpus = {"the cat sat on the mat", "a dog ran in the park", "the cat ran to the dog",
                                 "a bird sat on a tree"};
  vector<vector<int>> training;
  unsigned words = 0;
  for (const string& line : corpus) {
    vector<int> sent;
    for (const string& w : str_split(line, ' ')) sent.push_back(d.convert(w));
    words += sent.size() + 1;
    training.push_back(sent);
  }

  // Brown-style clusters: bit strings, one bit a level, then the word.
  const string cluster_file = "char_lm-clusters.txt";
  {
    ofstream out(cluster_file);
    const vector<pair<string, string>> clusters = {{"0 0", "the"},  {"0 0", "a"},   {"0 1", "cat"},  {"0 1", "dog"},
                                                   {"0 1", "bird"}, {"0 1", "mat"}, {"0 1", "park"}, {"0 1", "tree"},
                                                   {"1 0", "sat"},  {"1 0", "ran"}, {"1 1", "on"},   {"1 1", "in"},
                                                   {"1 1", "to"},   {"1 1", "</s>"}};
    for (const auto& c : clusters) out << c.first << '\t' << c.second << "\t1\n";
  }
  // Pretrained vectors for part of the vocabulary, as a file of another run would give them.
  const string vectors_file = "char_lm-vectors.txt";
  {
    ParameterCollection pretrained_model;
    Dict pretrained_words;
    for (const string w : {"the", "cat", "dog", "zebra"}) pretrained_words.convert(w);
    LookupParameter pretrained = pretrained_model.add_lookup_parameters(pretrained_words.size(), {kWordDim});
    save_pretrained_embeddings(vectors_file, pretrained_words, pretrained);
  }
  d.set_unk("<unk>");
  d.freeze();
  unordered_map<int, vector<float>> pretrained;
  read_pretrained_embeddings(vectors_file, d, pretrained);  // "zebra" is unknown: skipped
  if (pretrained.size() != 3) {
    cerr << "expected 3 pretrained vectors, read " << pretrained.size() << endl;
    return 1;
  }

  vector<vector<int>> spelling(d.size());
  for (unsigned w = 0; w < d.size(); ++w) {
    const string& word = d.convert(w);
    for (char c : startswith(word, "<") ? string(1, word[1]) : word) spelling[w].push_back(chars.convert(string(1, c)));
  }
  chars.freeze();

  ParameterCollection model;
  AdamTrainer trainer(model, 0.01);
  CharLM lm(model, d, chars.size(), cluster_file);
  for (const auto& v : pretrained) lm.p_w.initialize(v.first, v.second);

  double first = 0, last = 0;
  for (unsigned epoch = 0; epoch < 30; ++epoch) {
    Timer iteration("epoch completed in");
    double loss = 0;
    for (const auto& sent : training) {
      ComputationGraph cg;
      Expression loss_expr = lm.BuildLMGraph(sent, spelling, cg, kSOS, kEOS);
      loss += as_scalar(cg.forward(loss_expr));
      cg.backward(loss_expr);
      trainer.update();
    }
    loss /= words;
    if (epoch == 0) first = loss;
    last = loss;
    cerr << "E = " << loss << " ppl=" << exp(loss) << endl;
  }
  const vector<int> sample = lm.Sample(spelling, kSOS, kEOS);
  for (int w : sample) cerr << d.convert(w) << ' ';
  cerr << endl << "per-word loss " << first << " -> " << last << endl;
  return last < first / 3 && sample.size() < 20 ? 0 : 1;
}
