#include "builders/class_factored_softmax_builder.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/select.h"
#include "dynet_core/ops/shape.h"
#include "dynet_core/ops/softmax.h"

namespace dynet {

namespace {
/// The log-probability full_log_distribution gives a word in no class: DyNet's stand-in for -inf.
constexpr float kNoClassLogProbability = -10000.f;
}  // namespace

std::vector<ClassFactoredSoftmaxBuilder::Entry> ClassFactoredSoftmaxBuilder::read_cluster_file(
    const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("ClassFactoredSoftmaxBuilder: cannot read the cluster file '" + path + "'");
  std::vector<Entry> entries;
  std::string line;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    std::istringstream fields(line);
    Entry e{"", "", path + ":" + std::to_string(n)};
    if (!(fields >> e.cls)) continue;
    if (!(fields >> e.word))
      throw std::runtime_error("ClassFactoredSoftmaxBuilder: " + e.where + ": expected 'class word', found only '" +
                               e.cls + "'");
    entries.push_back(e);
  }
  if (entries.empty())
    throw std::runtime_error("ClassFactoredSoftmaxBuilder: the cluster file '" + path + "' lists no words");
  return entries;
}

std::vector<ClassFactoredSoftmaxBuilder::Entry> ClassFactoredSoftmaxBuilder::entries_of(
    const WordClasses& word_classes) {
  std::vector<Entry> entries;
  for (const auto& cw : word_classes)
    entries.push_back({cw.first, cw.second, "class entry " + std::to_string(entries.size() + 1)});
  return entries;
}

ClassFactoredSoftmaxBuilder::ClassFactoredSoftmaxBuilder(unsigned rep_dim, const std::string& cluster_file,
                                                         Dict& word_dict, ParameterCollection& model, bool bias)
    : ClassFactoredSoftmaxBuilder(rep_dim, read_cluster_file(cluster_file), word_dict, model, bias) {}

ClassFactoredSoftmaxBuilder::ClassFactoredSoftmaxBuilder(unsigned rep_dim, const WordClasses& word_classes,
                                                         Dict& word_dict, ParameterCollection& model, bool bias)
    : ClassFactoredSoftmaxBuilder(rep_dim, entries_of(word_classes), word_dict, model, bias) {}

ClassFactoredSoftmaxBuilder::ClassFactoredSoftmaxBuilder(unsigned rep_dim, const std::vector<Entry>& entries,
                                                         Dict& word_dict, ParameterCollection& model, bool bias)
    : SoftmaxBuilder(model, "ClassFactoredSoftmaxBuilder", "class-factored-softmax-builder", rep_dim),
      word_dict_(&word_dict),
      bias_(bias) {
  if (entries.empty()) throw std::invalid_argument("ClassFactoredSoftmaxBuilder: no word has a class");
  std::unordered_map<std::string, const Entry*> seen;
  for (const Entry& e : entries) {
    const auto first = seen.emplace(e.word, &e);
    if (!first.second)
      throw std::runtime_error("ClassFactoredSoftmaxBuilder: " + e.where + ": the word '" + e.word +
                               "' was already given a class at " + first.first->second->where);
    if (word_dict.is_frozen() && word_dict.get_unk_id() < 0 && !word_dict.contains(e.word))
      throw std::runtime_error("ClassFactoredSoftmaxBuilder: " + e.where + ": the word '" + e.word +
                               "' is not in the frozen dictionary");
  }
  for (const Entry& e : entries) {
    const auto word = static_cast<unsigned>(word_dict.convert(e.word));
    const auto cls = static_cast<unsigned>(class_dict_.convert(e.cls));
    if (word >= word_class_.size()) {
      word_class_.resize(word + 1, -1);
      word_position_.resize(word + 1, 0);
    }
    if (word_class_[word] >= 0)
      throw std::runtime_error("ClassFactoredSoftmaxBuilder: " + e.where + ": '" + e.word +
                               "' maps to a dictionary entry that already has a class");
    if (cls >= class_words_.size()) class_words_.resize(cls + 1);
    word_class_[word] = static_cast<int>(cls);
    word_position_[word] = static_cast<unsigned>(class_words_[cls].size());
    class_words_[cls].push_back(word);
  }
  const unsigned classes = num_classes();
  p_class_w_ = local_model_.add_parameters({classes, rep_dim});
  if (bias) p_class_b_ = local_model_.add_parameters({classes}, ParameterInitConst(0.f));
  p_word_w_.resize(classes);
  p_word_b_.resize(classes);
  for (unsigned c = 0; c < classes; ++c) {
    const auto n = static_cast<unsigned>(class_words_[c].size());
    if (n < 2) continue;
    p_word_w_[c] = local_model_.add_parameters({n, rep_dim});
    if (bias) p_word_b_[c] = local_model_.add_parameters({n}, ParameterInitConst(0.f));
  }
}

Expression ClassFactoredSoftmaxBuilder::parameter_expression(const Parameter& p) {
  ComputationGraph& cg = graph("new_graph");
  return !p ? Expression() : update_ ? parameter(cg, p) : const_parameter(cg, p);
}

void ClassFactoredSoftmaxBuilder::new_graph(ComputationGraph& cg, bool update) {
  bind_graph(cg);
  update_ = update;
  class_w_ = parameter_expression(p_class_w_);
  class_b_ = parameter_expression(p_class_b_);
  word_w_.assign(num_classes(), Expression());
  word_b_.assign(num_classes(), Expression());
}

unsigned ClassFactoredSoftmaxBuilder::class_of(unsigned word) const {
  if (word >= word_class_.size() || word_class_[word] < 0) {
    const std::string spelled =
        word < word_dict_->size() ? " ('" + word_dict_->convert(static_cast<int>(word)) + "')" : "";
    throw std::invalid_argument("ClassFactoredSoftmaxBuilder::class_of: word " + std::to_string(word) + spelled +
                                " has no class in the cluster file");
  }
  return static_cast<unsigned>(word_class_[word]);
}

