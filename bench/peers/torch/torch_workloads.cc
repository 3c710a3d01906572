// The libtorch peer of bench/workloads: the same models on the same data, written as a good
// PyTorch user would write them in PyTorch 1.13's C++ API. Sequences run through torch::nn::LSTM
// on packed padded minibatches (the loss only over real words); trees run either level by level
// (every node of a minibatch at the same height in one product, states gathered by index:
// variant `batched`, the default) or node by node, eagerly (`eager`); the attention
// encoder-decoder decodes a padded minibatch a step at a time, padding masked out of the attention
// and the loss. Sparse embedding gradients and plain SGD (learning rate 0.1), as dybatch's side,
// except the encoder-decoder's Adam (default learning rate) over dense 12-token embeddings;
// --threads sets at::set_num_threads. Denormals are flushed to zero (dybatch's side runs at the
// same speed with or without that).
// Tasks: rnnlm-batch, var-lstm, fixed-lstm, bilstm-tagger, treenn, tree-lstm, seq2seq-mixed,
// seq2seq-equal.

#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "workloads/datasets.h"
#include "workloads/flops.h"
#include "workloads/measurement.h"
#include "workloads/workload_options.h"

namespace F = torch::nn::functional;

namespace {

torch::Tensor sum_cross_entropy(const torch::Tensor& scores, const torch::Tensor& targets) {
  return F::cross_entropy(scores, targets, F::CrossEntropyFuncOptions().reduction(torch::kSum).ignore_index(-1));
}

torch::nn::Embedding sparse_embedding(unsigned rows, unsigned dim) {
  return torch::nn::Embedding(torch::nn::EmbeddingOptions(rows, dim).sparse(true));
}

/// Time-major ids of variable-length sequences, padded with `pad`, and their lengths.
struct Padded {
  torch::Tensor ids, lengths;
};

template <class Sequence, class Id>
Padded pad(const std::vector<const Sequence*>& batch, const Id& id, std::size_t (*length)(const Sequence&),
           int64_t pad) {
  std::size_t longest = 0;
  for (const Sequence* s : batch) longest = std::max(longest, length(*s));
  const int64_t rows = int64_t(longest), cols = int64_t(batch.size());
  torch::Tensor ids = torch::full({rows, cols}, pad, torch::kLong), lengths = torch::empty({cols}, torch::kLong);
  auto a = ids.accessor<int64_t, 2>();
  for (int64_t b = 0; b < cols; ++b) {
    const std::size_t n = length(*batch[b]);
    lengths[b] = int64_t(n);
    for (std::size_t t = 0; t < n; ++t) a[int64_t(t)][b] = id(*batch[b], t);
  }
  return {ids, lengths};
}

torch::nn::utils::rnn::PackedSequence pack(const torch::Tensor& x, const torch::Tensor& lengths) {
  return torch::nn::utils::rnn::pack_padded_sequence(x, lengths, /*batch_first=*/false, /*enforce_sorted=*/false);
}

/// Training steps of `model` by `optimizer` on minibatch `k`, where `loss(k)` gives the loss, items
/// and flops; the warm-up starts with `minibatches`' largest steps, as dybatch's does.
template <class Module, class Loss>
bench::Measurement train(Module& model, torch::optim::Optimizer& optimizer, const bench::WorkloadOptions& o,
                         const bench::Minibatches& minibatches, const Loss& loss) {
  return bench::measure(o.seconds, minibatches.largest_steps(), [&](std::size_t step) {
    // Gradients set to none rather than zeroed, as zero_grad(set_to_none=True) does.
    for (torch::Tensor& p : model->parameters()) p.mutable_grad() = torch::Tensor();
    double items = 0, flops = 0;
    loss(step, items, flops).backward();
    optimizer.step();
    return bench::StepCost{items, flops, 0, 0};
  });
}

struct LanguageModelImpl : torch::nn::Module {
  LanguageModelImpl(unsigned vocabulary, unsigned embedding, unsigned hidden)
      : embed(register_module("embed", sparse_embedding(vocabulary, embedding))),
        lstm(register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(embedding, hidden)))),
        out(register_module("out", torch::nn::Linear(hidden, vocabulary))) {}

  /// Step t reads word t - 1 (the boundary first) and predicts word t, then the sentence's end.
  torch::Tensor loss(const std::vector<const bench::WordIds*>& batch, unsigned boundary) {
    auto length = [](const bench::WordIds& s) { return s.size() + 1; };
    const Padded in = pad<bench::WordIds>(
        batch, [&](const bench::WordIds& s, std::size_t t) { return int64_t(t == 0 ? boundary : s[t - 1]); }, +length,
        boundary);
    const Padded target = pad<bench::WordIds>(
        batch, [&](const bench::WordIds& s, std::size_t t) { return int64_t(t < s.size() ? s[t] : boundary); }, +length,
        -1);
    const auto states = std::get<0>(lstm->forward_with_packed_input(pack(embed(in.ids), in.lengths)));
    return sum_cross_entropy(out(states.data()), pack(target.ids, target.lengths).data());
  }

  torch::nn::Embedding embed;
  torch::nn::LSTM lstm;
  torch::nn::Linear out;
};
TORCH_MODULE(LanguageModel);

