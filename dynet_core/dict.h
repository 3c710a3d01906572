#pragma once
// A vocabulary: a bijection between strings and dense ids 0..size()-1, as DyNet's Dict.
// Ids are handed out in first-seen order, so reading the same data gives the same ids.

#include <string>
#include <unordered_map>
#include <vector>

namespace dynet {

class Dict {
 public:
  unsigned size() const { return static_cast<unsigned>(words_.size()); }
  bool contains(const std::string& word) const { return ids_.count(word) != 0; }

  /// No new words after this: convert() maps unknown words to the unknown-word id, or throws.
  void freeze() { frozen_ = true; }
  bool is_frozen() const { return frozen_; }

  /// The id of `word`, added when new and not frozen. A frozen dict returns the unknown-word id
  /// for an unknown word, or throws std::runtime_error when set_unk() was never called.
  int convert(const std::string& word);
  /// The word with id `id`; throws std::invalid_argument for an id not in the dict.
  const std::string& convert(int id) const;

  /// Adds `word` (even when frozen) and makes it the id unknown words map to once frozen.
  void set_unk(const std::string& word);
  /// The unknown-word id, or -1 when none was set.
  int get_unk_id() const { return unk_id_; }

  const std::vector<std::string>& get_words() const { return words_; }
  void clear();

 private:
  int add(const std::string& word);

  bool frozen_ = false;
  int unk_id_ = -1;
  std::vector<std::string> words_;
  std::unordered_map<std::string, int> ids_;
};

}  // namespace dynet