Expression ClassFactoredSoftmaxBuilder::class_scores(const Expression& rep) {
  return bias_ ? affine_transform({class_b_, class_w_, rep}) : class_w_ * rep;
}

void ClassFactoredSoftmaxBuilder::bind_word_parameters(unsigned c) {
  if (word_w_[c].pg) return;
  word_w_[c] = parameter_expression(p_word_w_[c]);
  word_b_[c] = parameter_expression(p_word_b_[c]);
}

Expression ClassFactoredSoftmaxBuilder::word_scores(unsigned c, const Expression& rep) {
  bind_word_parameters(c);
  return bias_ ? affine_transform({word_b_[c], word_w_[c], rep}) : word_w_[c] * rep;
}

Expression ClassFactoredSoftmaxBuilder::class_log_distribution(const Expression& rep) {
  check_rep(rep, "class_log_distribution");
  return log_softmax(class_scores(rep));
}

Expression ClassFactoredSoftmaxBuilder::class_logits(const Expression& rep) {
  check_rep(rep, "class_logits");
  return class_scores(rep);
}

Expression ClassFactoredSoftmaxBuilder::subclass_logits(const Expression& rep, unsigned c) {
  check_class(c, num_classes(), "subclass_logits");
  if (class_words_[c].size() < 2)
    throw std::invalid_argument(name_ + "::subclass_logits: class " + std::to_string(c) + " ('" +
                                class_dict_.convert(static_cast<int>(c)) + "') holds one word and has no word scores");
  check_rep(rep, "subclass_logits");
  return word_scores(c, rep);
}

Expression ClassFactoredSoftmaxBuilder::subclass_log_distribution(const Expression& rep, unsigned c) {
  return log_softmax(
      called_as("ClassFactoredSoftmaxBuilder::subclass_log_distribution", [&] { return subclass_logits(rep, c); }));
}

void ClassFactoredSoftmaxBuilder::initialize_expressions() {
  graph("initialize_expressions");
  for (unsigned c = 0; c < num_classes(); ++c)
    if (p_word_w_[c]) bind_word_parameters(c);
}

Expression ClassFactoredSoftmaxBuilder::neg_log_softmax(const Expression& rep, unsigned word) {
  const unsigned c = called_as("ClassFactoredSoftmaxBuilder::neg_log_softmax", [&] { return class_of(word); });
  check_rep(rep, "neg_log_softmax");
  const Expression class_loss = pickneglogsoftmax(class_scores(rep), c);
  if (class_words_[c].size() < 2) return class_loss;
  return class_loss + pickneglogsoftmax(word_scores(c, rep), word_position_[word]);
}

Expression ClassFactoredSoftmaxBuilder::neg_log_softmax(const Expression& rep, const std::vector<unsigned>& words) {
  std::vector<unsigned> classes;
  called_as("ClassFactoredSoftmaxBuilder::neg_log_softmax", [&] {
    for (unsigned w : words) classes.push_back(class_of(w));
  });
  check_rep(rep, "neg_log_softmax", static_cast<unsigned>(words.size()));
  if (words.size() == 1) return neg_log_softmax(rep, words[0]);
  // The class part runs batched; the word parts use a different matrix per class, so each batch
  // element gets its own (zero for one-word classes).
  std::vector<Expression> word_losses;
  for (unsigned b = 0; b < words.size(); ++b) {
    const unsigned c = classes[b];
    word_losses.push_back(class_words_[c].size() < 2
                              ? zeros(graph("neg_log_softmax"), Dim({1}))
                              : pickneglogsoftmax(word_scores(c, pick_batch_elem(rep, b)), word_position_[words[b]]));
  }
  return pickneglogsoftmax(class_scores(rep), classes) + concatenate_to_batch(word_losses);
}

unsigned ClassFactoredSoftmaxBuilder::sample(const Expression& rep) {
  check_rep(rep, "sample", 1);
  ComputationGraph& cg = graph("sample");
  const unsigned c = sample_index(as_vector(cg.incremental_forward(softmax(class_scores(rep)))));
  if (class_words_[c].size() < 2) return class_words_[c][0];
  return class_words_[c][sample_index(as_vector(cg.incremental_forward(softmax(word_scores(c, rep)))))];
}

Expression ClassFactoredSoftmaxBuilder::full_log_distribution(const Expression& rep) {
  check_rep(rep, "full_log_distribution");
  const Expression class_log_p = log_softmax(class_scores(rep));
  std::vector<Expression> pieces;  // class by class, then the value of words in no class
  std::vector<unsigned> offset(word_class_.size());
  unsigned next = 0;
  for (unsigned c = 0; c < num_classes(); ++c) {
    const Expression log_pc = pick(class_log_p, c);
    pieces.push_back(class_words_[c].size() < 2 ? log_pc : log_softmax(word_scores(c, rep)) + log_pc);
    for (unsigned w : class_words_[c]) offset[w] = next++;
  }
  // A word of the dictionary in no class (converted before the cluster file was read, as "<s>" in
  // DyNet's rnnlm-cfsm) gets DyNet's -10000, its stand-in for a log-probability of -infinity.
  bool unclassed = false;
  for (unsigned w = 0; w < word_class_.size(); ++w)
    if (word_class_[w] < 0) {
      offset[w] = next;
      unclassed = true;
    }
  if (unclassed) pieces.push_back(constant(*rep.pg, Dim({1}, rep.dim().bd), kNoClassLogProbability));
  return select_rows(concatenate(pieces), offset);
}

}  // namespace dynet