bench::Measurement language_model(const bench::WorkloadOptions& o) {
  const bench::TextData d = bench::load_task_text(o.task, o.data);
  const bool by_length = o.task == "rnnlm-batch";
  LanguageModel model(d.words.size(), o.embedding, o.hidden);
  std::vector<std::size_t> sizes;
  for (const bench::WordIds& s : d.sentences) sizes.push_back(s.size());
  const bench::Minibatches minibatches(sizes, o.batch, by_length);
  const double word_flops = bench::language_model_word_flops(o.embedding, o.hidden, d.words.size());
  const unsigned boundary = unsigned(const_cast<dynet::Dict&>(d.words).convert(d.boundary));
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  return train(model, optimizer, o, minibatches, [&](std::size_t step, double& items, double& flops) {
    std::vector<const bench::WordIds*> batch;
    for (std::size_t i : minibatches.at(step)) {
      batch.push_back(&d.sentences[i]);
      items += double(d.sentences[i].size() + 1);
    }
    flops = items * word_flops;
    return model->loss(batch, boundary);
  });
}

struct TaggerImpl : torch::nn::Module {
  TaggerImpl(unsigned words, unsigned tags, unsigned embedding, unsigned hidden, unsigned mlp)
      : embed(register_module("embed", sparse_embedding(words, embedding))),
        lstm(register_module("lstm", torch::nn::LSTM(torch::nn::LSTMOptions(embedding, hidden).bidirectional(true)))),
        hidden_layer(register_module("hidden", torch::nn::Linear(2 * hidden, mlp))),
        out(register_module("out", torch::nn::Linear(mlp, tags))) {}

  torch::Tensor loss(const std::vector<const bench::EncodedSentence*>& batch) {
    auto length = [](const bench::EncodedSentence& s) { return s.words.size(); };
    const Padded in = pad<bench::EncodedSentence>(
        batch, [](const bench::EncodedSentence& s, std::size_t t) { return int64_t(s.words[t]); }, +length, 0);
    const Padded tags = pad<bench::EncodedSentence>(
        batch, [](const bench::EncodedSentence& s, std::size_t t) { return int64_t(s.tags[t]); }, +length, -1);
    const auto states = std::get<0>(lstm->forward_with_packed_input(pack(embed(in.ids), in.lengths)));
    return sum_cross_entropy(out(torch::tanh(hidden_layer(states.data()))), pack(tags.ids, tags.lengths).data());
  }

  torch::nn::Embedding embed;
  torch::nn::LSTM lstm;
  torch::nn::Linear hidden_layer, out;
};
TORCH_MODULE(Tagger);

bench::Measurement tagger(const bench::WorkloadOptions& o) {
  const bench::TagData d = bench::load_tags(o.data, 1, false);
  const unsigned tags = d.vocabulary.tags.size(), mlp = 32;
  Tagger model(d.vocabulary.words.size(), tags, o.embedding, o.hidden, mlp);
  std::vector<std::size_t> sizes;
  for (const bench::EncodedSentence& s : d.sentences) sizes.push_back(s.words.size());
  const bench::Minibatches minibatches(sizes, o.batch, false);
  const double word_flops = bench::tagger_word_flops(o.embedding, o.hidden, mlp, tags);
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  return train(model, optimizer, o, minibatches, [&](std::size_t step, double& items, double& flops) {
    std::vector<const bench::EncodedSentence*> batch;
    for (std::size_t i : minibatches.at(step)) {
      batch.push_back(&d.sentences[i]);
      items += double(d.sentences[i].words.size());
    }
    flops = items * word_flops;
    return model->loss(batch);
  });
}

