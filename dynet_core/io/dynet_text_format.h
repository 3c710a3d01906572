#pragma once
// DyNet 2's text model format, as DyNet 2.1's TextFileSaver writes it and its TextFileLoader reads
// it: a file is a list of records, each a header line and one or two lines of values.
//
//   #Parameter# <key> <dim> <bytes> ZERO_GRAD|FULL_GRAD
//   #LookupParameter# <key> <dim, the row count appended> <bytes> ZERO_GRAD|FULL_GRAD
//
// followed by the values, column-major, each printed "%+.8e " (so every line ends with a space),
// then, with FULL_GRAD, a line of the accumulated gradient in the same form. <bytes> counts the
// value lines that follow the header, newlines included: DyNet's loader skips the records it is
// not asked for by seeking past that many bytes. DyNet 2.0's records have no gradient field and
// always carry both lines. Values are written times the weight-decay factor (what expressions
// read); converting to and from the stored values is the caller's (savers_and_loaders.cc).

#include <string>
#include <string_view>
#include <vector>

#include "dynet_core/io/parameter_file.h"

namespace dynet {

/// Whether `bytes` are meant as DyNet's text format: they start a record ('#'). dybatch's own
/// files start with their magic word, so the two never overlap.
bool is_dynet_text(std::string_view bytes);

/// The bytes DyNet 2.1 writes for `records` (a record with gradients is FULL_GRAD). Throws
/// std::invalid_argument for what the format cannot hold: a name that is empty or holds white
/// space or '#', or a value that is not finite (DyNet's loader reads neither back).
std::string dynet_text_bytes(const std::vector<SavedParameter>& records);

/// The records of a file in DyNet's text format, fully checked: record kinds, keys, dims, byte
/// counts, value counts, numbers. Throws std::runtime_error naming the record (its number, header
/// and line) and the problem.
std::vector<SavedParameter> parse_dynet_text(std::string_view bytes);

}  // namespace dynet
