#pragma once
// The small pieces of reading a text header line, shared by dybatch's envelope and DyNet's
// record headers: fields separated by single spaces, decimal counts, and bytes as a message can
// show them.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dynet {

/// The fields of `s` between single spaces (two spaces in a row make an empty field).
std::vector<std::string_view> split_spaces(std::string_view s);

/// Decimal digits only, at most 18 of them (no overflow); false otherwise.
bool parse_decimal(std::string_view s, std::uint64_t& v);

/// `s` with every byte outside printable ASCII shown as '?'.
std::string printable(std::string_view s);

}  // namespace dynet
