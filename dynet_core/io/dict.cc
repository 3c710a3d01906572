#include "dynet_core/io/dict.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <stdexcept>

#include "dynet_core/io/whole_file.h"

namespace dynet {

namespace {

/// Calls word(w) for every whitespace-separated word of line, in order.
template <class Word>
void for_each_word(const std::string& line, Word&& word) {
  std::istringstream in(line);
  for (std::string w; in >> w;) word(w);
}

}  // namespace

std::vector<int> read_sentence(const std::string& line, Dict& d) {
  std::vector<int> ids;
  for_each_word(line, [&](const std::string& w) { ids.push_back(d.convert(w)); });
  return ids;
}

void read_sentence_pair(const std::string& line, std::vector<int>& source, Dict& sd, std::vector<int>& target,
                        Dict& td) {
  bool on_target = false;
  for_each_word(line, [&](const std::string& w) {
    if (w == "|||")
      on_target = true;
    else if (on_target)
      target.push_back(td.convert(w));
    else
      source.push_back(sd.convert(w));
  });
}

int Dict::add(const std::string& word) {
  const auto found = ids_.find(word);
  if (found != ids_.end()) return found->second;
  const int id = static_cast<int>(words_.size());
  words_.push_back(word);
  ids_.emplace(word, id);
  return id;
}

int Dict::convert(const std::string& word) {
  if (!frozen_) return add(word);
  const auto found = ids_.find(word);
  if (found != ids_.end()) return found->second;
  if (unk_id_ < 0)
    throw std::runtime_error("Dict::convert: unknown word '" + word +
                             "' in a frozen dictionary that has no unknown-word entry (see set_unk)");
  return unk_id_;
}

const std::string& Dict::convert(int id) const {
  if (id < 0 || static_cast<unsigned>(id) >= words_.size())
    throw std::invalid_argument("Dict::convert: id " + std::to_string(id) + " is out of range for a dictionary of " +
                                std::to_string(words_.size()) + " words");
  return words_[static_cast<unsigned>(id)];
}

void Dict::set_unk(const std::string& word) { unk_id_ = add(word); }

void Dict::clear() {
  words_.clear();
  ids_.clear();
  unk_id_ = -1;
  frozen_ = false;
}

void WordCounter::add(const std::string& word) {
  if (counts_[word]++ == 0) order_.push_back(word);
}

unsigned WordCounter::count(const std::string& word) const {
  const auto found = counts_.find(word);
  return found == counts_.end() ? 0 : found->second;
}

Dict WordCounter::frequent(unsigned min_count, const std::string& unk) const {
  Dict d;
  d.set_unk(unk);
  for (const std::string& w : order_)
    if (counts_.at(w) >= min_count) d.convert(w);
  d.freeze();
  return d;
}

namespace {

// Version 1 wrote words as they are and refused the ones with blanks; version 2 escapes them.
const char* const kDictsHeaderV1 = "dybatch-vocabularies 1";
const char* const kDictsHeader = "dybatch-vocabularies 2";

// A character a vocabulary file writes as a backslash and a letter.
struct Escape {
  char character, letter;
};
constexpr Escape kEscapes[] = {{' ', 's'}, {'\t', 't'}, {'\n', 'n'}, {'\r', 'r'}, {'\\', '\\'}};

// One word (or vocabulary name) as one line without blanks: a backslash starts \s (space), \t,
// \n, \r, \\ (a backslash) or, as the whole line, \e (the empty word).
std::string escape(const std::string& word) {
  if (word.empty()) return "\\e";
  std::string out;
  out.reserve(word.size());
  for (char c : word) {
    const Escape* e =
        std::find_if(std::begin(kEscapes), std::end(kEscapes), [c](const Escape& x) { return x.character == c; });
    if (e == std::end(kEscapes)) {
      out += c;
    } else {
      out += '\\';
      out += e->letter;
    }
  }
  return out;
}

// The word `line` escapes; throws std::invalid_argument describing a malformed escape.
std::string unescape(const std::string& line) {
  if (line == "\\e") return "";
  std::string out;
  out.reserve(line.size());
  for (std::size_t k = 0; k < line.size(); ++k) {
    if (line[k] != '\\') {
      out += line[k];
      continue;
    }
    const char letter = ++k < line.size() ? line[k] : '\0';
    const Escape* e = std::find_if(std::begin(kEscapes), std::end(kEscapes),
                                   [letter](const Escape& x) { return x.letter == letter; });
    if (e == std::end(kEscapes))
      throw std::invalid_argument("'" + line + "' has a backslash not followed by s, t, n, r or \\ (" +
                                  "a backslash itself is written \\\\)");
    out += e->character;
  }
  return out;
}

}  // namespace

std::string dicts_file_text(const std::vector<NamedDict>& dicts) {
  std::string text = std::string(kDictsHeader) + '\n';
  for (const NamedDict& d : dicts) {
    text += "vocabulary " + escape(d.first) + ' ' + std::to_string(d.second->size()) + ' ' +
            std::to_string(d.second->get_unk_id()) + '\n';
    for (const std::string& w : d.second->get_words()) text += escape(w) + '\n';
  }
  return text;
}

void save_dicts(const std::string& path, const std::vector<NamedDict>& dicts) {
  try {
    write_file_atomically(path, dicts_file_text(dicts));
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("save_dicts: ") + e.what());
  }
}

void load_dicts(const std::string& path, const std::vector<NamedDict>& dicts) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("load_dicts: cannot read the vocabulary file '" + path + "'");
  auto fail = [&](unsigned line, const std::string& what) {
    return std::runtime_error("load_dicts: " + path + ":" + std::to_string(line) + ": " + what);
  };
  std::string line;
  unsigned n = 1;
  if (!std::getline(in, line) || (line != kDictsHeader && line != kDictsHeaderV1))
    throw fail(n, "not a vocabulary file (expected '" + std::string(kDictsHeader) + "')");
  const bool escaped = line == kDictsHeader;
  auto word_of = [&](const std::string& text) {
    try {
      return escaped ? unescape(text) : text;
    } catch (const std::invalid_argument& e) {
      throw fail(n, e.what());
    }
  };
  std::map<std::string, Dict> read;
  while (++n, std::getline(in, line)) {
    std::istringstream fields(line);
    std::string tag, name;
    long size = -1, unk = -2;
    if (!(fields >> tag >> name >> size >> unk) || tag != "vocabulary" || size < 0 || unk < -1 || unk >= size)
      throw fail(n, "expected 'vocabulary NAME SIZE UNK_ID'");
    name = word_of(name);
    Dict& d = read[name];
    for (long k = 0; k < size; ++k) {
      ++n;
      if (!std::getline(in, line) || line.empty()) throw fail(n, "the vocabulary '" + name + "' ends early");
      if (d.convert(word_of(line)) != k) throw fail(n, "the word '" + line + "' appears twice in '" + name + "'");
    }
    if (unk >= 0) d.set_unk(d.convert(static_cast<int>(unk)));
    d.freeze();
  }
  for (const NamedDict& d : dicts)
    if (!read.count(d.first))
      throw std::runtime_error("load_dicts: " + path + ": no vocabulary named '" + d.first + "'");
  for (const NamedDict& d : dicts) *d.second = read[d.first];
}

}  // namespace dynet
