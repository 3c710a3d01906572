#pragma once
// A small strict JSON reader for tests of the files dybatch writes.

#include <string>
#include <utility>
#include <vector>

namespace dynet_test {

struct Json {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;

  /// The field `name` of an object; throws std::out_of_range when missing.
  const Json& operator[](const std::string& name) const;
};

/// Parses a whole document; throws std::invalid_argument with the offset of the first error.
Json parse_json(const std::string& text);

}  // namespace dynet_test
