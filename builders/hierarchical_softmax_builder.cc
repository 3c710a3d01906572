#include "builders/hierarchical_softmax_builder.h"

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/select.h"
#include "dynet_core/ops/shape.h"

namespace dynet {

namespace {

const char* const kName = "HierarchicalSoftmaxBuilder";

struct Entry {
  std::vector<std::string> path;
  std::string word;
  std::string where;  ///< "file:line", for messages
};

std::runtime_error file_error(const std::string& what) { return std::runtime_error(std::string(kName) + ": " + what); }

std::vector<Entry> read_cluster_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw file_error("cannot read the cluster file '" + file + "'");
  std::vector<Entry> entries;
  std::string line;
  for (unsigned n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Entry e{{}, "", file + ":" + std::to_string(n)};
    const std::size_t tab = line.find('\t');
    std::istringstream symbols(line.substr(0, tab));
    for (std::string s; symbols >> s;) e.path.push_back(s);
    if (tab != std::string::npos) std::istringstream(line.substr(tab + 1)) >> e.word;
    if (e.path.empty() || e.word.empty())
      throw file_error(e.where + ": expected 'cluster path<TAB>word', found '" + line + "'");
    entries.push_back(std::move(e));
  }
  if (entries.empty()) throw file_error("the cluster file '" + file + "' lists no words");
  return entries;
}

}  // namespace

HierarchicalSoftmaxBuilder::HierarchicalSoftmaxBuilder(unsigned rep_dim, const std::string& cluster_file,
                                                       Dict& word_dict, ParameterCollection& model)
    : SoftmaxBuilder(model, kName, "hsm-builder", rep_dim), word_dict_(&word_dict) {
  const std::vector<Entry> entries = read_cluster_file(cluster_file);
  // The whole tree is built and checked before the dictionary or the model is touched.
  std::unordered_map<std::string, const Entry*> seen;
  std::unordered_map<std::string, unsigned> symbol_ids;         ///< in order of first use, as DyNet's
  std::unordered_map<const Cluster*, const Entry*> words_from;  ///< the entry that first gave a cluster a word
  std::vector<Cluster*> leaf;                                   ///< per entry
  std::vector<std::vector<unsigned>> paths;                     ///< per entry: the branches down to its cluster
  for (const Entry& e : entries) {
    const auto first = seen.emplace(e.word, &e);
    if (!first.second)
      throw file_error(e.where + ": the word '" + e.word + "' was already placed at " + first.first->second->where);
    if (word_dict.is_frozen() && word_dict.get_unk_id() < 0 && !word_dict.contains(e.word))
      throw file_error(e.where + ": the word '" + e.word + "' is not in the frozen dictionary");
    std::vector<unsigned> path;
    Cluster* c = &root_;
    for (const std::string& symbol : e.path) {
      const auto holder = words_from.find(c);
      if (holder != words_from.end())
        throw file_error(e.where + ": cluster '" + symbol + "' goes below a cluster that holds words (from " +
                         holder->second->where + ")");
      const unsigned sym = symbol_ids.emplace(symbol, static_cast<unsigned>(symbol_ids.size())).first->second;
      Cluster* const parent = c;
      c = parent->add_child(sym);
      path.push_back(parent->get_index(sym));
    }
    if (c->num_children() > 0)
      throw file_error(e.where + ": the word '" + e.word + "' is placed in a cluster that has subclusters");
    words_from.emplace(c, &e);
    leaf.push_back(c);
    paths.push_back(std::move(path));
  }
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const auto word = static_cast<unsigned>(word_dict.convert(entries[k].word));
    if (word >= word_path_.size()) word_path_.resize(word + 1);
    if (!word_path_[word].empty())
      throw file_error(entries[k].where + ": '" + entries[k].word +
                       "' maps to a dictionary entry that already has a place in the tree");
    paths[k].push_back(static_cast<unsigned>(leaf[k]->words_.size()));
    leaf[k]->add_word(word);
    word_path_[word] = std::move(paths[k]);
  }
  root_.initialize(rep_dim, local_model_);
}

void HierarchicalSoftmaxBuilder::initialize(ParameterCollection& model) { root_.initialize(model); }