/// The binary TreeLSTM of bench/autobatch/treelstm_model.h, loss at the root.
struct TreeLstmImpl : torch::nn::Module {
  TreeLstmImpl(unsigned vocabulary, unsigned embedding, unsigned hidden)
      : embed(register_module("embed", sparse_embedding(vocabulary, embedding))),
        leaf(register_module("leaf", torch::nn::Linear(embedding, 3 * hidden))),
        node(register_module("node", torch::nn::Linear(2 * hidden, 5 * hidden))),
        out(register_module("out", torch::nn::Linear(hidden, 5))) {}

  /// Leaves' states (rows of `words`' embeddings): c = i*u, h = o*tanh(c).
  std::pair<torch::Tensor, torch::Tensor> leaves(const torch::Tensor& words) {
    const auto g = leaf(embed(words)).chunk(3, 1);
    const torch::Tensor c = torch::sigmoid(g[0]) * torch::tanh(g[2]);
    return {torch::sigmoid(g[1]) * torch::tanh(c), c};
  }
  /// Internal nodes' states from their children's: c = i*u + f_l*c_l + f_r*c_r, h = o*tanh(c).
  std::pair<torch::Tensor, torch::Tensor> nodes(const torch::Tensor& hl, const torch::Tensor& cl,
                                                const torch::Tensor& hr, const torch::Tensor& cr) {
    const auto g = node(torch::cat({hl, hr}, 1)).chunk(5, 1);
    const torch::Tensor c =
        torch::sigmoid(g[0]) * torch::tanh(g[4]) + torch::sigmoid(g[1]) * cl + torch::sigmoid(g[2]) * cr;
    return {torch::sigmoid(g[3]) * torch::tanh(c), c};
  }

  /// Node by node, each tree on its own.
  torch::Tensor eager_loss(const std::vector<const bench::Tree*>& trees) {
    std::vector<torch::Tensor> roots;
    std::vector<int64_t> labels;
    for (const bench::Tree* t : trees) {
      std::vector<torch::Tensor> h(t->nodes.size()), c(t->nodes.size());
      for (std::size_t k = 0; k < t->nodes.size(); ++k) {
        const bench::TreeNode& n = t->nodes[k];
        std::tie(h[k], c[k]) = n.left < 0 ? leaves(torch::full({1}, int64_t(n.word), torch::kLong))
                                          : nodes(h[n.left], c[n.left], h[n.right], c[n.right]);
      }
      roots.push_back(h.back());
      labels.push_back(int64_t(t->nodes.back().label));
    }
    return sum_cross_entropy(out(torch::cat(roots)), torch::tensor(labels));
  }

  /// Level by level over all the trees: leaves first, then every node whose children are done.
  torch::Tensor level_loss(const std::vector<const bench::Tree*>& trees) {
    // levels[l]: the (tree, node) pairs of height l; row[b][k]: node k of tree b's row in the
    // states of all nodes, which are ordered by height.
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> levels;
    std::vector<std::vector<int64_t>> row(trees.size());
    for (std::size_t b = 0; b < trees.size(); ++b) {
      const bench::Tree& t = *trees[b];
      std::vector<std::size_t> height(t.nodes.size());
      for (std::size_t k = 0; k < t.nodes.size(); ++k) {
        const bench::TreeNode& n = t.nodes[k];
        height[k] = n.left < 0 ? 0 : 1 + std::max(height[n.left], height[n.right]);
        if (height[k] >= levels.size()) levels.resize(height[k] + 1);
        levels[height[k]].push_back({b, k});
      }
      row[b].resize(t.nodes.size());
    }
    int64_t next = 0;
    for (const auto& level : levels)
      for (const auto& [b, k] : level) row[b][k] = next++;

    std::vector<int64_t> words;
    for (const auto& [b, k] : levels[0]) words.push_back(int64_t(trees[b]->nodes[k].word));
    auto [h, c] = leaves(torch::tensor(words));
    for (std::size_t l = 1; l < levels.size(); ++l) {
      std::vector<int64_t> left, right;
      for (const auto& [b, k] : levels[l]) {
        left.push_back(row[b][trees[b]->nodes[k].left]);
        right.push_back(row[b][trees[b]->nodes[k].right]);
      }
      const torch::Tensor li = torch::tensor(left), ri = torch::tensor(right);
      auto [hn, cn] = nodes(h.index_select(0, li), c.index_select(0, li), h.index_select(0, ri), c.index_select(0, ri));
      h = torch::cat({h, hn});
      c = torch::cat({c, cn});
    }
    std::vector<int64_t> roots, labels;
    for (std::size_t b = 0; b < trees.size(); ++b) {
      roots.push_back(row[b].back());
      labels.push_back(int64_t(trees[b]->nodes.back().label));
    }
    return sum_cross_entropy(out(h.index_select(0, torch::tensor(roots))), torch::tensor(labels));
  }

