#include "builders/hierarchical_softmax_builder.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <utility>

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/linalg.h"
#include "dynet_core/ops/select.h"
#include "dynet_core/ops/shape.h"
#include "dynet_core/ops/softmax.h"

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
  std::map<std::pair<unsigned, std::string>, unsigned> branch_of;  ///< (node, symbol) -> its branch
  std::vector<const Entry*> words_from;  ///< per node: the entry that first gave it a word
  std::vector<std::vector<Step>> paths;  ///< per entry
  nodes_.emplace_back();
  words_from.push_back(nullptr);
  for (const Entry& e : entries) {
    const auto first = seen.emplace(e.word, &e);
    if (!first.second)
      throw file_error(e.where + ": the word '" + e.word + "' was already placed at " + first.first->second->where);
    if (word_dict.is_frozen() && word_dict.get_unk_id() < 0 && !word_dict.contains(e.word))
      throw file_error(e.where + ": the word '" + e.word + "' is not in the frozen dictionary");
    std::vector<Step> path;
    unsigned node = 0;
    for (const std::string& symbol : e.path) {
      if (words_from[node])
        throw file_error(e.where + ": cluster '" + symbol + "' goes below a cluster that holds words (from " +
                         words_from[node]->where + ")");
      const auto found = branch_of.emplace(std::make_pair(node, symbol), nodes_[node].branches());
      if (found.second) {
        nodes_[node].children.push_back(static_cast<unsigned>(nodes_.size()));
        nodes_.emplace_back();
        words_from.push_back(nullptr);
      }
      path.push_back({node, found.first->second});
      node = nodes_[node].children[found.first->second];
    }
    if (!nodes_[node].children.empty())
      throw file_error(e.where + ": the word '" + e.word + "' is placed in a cluster that has subclusters");
    if (!words_from[node]) words_from[node] = &e;
    path.push_back({node, static_cast<unsigned>(nodes_[node].words.size())});
    nodes_[node].words.push_back(0);  // its id once the dictionary has it
    paths.push_back(std::move(path));
  }
  for (std::size_t k = 0; k < entries.size(); ++k) {
    const auto word = static_cast<unsigned>(word_dict.convert(entries[k].word));
    if (word >= word_path_.size()) word_path_.resize(word + 1);
    if (!word_path_[word].empty())
      throw file_error(entries[k].where + ": '" + entries[k].word +
                       "' maps to a dictionary entry that already has a place in the tree");
    word_path_[word] = paths[k];
    nodes_[paths[k].back().node].words[paths[k].back().branch] = word;
  }
  add_node_parameters(0);
}

void HierarchicalSoftmaxBuilder::add_node_parameters(unsigned node) {
  const unsigned k = nodes_[node].branches();
  if (k > 1) {
    const unsigned rows = k == 2 ? 1 : k;
    nodes_[node].w = local_model_.add_parameters({rows, rep_dim()});
    nodes_[node].b = local_model_.add_parameters({rows}, ParameterInitConst(0.f));
  }
  for (unsigned c : nodes_[node].children) add_node_parameters(c);
}

void HierarchicalSoftmaxBuilder::new_graph(ComputationGraph& cg, bool update) {
  bind_graph(cg);
  update_ = update;
  w_.assign(nodes_.size(), Expression());
  b_.assign(nodes_.size(), Expression());
}

const std::vector<HierarchicalSoftmaxBuilder::Step>& HierarchicalSoftmaxBuilder::path_of(unsigned word,
                                                                                        const char* who) const {
  if (word >= word_path_.size() || word_path_[word].empty()) {
    const std::string spelled =
        word < word_dict_->size() ? " ('" + word_dict_->convert(static_cast<int>(word)) + "')" : "";
    throw std::invalid_argument(name_ + "::" + who + ": word " + std::to_string(word) + spelled +
                                " is not in the cluster tree");
  }
  return word_path_[word];
}

