#pragma once
// Plain text corpora: one sentence a line, tokens separated by blanks (the PTB language-modelling
// files). Empty lines are skipped.

#include <string>
#include <vector>

namespace examples {

using Sentence = std::vector<std::string>;

/// Every sentence of the file; throws std::runtime_error when it cannot be read.
std::vector<Sentence> read_sentences(const std::string& path);

}  // namespace examples
