#include "dynet_core/io/text_fields.h"

namespace dynet {

std::vector<std::string_view> split_spaces(std::string_view s) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  for (std::size_t k = 0; k <= s.size(); ++k)
    if (k == s.size() || s[k] == ' ') {
      fields.push_back(s.substr(start, k - start));
      start = k + 1;
    }
  return fields;
}

bool parse_decimal(std::string_view s, std::uint64_t& v) {
  if (s.empty() || s.size() > 18) return false;
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + static_cast<unsigned>(c - '0');
  }
  return true;
}

std::string printable(std::string_view s) {
  std::string out;
  for (char c : s) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

}  // namespace dynet