  torch::nn::Embedding embed;
  torch::nn::Linear leaf, node, out;
};
TORCH_MODULE(TreeLstm);

bench::Measurement tree_lstm(const bench::WorkloadOptions& o) {
  const bench::TreeData d = bench::load_trees(o.data);
  TreeLstm model(d.vocabulary, o.embedding, o.hidden);
  std::vector<std::size_t> sizes;
  for (const bench::Tree& t : d.trees) sizes.push_back(t.nodes.size());
  const bench::Minibatches minibatches(sizes, o.batch, false);
  const bool eager = o.variant == "eager";
  torch::optim::SGD optimizer(model->parameters(), torch::optim::SGDOptions(0.1));
  return train(model, optimizer, o, minibatches, [&](std::size_t step, double& items, double& flops) {
    std::vector<const bench::Tree*> batch;
    for (std::size_t i : minibatches.at(step)) {
      batch.push_back(&d.trees[i]);
      flops += bench::tree_lstm_flops(d.trees[i], o.embedding, o.hidden, false);
    }
    items = double(batch.size());
    return eager ? model->eager_loss(batch) : model->level_loss(batch);
  });
}

torch::nn::Linear linear_without_bias(unsigned in, unsigned out) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(false));
}

/// The attention encoder-decoder of bench/workloads/seq2seq_model.h on a padded minibatch: the
/// encoder's torch::nn::LSTM reads both directions packed, and torch::nn::LSTMCell decodes step t
/// of every pair at once, past a target's end too; padded source positions score -inf in the
/// attention, and padded target positions are left out of the loss.
struct Seq2SeqImpl : torch::nn::Module {
  Seq2SeqImpl(unsigned vocabulary, unsigned embedding, unsigned hidden)
      : hidden(hidden),
        source_embed(register_module("source_embed", torch::nn::Embedding(vocabulary, embedding))),
        target_embed(register_module("target_embed", torch::nn::Embedding(vocabulary, embedding))),
        encoder(
            register_module("encoder", torch::nn::LSTM(torch::nn::LSTMOptions(embedding, hidden).bidirectional(true)))),
        decoder(register_module("decoder", torch::nn::LSTMCell(embedding + 2 * hidden, hidden))),
        keys(register_module("keys", linear_without_bias(2 * hidden, hidden))),
        query(register_module("query", linear_without_bias(hidden, hidden))),
        v(register_module("v", linear_without_bias(hidden, 1))),
        out(register_module("out", torch::nn::Linear(3 * hidden, vocabulary))) {}

  /// The output layer's scores (target steps x pairs x vocabulary), teacher-forced from `start`,
  /// and the targets they score (-1 past a target's end).
  std::pair<torch::Tensor, torch::Tensor> target_scores(const std::vector<const bench::SequencePair*>& batch,
                                                        unsigned start) {
    using Pair = bench::SequencePair;
    auto source_length = [](const Pair& p) { return p.source.size(); };
    auto target_length = [](const Pair& p) { return p.target.size(); };
    const Padded source = pad<Pair>(
        batch, [](const Pair& p, std::size_t t) { return int64_t(p.source[t]); }, +source_length, 0);
    const Padded previous = pad<Pair>(
        batch, [&](const Pair& p, std::size_t t) { return int64_t(t == 0 ? start : p.target[t - 1]); }, +target_length,
        start);
    const Padded target = pad<Pair>(
        batch, [](const Pair& p, std::size_t t) { return int64_t(p.target[t]); }, +target_length, -1);
    // pairs x source steps x 2 hidden, zeros past a source's end.
    const auto packed = std::get<0>(encoder->forward_with_packed_input(pack(source_embed(source.ids), source.lengths)));
    const torch::Tensor states = std::get<0>(torch::nn::utils::rnn::pad_packed_sequence(packed)).transpose(0, 1);
    // The source half of every attention score, once a minibatch rather than once a target step.
    const torch::Tensor source_keys = keys(states);
    const torch::Tensor padding = torch::arange(states.size(1)).unsqueeze(0) >= source.lengths.unsqueeze(1);
    const torch::Tensor inputs = target_embed(previous.ids);
    const int64_t pairs = int64_t(batch.size());
    torch::Tensor h = torch::zeros({pairs, hidden}), c = torch::zeros({pairs, hidden});
    torch::Tensor context = torch::zeros({pairs, 2 * hidden});
    std::vector<torch::Tensor> scores;
    for (int64_t t = 0; t < inputs.size(0); ++t) {
      std::tie(h, c) = decoder(torch::cat({inputs[t], context}, 1), std::make_tuple(h, c));
      const torch::Tensor energy = v(torch::tanh(source_keys + query(h).unsqueeze(1))).squeeze(2);
      const torch::Tensor attention = torch::softmax(energy.masked_fill(padding, -INFINITY), 1);
      context = torch::bmm(attention.unsqueeze(1), states).squeeze(1);
      scores.push_back(out(torch::cat({h, context}, 1)));
    }
    return {torch::stack(scores), target.ids};
  }

