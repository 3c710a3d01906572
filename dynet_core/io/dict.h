#pragma once
// A vocabulary: a bijection between strings and dense ids 0..size()-1, as DyNet's Dict.
// Ids are handed out in first-seen order, so reading the same data gives the same ids. Beyond
// DyNet: a vocabulary of the frequent words of a training set (WordCounter), and vocabularies
// saved next to a model, so that a loaded model maps words to the ids it was trained with.

#include <string>
#include <unordered_map>
#include <utility>
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

/// The ids of the whitespace-separated words of `line` in `d` (DyNet's read_sentence).
std::vector<int> read_sentence(const std::string& line, Dict& d);
/// A parallel line "source words ||| target words": the source words' ids in `source` from `sd`,
/// the target words' in `target` from `td`, appended (DyNet's read_sentence_pair). Words after a
/// further "|||" stay on the target side.
void read_sentence_pair(const std::string& line, std::vector<int>& source, Dict& sd, std::vector<int>& target,
                        Dict& td);

/// Counts words to build a vocabulary of the frequent ones: rare words share the unknown word,
/// whose embedding is then trained like any other (and serves unseen words later).
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
  Dict frequent(unsigned min_count, const std::string& unk) const;

 private:
  std::vector<std::string> order_;
  std::unordered_map<std::string, unsigned> counts_;
};

/// A vocabulary and the name it has in a file of vocabularies.
using NamedDict = std::pair<std::string, Dict*>;

/// The text of a file of vocabularies: a header line ("dybatch-vocabularies 2"), then per
/// vocabulary a line "vocabulary NAME SIZE UNK_ID" and its words, one a line, in id order. Every
/// word a Dict holds can be written: names and words are escaped, \s for a space, \t, \n, \r,
/// \\ for a backslash, and \e for the empty word.
std::string dicts_file_text(const std::vector<NamedDict>& dicts);
/// Writes the vocabularies to `path` (dicts_file_text), replacing the file atomically. Throws
/// std::runtime_error when the file cannot be written. save_model_and_dicts (savers_and_loaders.h) writes a model
/// and its vocabularies all or nothing.
void save_dicts(const std::string& path, const std::vector<NamedDict>& dicts);
/// Replaces every listed vocabulary with the one of that name in `path` (frozen, with its
/// unknown word); files of version 1, written before words were escaped, read as they did.
/// Throws std::runtime_error naming the file and what is wrong or missing; the vocabularies are
/// unchanged then.
void load_dicts(const std::string& path, const std::vector<NamedDict>& dicts);

}  // namespace dynet
