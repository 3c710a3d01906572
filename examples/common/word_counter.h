#pragma once
// Counting words to build a vocabulary that keeps the frequent ones: rare words share the
// unknown word, whose embedding is then trained like any other (and serves unseen words later).

#include <string>
#include <unordered_map>
#include <vector>

#include "dynet_core/dict.h"

namespace examples {

class WordCounter {
 public:
  void add(const std::string& word);
  template <class Words>
  void add_all(const Words& words) {
    for (const auto& w : words) add(w);
  }
  unsigned count(const std::string& word) const;

  /// A frozen vocabulary: `unk` first, then every word seen at least min_count times, in
  /// first-seen order (so the same data gives the same ids).
  dynet::Dict frequent(unsigned min_count, const std::string& unk) const;

 private:
  std::vector<std::string> order_;
  std::unordered_map<std::string, unsigned> counts_;
};

}  // namespace examples
