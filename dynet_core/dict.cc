#include "dynet_core/dict.h"

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

}  // namespace dynet
