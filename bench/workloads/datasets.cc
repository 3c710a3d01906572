#include "workloads/datasets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>

#include "examples/common/sentiment_treebank.h"
#include "examples/common/tagged_corpus.h"
#include "examples/common/text_corpus.h"

namespace bench {

namespace {

bool readable(const std::string& path) { return std::ifstream(path).good(); }

void say_generated(const std::string& path, const char* what) {
  std::fprintf(stderr, "%s not found: using generated %s of the same shape statistics\n", path.c_str(), what);
}

/// Word ids with Zipf frequencies (rank r drawn in proportion to 1/r), as in natural text.
class ZipfWords {
 public:
  explicit ZipfWords(unsigned vocabulary) {
    std::vector<double> weights(vocabulary);
    for (unsigned r = 0; r < vocabulary; ++r) weights[r] = 1.0 / (r + 1);
    pick_ = std::discrete_distribution<unsigned>(weights.begin(), weights.end());
  }
  unsigned operator()(std::mt19937_64& rng) { return pick_(rng); }

 private:
  std::discrete_distribution<unsigned> pick_;
};

/// Lengths around `mean` with deviation `deviation`, within [low, high].
unsigned draw_length(std::mt19937_64& rng, double mean, double deviation, unsigned low, unsigned high) {
  const double x = std::normal_distribution<double>(mean, deviation)(rng);
  return static_cast<unsigned>(std::clamp(std::lround(x), long(low), long(high)));
}

std::vector<examples::Sentence> generated_text(unsigned count) {
  std::mt19937_64 rng(11);
  ZipfWords words(10000);
  std::vector<examples::Sentence> out(count);
  for (examples::Sentence& s : out)
    for (unsigned n = draw_length(rng, 21, 10, 1, 82); n > 0; --n) s.push_back("w" + std::to_string(words(rng)));
  return out;
}

std::vector<examples::Sentence> read_text(const std::string& dir, bool& generated) {
  const std::string path = dir + "/text/train.txt";
  generated = !readable(path);
  if (!generated) return examples::read_sentences(path);
  say_generated(path, "text");
  return generated_text(42068);
}

TextData encode(const std::vector<examples::Sentence>& sentences, bool generated) {
  TextData d;
  d.generated = generated;
  d.words.convert(d.boundary);
  for (const examples::Sentence& s : sentences) {
    WordIds ids;
    for (const std::string& w : s) ids.push_back(static_cast<unsigned>(d.words.convert(w)));
    d.sentences.push_back(std::move(ids));
  }
  d.words.freeze();
  return d;
}

std::vector<examples::TaggedSentence> generated_tags(unsigned count) {
  std::mt19937_64 rng(12);
  ZipfWords words(20000);
  // WikiNER: most words are outside any entity; entity tags come in short runs.
  const char* const tags[] = {"O", "I-PER", "I-LOC", "I-ORG", "I-MISC", "B-PER", "B-LOC", "B-ORG", "B-MISC"};
  std::discrete_distribution<unsigned> tag({84, 4, 4, 3, 3, 0.5, 0.5, 0.5, 0.5});
  std::vector<examples::TaggedSentence> out(count);
  for (examples::TaggedSentence& s : out)
    for (unsigned n = draw_length(rng, 24, 12, 2, 100); n > 0; --n) {
      s.words.push_back("w" + std::to_string(words(rng)));
      s.tags.push_back(tags[tag(rng)]);
    }
  return out;
}

/// Appends the subtree of SST node `k` (children first) and returns its index in `out`.
int convert_node(const examples::LabeledTree& in, std::size_t k, Tree& out, dynet::Dict& words) {
  const examples::LabeledTree::Node& n = in.nodes[k];
  TreeNode node;
  node.label = static_cast<unsigned>(std::max(0, n.label));
  if (n.children.empty()) {
    node.word = static_cast<unsigned>(words.convert(n.word));
  } else if (n.children.size() == 2) {
    node.left = convert_node(in, static_cast<std::size_t>(n.children[0]), out, words);
    node.right = convert_node(in, static_cast<std::size_t>(n.children[1]), out, words);
  } else if (n.children.size() == 1) {
    return convert_node(in, static_cast<std::size_t>(n.children[0]), out, words);
  } else {
    throw std::runtime_error("load_trees: a node with " + std::to_string(n.children.size()) +
                             " children in a binarised treebank");
  }
  out.nodes.push_back(node);
  return static_cast<int>(out.nodes.size() - 1);
}

}  // namespace

TextData load_text(const std::string& dir) {
  bool generated = false;
  const std::vector<examples::Sentence> sentences = read_text(dir, generated);
  return encode(sentences, generated);
}

TextData load_text_chunks(const std::string& dir, unsigned length) {
  bool generated = false;
  std::vector<examples::Sentence> chunks(1);
  for (const examples::Sentence& s : read_text(dir, generated))
    for (const std::string& w : s) {
      if (chunks.back().size() == length) chunks.emplace_back();
      chunks.back().push_back(w);
    }
  if (chunks.back().size() < length) chunks.pop_back();
  return encode(chunks, generated);
}

TextData load_task_text(const std::string& task, const std::string& dir) {
  return task == "fixed-lstm" ? load_text_chunks(dir, 64) : load_text(dir);
}

TagData load_tags(const std::string& dir, unsigned min_count, bool spell_rare) {
  const std::string path = dir + "/tags/train.txt";
  TagData d;
  d.generated = !readable(path);
  if (d.generated) say_generated(path, "tagged sentences");
  const std::vector<examples::TaggedSentence> sentences =
      d.generated ? generated_tags(10000) : examples::read_tagged_sentences(path);
  d.vocabulary = TaggerVocabulary(sentences, min_count, spell_rare);
  for (const examples::TaggedSentence& s : sentences) d.sentences.push_back(d.vocabulary.encode(s));
  return d;
}

TreeData load_trees(const std::string& dir) {
  const std::string path = dir + "/trees/train.txt";
  TreeData d;
  d.generated = !readable(path);
  if (d.generated) {
    say_generated(path, "trees");
    std::mt19937_64 rng(13);
    std::vector<unsigned> leaves(8544);
    for (unsigned& n : leaves) n = draw_length(rng, 19, 9, 2, 50);
    d.vocabulary = 16000;
    d.trees = random_trees(leaves, d.vocabulary, 13);
    return d;
  }
  dynet::Dict words;
  for (const examples::LabeledTree& t : examples::read_sentiment_trees(path)) {
    Tree tree;
    convert_node(t, t.size() - 1, tree, words);
    d.trees.push_back(std::move(tree));
  }
  d.vocabulary = words.size();
  return d;
}

TreeData complete_trees(unsigned count, unsigned leaves, unsigned vocabulary) {
  TreeData d;
  d.vocabulary = vocabulary;
  d.generated = true;
  std::mt19937_64 rng(14);
  for (unsigned k = 0; k < count; ++k) {
    Tree t;
    std::vector<int> level;
    for (unsigned i = 0; i < leaves; ++i) {
      TreeNode n;
      n.word = std::uniform_int_distribution<unsigned>(0, vocabulary - 1)(rng);
      n.label = n.word % 5;
      t.nodes.push_back(n);
      level.push_back(static_cast<int>(t.nodes.size() - 1));
    }
    while (level.size() > 1) {
      std::vector<int> up;
      for (std::size_t i = 0; i + 1 < level.size(); i += 2) {
        TreeNode n;
        n.left = level[i];
        n.right = level[i + 1];
        n.label = (t.nodes[n.left].label + t.nodes[n.right].label) % 5;
        t.nodes.push_back(n);
        up.push_back(static_cast<int>(t.nodes.size() - 1));
      }
      level = std::move(up);
    }
    d.trees.push_back(std::move(t));
  }
  return d;
}

PairData reversal_pairs(const std::string& task) {
  if (task != "seq2seq-mixed" && task != "seq2seq-equal")
    throw std::invalid_argument("reversal_pairs: '" + task + "' is not a seq2seq task (seq2seq-mixed, seq2seq-equal)");
  const unsigned shortest = task == "seq2seq-mixed" ? 3 : 8, longest = 8;
  PairData d;
  d.vocabulary = 12;
  d.start = 10;
  d.end = 11;
  std::mt19937_64 rng(16);
  std::uniform_int_distribution<unsigned> length(shortest, longest), digit(0, 9);
  // Held-out strings are drawn after the training ones: a short one may repeat a training string
  // (there are 1,000 of length 3), a long one hardly ever does (10^8 of length 8).
  for (auto [pairs, count] : {std::pair{&d.train, 20000u}, std::pair{&d.held_out, 512u}})
    for (unsigned k = 0; k < count; ++k) {
      SequencePair p;
      for (unsigned n = length(rng); n > 0; --n) p.source.push_back(digit(rng));
      p.target.assign(p.source.rbegin(), p.source.rend());
      p.target.push_back(d.end);
      pairs->push_back(std::move(p));
    }
  return d;
}

Minibatches::Minibatches(const std::vector<std::size_t>& sizes, unsigned batch, bool by_length)
    : sizes_(sizes), batch_(batch) {
  if (batch == 0 || sizes.size() < batch)
    throw std::invalid_argument("Minibatches: a minibatch of " + std::to_string(batch) + " from " +
                                std::to_string(sizes.size()) + " items");
  std::mt19937_64 rng(15);
  order_.resize(sizes.size());
  for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = i;
  if (!by_length) {
    std::shuffle(order_.begin(), order_.end(), rng);
    return;
  }
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return sizes[a] < sizes[b]; });
  std::vector<std::size_t> starts;
  for (std::size_t s = 0; s + batch <= order_.size(); s += batch) starts.push_back(s);
  std::shuffle(starts.begin(), starts.end(), rng);
  std::vector<std::size_t> shuffled;
  for (std::size_t s : starts) shuffled.insert(shuffled.end(), order_.begin() + s, order_.begin() + s + batch);
  order_ = std::move(shuffled);
}

std::vector<std::size_t> Minibatches::at(std::size_t step) const {
  const std::size_t per_cycle = order_.size() / batch_;
  const std::size_t first = (step % per_cycle) * batch_;
  return {order_.begin() + first, order_.begin() + first + batch_};
}

std::vector<std::size_t> Minibatches::largest_steps() const {
  std::size_t most = 0, longest = 0, most_items = 0, longest_item = 0;
  for (std::size_t step = 0; step < order_.size() / batch_; ++step) {
    std::size_t items = 0, item = 0;
    for (std::size_t i : at(step)) {
      items += sizes_[i];
      item = std::max(item, sizes_[i]);
    }
    if (items > most_items) most_items = items, most = step;
    if (item > longest_item) longest_item = item, longest = step;
  }
  if (most == longest) return {most};
  return {most, longest};
}

}  // namespace bench