Expression HierarchicalSoftmaxBuilder::scores(unsigned node, const Expression& rep) {
  if (!w_[node].pg) {
    ComputationGraph& cg = graph("new_graph");
    w_[node] = update_ ? parameter(cg, nodes_[node].w) : const_parameter(cg, nodes_[node].w);
    b_[node] = update_ ? parameter(cg, nodes_[node].b) : const_parameter(cg, nodes_[node].b);
  }
  return affine_transform({b_[node], w_[node], rep});
}

Expression HierarchicalSoftmaxBuilder::branch_loss(unsigned node, unsigned branch, const Expression& rep) {
  const unsigned k = nodes_[node].branches();
  if (k == 1) return Expression();
  if (k > 2) return pickneglogsoftmax(scores(node, rep), branch);
  const Expression p0 = logistic(scores(node, rep));
  return -log(branch == 0 ? p0 : 1.f - p0);
}

Expression HierarchicalSoftmaxBuilder::branch_log_probs(unsigned node, const Expression& rep) {
  const unsigned k = nodes_[node].branches();
  if (k == 1) return Expression();
  if (k > 2) return log_softmax(scores(node, rep));
  const Expression p0 = logistic(scores(node, rep));
  return log(concatenate({p0, 1.f - p0}));
}

Expression HierarchicalSoftmaxBuilder::neg_log_softmax(const Expression& rep, unsigned word) {
  const std::vector<Step>& path = path_of(word, "neg_log_softmax");
  check_rep(rep, "neg_log_softmax");
  std::vector<Expression> losses;
  for (const Step& s : path) {
    Expression loss = branch_loss(s.node, s.branch, rep);
    if (loss.pg) losses.push_back(loss);
  }
  if (losses.empty()) return zeros(graph("neg_log_softmax"), Dim({1}, rep.dim().bd));
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
  unsigned node = 0;
  for (;;) {
    const Node& n = nodes_[node];
    unsigned branch = 0;
    if (n.branches() == 2) {
      const float p0 = as_scalar(cg.incremental_forward(logistic(scores(node, rep))));
      branch = sample_index({p0, 1.f - p0});
    } else if (n.branches() > 2) {
      branch = sample_index(as_vector(cg.incremental_forward(softmax(scores(node, rep)))));
    }
    if (n.children.empty()) return n.words[branch];
    node = n.children[branch];
  }
}

void HierarchicalSoftmaxBuilder::collect_log_probs(unsigned node, const Expression& rep, const Expression& log_p,
                                                   std::vector<Expression>& pieces, std::vector<unsigned>& row,
                                                   unsigned& next) {
  const Node& n = nodes_[node];
  const Expression branches = branch_log_probs(node, rep);
  if (n.children.empty()) {
    Expression piece = !branches.pg ? log_p : log_p.pg ? branches + log_p : branches;
    if (!piece.pg) piece = zeros(graph("full_log_distribution"), Dim({1}, rep.dim().bd));
    pieces.push_back(piece);
    for (unsigned w : n.words) row[w] = next++;
    return;
  }
  for (unsigned c = 0; c < n.children.size(); ++c) {
    Expression to_child = log_p;
    if (branches.pg) to_child = log_p.pg ? pick(branches, c) + log_p : pick(branches, c);
    collect_log_probs(n.children[c], rep, to_child, pieces, row, next);
  }
}

Expression HierarchicalSoftmaxBuilder::full_log_distribution(const Expression& rep) {
  check_rep(rep, "full_log_distribution");
  for (unsigned w = 0; w < word_path_.size(); ++w) path_of(w, "full_log_distribution");
  std::vector<Expression> pieces;  // leaf cluster by leaf cluster
  std::vector<unsigned> row(word_path_.size());
  unsigned next = 0;
  collect_log_probs(0, rep, Expression(), pieces, row, next);
  return select_rows(concatenate(pieces), row);
}

}  // namespace dynet
