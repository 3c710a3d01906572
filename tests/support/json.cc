#include "support/json.h"

#include <cstdlib>
#include <stdexcept>

namespace dynet_test {

const Json& Json::operator[](const std::string& name) const {
  for (const auto& f : fields)
    if (f.first == name) return f.second;
  throw std::out_of_range("no JSON field '" + name + "'");
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& t) : t_(t) {}

  Json document() {
    Json v = value();
    space();
    if (p_ != t_.size()) fail("text after the document");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("JSON: " + what + " at offset " + std::to_string(p_));
  }
  void space() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\t' || t_[p_] == '\r')) ++p_;
  }
  bool take(char c) {
    space();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(const char* w) {
    const std::string s(w);
    if (t_.compare(p_, s.size(), s) != 0) return false;
    p_ += s.size();
    return true;
  }
  std::string string() {
    expect('"');
    std::string out;
    while (p_ < t_.size() && t_[p_] != '"') {
      if (static_cast<unsigned char>(t_[p_]) < 0x20) fail("control character in a string");
      if (t_[p_] == '\\') {
        if (++p_ >= t_.size()) fail("unfinished escape");
        const char e = t_[p_];
        if (e == 'u') {
          if (p_ + 4 >= t_.size()) fail("short \\u escape");
          p_ += 4;
          out += '?';
        } else if (std::string("\"\\/bfnrt").find(e) == std::string::npos) {
          fail("bad escape");
        } else {
          out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
        }
        ++p_;
        continue;
      }
      out += t_[p_++];
    }
    if (p_ >= t_.size()) fail("unfinished string");
    ++p_;
    return out;
  }
  Json value() {
    space();
    if (p_ >= t_.size()) fail("unexpected end");
    Json v;
    const char c = t_[p_];
    if (c == '{') {
      v.type = Json::Type::Object;
      ++p_;
      if (take('}')) return v;
      do {
        space();
        std::string name = string();
        expect(':');
        v.fields.emplace_back(std::move(name), value());
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      v.type = Json::Type::Array;
      ++p_;
      if (take(']')) return v;
      do v.items.push_back(value());
      while (take(','));
      expect(']');
    } else if (c == '"') {
      v.type = Json::Type::String;
      v.text = string();
    } else if (word("true") || word("false")) {
      v.type = Json::Type::Bool;
      v.boolean = t_[p_ - 1] == 'e' && t_[p_ - 2] == 'u';
    } else if (word("null")) {
      v.type = Json::Type::Null;
    } else {
      const char* start = t_.c_str() + p_;
      char* end = nullptr;
      v.number = std::strtod(start, &end);
      if (end == start || (c != '-' && (c < '0' || c > '9'))) fail("expected a value");
      v.type = Json::Type::Number;
      p_ += static_cast<std::size_t>(end - start);
    }
    return v;
  }

  const std::string& t_;
  std::size_t p_ = 0;
};

}  // namespace

Json parse_json(const std::string& text) { return Parser(text).document(); }

}  // namespace dynet_test
