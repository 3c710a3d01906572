#pragma once
// DyNet's string helpers (str-util.h).

#include <string>
#include <vector>

namespace dynet {

/// True when `str` begins with `key`.
inline bool startswith(const std::string& str, const std::string& key) { return str.compare(0, key.size(), key) == 0; }

/// True when `str` ends with `key`.
inline bool endswith(const std::string& str, const std::string& key) {
  return str.size() >= key.size() && str.compare(str.size() - key.size(), key.size(), key) == 0;
}

/// The non-empty pieces of `str` between occurrences of `sep` ("a,,b," gives "a", "b").
inline std::vector<std::string> str_split(const std::string& str, char sep) {
  std::vector<std::string> pieces;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = str.find(sep, start);
    if (end != start && start < str.size()) pieces.push_back(str.substr(start, end - start));
    if (end == std::string::npos) return pieces;
    start = end + 1;
  }
}

}  // namespace dynet