  /// The model on `pairs`, as one minibatch; see bench::Seq2SeqModel::score.
  bench::HeldOutScore score(const std::vector<bench::SequencePair>& pairs, unsigned start) {
    torch::NoGradGuard no_gradient;
    std::vector<const bench::SequencePair*> batch;
    for (const bench::SequencePair& p : pairs) batch.push_back(&p);
    const auto [scores, targets] = target_scores(batch, start);
    const torch::Tensor right = (scores.argmax(2) == targets).logical_or(targets == -1).all(0);
    bench::HeldOutScore s;
    s.examples = pairs.size();
    s.loss = sum_cross_entropy(scores.flatten(0, 1), targets.flatten()).item<double>() /
             (targets != -1).sum().item<double>();
    s.exact = right.to(torch::kDouble).mean().item<double>();
    return s;
  }

  int64_t hidden;
  torch::nn::Embedding source_embed, target_embed;
  torch::nn::LSTM encoder;
  torch::nn::LSTMCell decoder;
  torch::nn::Linear keys, query, v, out;
};
TORCH_MODULE(Seq2Seq);

bench::Measurement seq2seq(const bench::WorkloadOptions& o) {
  const bench::PairData d = bench::reversal_pairs(o.task);
  Seq2Seq model(d.vocabulary, o.embedding, o.hidden);
  std::vector<std::size_t> sizes;
  for (const bench::SequencePair& p : d.train) sizes.push_back(p.source.size());
  const bench::Minibatches minibatches(sizes, o.batch, false);
  torch::optim::Adam optimizer(model->parameters());
  const bench::HeldOutScore before = model->score(d.held_out, d.start);
  bench::Measurement m = train(model, optimizer, o, minibatches, [&](std::size_t step, double& items, double& flops) {
    std::vector<const bench::SequencePair*> batch;
    for (std::size_t i : minibatches.at(step)) {
      batch.push_back(&d.train[i]);
      flops += bench::seq2seq_pair_flops(d.train[i].source.size(), d.train[i].target.size(), o.embedding, o.hidden,
                                         d.vocabulary);
    }
    items = double(batch.size());
    const auto [scores, targets] = model->target_scores(batch, d.start);
    return sum_cross_entropy(scores.flatten(0, 1), targets.flatten());
  });
  m.before = before;
  m.after = model->score(d.held_out, d.start);
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const bench::WorkloadOptions o = bench::parse_workload_options(argc, argv, "batched,eager", DYBATCH_DATA_DIR);
  // What torch.set_flush_denormal(True) does, and what a PyTorch user does once products crawl:
  // OpenBLAS's sgemm slows several-fold on denormal operands on Intel CPUs (rnnlm-batch 5x and
  // var-lstm 3.4x slower on a Xeon VM without it). Set before the thread pool starts, so that its
  // threads inherit it.
  at::globalContext().setFlushDenormal(true);
  at::set_num_threads(int(o.threads));
  at::set_num_interop_threads(1);
  const bool trees = o.task == "treenn" || o.task == "tree-lstm";
  if (o.updates != "sgd") {
    std::fprintf(stderr, "%s: --updates %s: the libtorch peer trains with SGD only (--updates sgd)\n", argv[0],
                 o.updates.c_str());
    return 2;
  }
  if (o.variant == "eager" && !trees) {
    std::fprintf(stderr, "%s: --variant eager is for the tree tasks (treenn, tree-lstm)\n", argv[0]);
    return 2;
  }
  bench::Measurement m;
  if (bench::is_language_model(o.task)) {
    m = language_model(o);
  } else if (o.task == "bilstm-tagger") {
    m = tagger(o);
  } else if (trees) {
    m = tree_lstm(o);
  } else if (bench::is_seq2seq(o.task)) {
    m = seq2seq(o);
  } else {
    std::fprintf(stderr, "%s: no libtorch version of %s\n", argv[0], o.task.c_str());
    return 2;
  }
  bench::report(bench::run_label(o, "torch"), m);
  return 0;
}
