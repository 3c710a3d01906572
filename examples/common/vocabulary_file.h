#pragma once
// Vocabularies saved next to a model, so that a loaded model maps words to the ids it was trained
// with. A text file: a header line, then per vocabulary a line "vocabulary NAME SIZE UNK_ID" and
// its words, one a line, in id order.

#include <string>
#include <utility>
#include <vector>

#include "dynet_core/dict.h"

namespace examples {

using NamedDict = std::pair<std::string, dynet::Dict*>;

/// Writes every vocabulary to `path`; throws std::runtime_error when it cannot be written.
void save_vocabularies(const std::string& path, const std::vector<NamedDict>& dicts);
/// Replaces every listed vocabulary with the one of that name in `path` (loaded frozen, with its
/// unknown word). Throws std::runtime_error naming the file and what is wrong or missing; the
/// vocabularies are unchanged then.
void load_vocabularies(const std::string& path, const std::vector<NamedDict>& dicts);

}  // namespace examples