unsigned HierarchicalSoftmaxBuilder::num_clusters() const {
  unsigned n = 0;
  std::vector<const Cluster*> open{&root_};
  while (!open.empty()) {
    const Cluster* c = open.back();
    open.pop_back();
    ++n;
    for (unsigned i = 0; i < c->num_children(); ++i) open.push_back(c->get_child(i));
  }
  return n;
}

void HierarchicalSoftmaxBuilder::new_graph(ComputationGraph& cg, bool update) {
  bind_graph(cg);
  root_.new_graph(cg, update);
}

const std::vector<unsigned>& HierarchicalSoftmaxBuilder::path_of(unsigned word, const char* who) const {
  if (word >= word_path_.size() || word_path_[word].empty()) {
    const std::string spelled =
        word < word_dict_->size() ? " ('" + word_dict_->convert(static_cast<int>(word)) + "')" : "";
    throw std::invalid_argument(name_ + "::" + who + ": word " + std::to_string(word) + spelled +
                                " is not in the cluster tree");
  }
  return word_path_[word];
}

Expression HierarchicalSoftmaxBuilder::neg_log_softmax(const Expression& rep, unsigned word) {
  const std::vector<unsigned>& path = path_of(word, "neg_log_softmax");
  check_rep(rep, "neg_log_softmax");
  ComputationGraph& cg = graph("neg_log_softmax");
  std::vector<Expression> losses;
  const Cluster* c = &root_;
  for (std::size_t i = 0; i < path.size(); ++i) {
    // A cluster of one branch adds log 1: no node.
    if (c->branches() > 1) losses.push_back(c->neg_log_softmax(rep, path[i], cg));
    if (i + 1 < path.size()) c = c->get_child(path[i]);
  }
  if (losses.empty()) return zeros(cg, Dim({1}, rep.dim().bd));
  return losses.size() == 1 ? losses[0] : sum(losses);
}

Expression HierarchicalSoftmaxBuilder::neg_log_softmax(const Expression& rep, const std::vector<unsigned>& words) {
  for (unsigned w : words) path_of(w, "neg_log_softmax");
  check_rep(rep, "neg_log_softmax", static_cast<unsigned>(words.size()));
  if (words.size() == 1) return neg_log_softmax(rep, words[0]);
  // Each batch element takes its own path, so each gets its own loss.
  std::vector<Expression> losses;
  for (unsigned b = 0; b < words.size(); ++b) losses.push_back(neg_log_softmax(pick_batch_elem(rep, b), words[b]));
  return concatenate_to_batch(losses);
}

unsigned HierarchicalSoftmaxBuilder::sample(const Expression& rep) {
  check_rep(rep, "sample", 1);
  ComputationGraph& cg = graph("sample");
  const Cluster* c = &root_;
  while (c->num_children() > 0) c = c->get_child(c->sample(rep, cg));
  return c->get_word(c->sample(rep, cg));
}

void HierarchicalSoftmaxBuilder::collect_log_probs(const Cluster& c, const Expression& rep, const Expression& log_p,
                                                   std::vector<Expression>& pieces, std::vector<unsigned>& row,
                                                   unsigned& next) {
  ComputationGraph& cg = graph("full_log_distribution");
  const Expression branches = c.log_probs(rep, cg);
  if (c.num_children() == 0) {
    Expression piece = !branches.pg ? log_p : log_p.pg ? branches + log_p : branches;
    if (!piece.pg) piece = zeros(cg, Dim({1}, rep.dim().bd));
    pieces.push_back(piece);
    for (unsigned w : c.words_) row[w] = next++;
    return;
  }
  for (unsigned i = 0; i < c.num_children(); ++i) {
    Expression to_child = log_p;
    if (branches.pg) to_child = log_p.pg ? pick(branches, i) + log_p : pick(branches, i);
    collect_log_probs(*c.get_child(i), rep, to_child, pieces, row, next);
  }
}

Expression HierarchicalSoftmaxBuilder::full_log_distribution(const Expression& rep) {
  check_rep(rep, "full_log_distribution");
  for (unsigned w = 0; w < word_path_.size(); ++w) path_of(w, "full_log_distribution");
  std::vector<Expression> pieces;  // leaf cluster by leaf cluster
  std::vector<unsigned> row(word_path_.size());
  unsigned next = 0;
  collect_log_probs(root_, rep, Expression(), pieces, row, next);
  return select_rows(concatenate(pieces), row);
}

}  // namespace dynet
