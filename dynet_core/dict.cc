#include "dynet_core/dict.h"

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

namespace dynet {

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
const char* const kDictsHeader = "dybatch-vocabularies 1";
}

void save_dicts(const std::string& path, const std::vector<NamedDict>& dicts) {
  std::ostringstream text;
  text << kDictsHeader << '\n';
  for (const NamedDict& d : dicts) {
    text << "vocabulary " << d.first << ' ' << d.second->size() << ' ' << d.second->get_unk_id() << '\n';
    for (const std::string& w : d.second->get_words()) {
      if (w.empty() || w.find_first_of(" \t\r\n") != std::string::npos)
        throw std::runtime_error("save_dicts: cannot save the vocabulary '" + d.first + "': the word '" + w +
                                 "' is empty or contains blanks");
      text << w << '\n';
    }
  }
  std::ofstream out(path, std::ios::trunc);
  out << text.str();
  out.flush();
  if (!out) throw std::runtime_error("save_dicts: cannot write the vocabulary file '" + path + "'");
}

void load_dicts(const std::string& path, const std::vector<NamedDict>& dicts) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("load_dicts: cannot read the vocabulary file '" + path + "'");
  auto fail = [&](unsigned line, const std::string& what) {
    return std::runtime_error("load_dicts: " + path + ":" + std::to_string(line) + ": " + what);
  };
  std::string line;
  unsigned n = 1;
  if (!std::getline(in, line) || line != kDictsHeader)
    throw fail(n, "not a vocabulary file (expected '" + std::string(kDictsHeader) + "')");
  std::map<std::string, Dict> read;
  while (++n, std::getline(in, line)) {
    std::istringstream fields(line);
    std::string tag, name;
    long size = -1, unk = -2;
    if (!(fields >> tag >> name >> size >> unk) || tag != "vocabulary" || size < 0 || unk < -1 || unk >= size)
      throw fail(n, "expected 'vocabulary NAME SIZE UNK_ID'");
    Dict& d = read[name];
    for (long k = 0; k < size; ++k) {
      ++n;
      if (!std::getline(in, line) || line.empty()) throw fail(n, "the vocabulary '" + name + "' ends early");
      if (d.convert(line) != k) throw fail(n, "the word '" + line + "' appears twice in '" + name + "'");
    }
    if (unk >= 0) d.set_unk(d.convert(static_cast<int>(unk)));
    d.freeze();
  }
  for (const NamedDict& d : dicts)
    if (!read.count(d.first)) throw std::runtime_error("load_dicts: " + path + ": no vocabulary named '" + d.first + "'");
  for (const NamedDict& d : dicts) *d.second = read[d.first];
}

}  // namespace dynet
