#pragma once
// Tagged corpora: one sentence a line, tokens `word|TAG` separated by blanks (the WikiNER files;
// a word may itself contain '|': the tag follows the last one). Empty lines are skipped.

#include <string>
#include <vector>

namespace examples {

struct TaggedSentence {
  std::vector<std::string> words;
  std::vector<std::string> tags;
};

/// Every sentence of the file; throws std::runtime_error naming the file, line and token of a
/// token without a tag, or when the file cannot be read.
std::vector<TaggedSentence> read_tagged_sentences(const std::string& path);

}  // namespace examples
