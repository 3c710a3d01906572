#include "builders/c2w_builder.h"

#include <stdexcept>
#include <string>

#include "dynet_core/graph.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/shape.h"

namespace dynet {

namespace {

ParameterCollection subcollection_of(ParameterCollection& m) { return m.add_subcollection("c2w-builder"); }

unsigned checked_vocab(int vocab_size) {
  if (vocab_size <= 0)
    throw std::invalid_argument("C2WBuilder: vocab_size must be positive, got " + std::to_string(vocab_size));
  return static_cast<unsigned>(vocab_size);
}

}  // namespace

C2WBuilder::C2WBuilder(int vocab_size, unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& m)
    : local_model(subcollection_of(m)),
      p_lookup(local_model.add_lookup_parameters(checked_vocab(vocab_size), {input_dim})),
      fc2w(layers, input_dim, hidden_dim, local_model),
      rc2w(layers, input_dim, hidden_dim, local_model),
      vocab_size_(static_cast<unsigned>(vocab_size)) {}

void C2WBuilder::new_graph(ComputationGraph& cg) {
  fc2w.new_graph(cg);
  rc2w.new_graph(cg);
  cg_ = &cg;
  composed_.clear();
}

Expression C2WBuilder::add_word(int word_id, const std::vector<int>& chars, ComputationGraph& cg) {
  if (!cg_) throw std::invalid_argument("C2WBuilder::add_word: call new_graph(cg) first");
  if (&cg != cg_) throw std::invalid_argument("C2WBuilder::add_word: the graph is not the one given to new_graph(cg)");
  const auto known = composed_.find(word_id);
  if (known != composed_.end()) return known->second;
  if (chars.empty())
    throw std::invalid_argument("C2WBuilder::add_word: word " + std::to_string(word_id) + " has no characters");
  for (int c : chars)
    if (c < 0 || static_cast<unsigned>(c) >= vocab_size_)
      throw std::invalid_argument("C2WBuilder::add_word: character id " + std::to_string(c) + " is out of range for " +
                                  std::to_string(vocab_size_) + " characters");
  std::vector<Expression> embedded;
  for (int c : chars) embedded.push_back(lookup(cg, p_lookup, static_cast<unsigned>(c)));
  fc2w.start_new_sequence();
  rc2w.start_new_sequence();
  for (const Expression& x : embedded) fc2w.add_input(x);
  for (auto x = embedded.rbegin(); x != embedded.rend(); ++x) rc2w.add_input(*x);
  return composed_[word_id] = concatenate({fc2w.back(), rc2w.back()});
}

}  // namespace dynet
