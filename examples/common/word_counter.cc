#include "examples/common/word_counter.h"

namespace examples {

void WordCounter::add(const std::string& word) {
  if (counts_[word]++ == 0) order_.push_back(word);
}

unsigned WordCounter::count(const std::string& word) const {
  const auto found = counts_.find(word);
  return found == counts_.end() ? 0 : found->second;
}

dynet::Dict WordCounter::frequent(unsigned min_count, const std::string& unk) const {
  dynet::Dict d;
  d.set_unk(unk);
  for (const std::string& w : order_)
    if (counts_.at(w) >= min_count) d.convert(w);
  d.freeze();
  return d;
}

}  // namespace examples
