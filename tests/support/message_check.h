#pragma once
// Checks that an error message names the function the user called: it starts with "function: ",
// says the name once, and names no other function or op as its subject ("other: ").

#include <catch2/catch.hpp>

#include <cctype>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>

#include "dynet_core/ops/registry.h"

namespace test_support {

inline bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
/// Nothing of a longer (possibly qualified: "Class::f") identifier before `at`.
inline bool starts_name(const std::string& text, std::size_t at) {
  return at == 0 || !(word_char(text[at - 1]) || text[at - 1] == ':');
}

/// Occurrences of `name` in `text` that are not part of a longer identifier.
inline unsigned count_name(const std::string& text, const std::string& name) {
  unsigned n = 0;
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const std::size_t end = at + name.size();
    if (starts_name(text, at) && (end == text.size() || !(word_char(text[end]) || text.compare(end, 2, "::") == 0)))
      ++n;
  }
  return n;
}

/// `name:` used as a subject somewhere in `text`.
inline bool names_as_subject(const std::string& text, const std::string& name) {
  const std::string subject = name + ": ";
  for (std::size_t at = text.find(subject); at != std::string::npos; at = text.find(subject, at + 1))
    if (starts_name(text, at)) return true;
  return false;
}

/// Every registered op's name, for `others` below.
inline std::set<std::string> op_names() {
  std::set<std::string> names;
  for (const dynet::OpDef* op : dynet::registered_ops()) names.insert(op->name);
  return names;
}

/// Runs `call`, which must throw std::invalid_argument (std::runtime_error for a stale or empty
/// Expression, as DyNet, whose empty expressions are stale), and checks its message as said above.
inline void check_message(const std::string& function, const std::string& how, const std::function<void()>& call,
                          const std::set<std::string>& others) {
  INFO(function << " given " << how);
  std::string what;
  try {
    call();
  } catch (const std::invalid_argument& e) {
    what = e.what();
  } catch (const std::runtime_error& e) {
    what = e.what();
    if (how.find("stale") == std::string::npos && how.find("empty") == std::string::npos)
      FAIL_CHECK("not a std::invalid_argument: " << what);
  } catch (const std::exception& e) {
    FAIL_CHECK("not a std::invalid_argument: " << e.what());
    return;
  }
  INFO("message: " << what);
  CHECK(!what.empty());
  CHECK(what.rfind(function + ": ", 0) == 0);
  CHECK(count_name(what, function) == 1);
  for (const std::string& other : others)
    if (other != function) CHECK_FALSE(names_as_subject(what, other));
}

}  // namespace test_support
