#pragma once
// Word vectors in DyNet's text format (pretrain.h): one word a line, then its values, separated
// by blanks ("the 0.418 0.24968 -0.41242 ..."; GloVe's files have this form).

#include <string>
#include <unordered_map>
#include <vector>

#include "dynet_core/io/dict.h"
#include "dynet_core/parameters.h"

namespace dynet {

/// Writes row i of `lp` under word i of `d`, for every word of d (9 significant digits, so the
/// values read back exactly). Throws std::invalid_argument when d has more words than lp rows,
/// std::runtime_error when the file cannot be written.
void save_pretrained_embeddings(const std::string& fname, const Dict& d, const LookupParameter& lp);

/// Reads the vectors of `fname` into `vectors`, keyed by the words' ids in `d` (which adds the new
/// words unless frozen; a frozen dict's unknown words are skipped). Every line must hold as many
/// values as the first; blank lines are skipped. Throws std::runtime_error, naming the file and
/// line, when the file cannot be read or a line is malformed.
void read_pretrained_embeddings(const std::string& fname, Dict& d,
                                std::unordered_map<int, std::vector<float>>& vectors);
/// The same as DyNet before 2.0 spelled it.
inline void read_pretrained_embeddings(const std::string& fname, Dict* d,
                                       std::unordered_map<int, std::vector<float>>* vectors) {
  read_pretrained_embeddings(fname, *d, *vectors);
}

}  // namespace dynet
