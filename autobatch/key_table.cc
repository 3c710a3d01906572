#include "autobatch/key_table.h"

namespace dynet {

void KeyTable::clear() {
  for (std::uint32_t pos : used_) slots_[pos].id = kEmpty;
  used_.clear();
  keys_ = 0;
}

void KeyTable::grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{0, kEmpty});
  const std::size_t mask = slots_.size() - 1;
  used_.clear();
  for (const Slot& s : old) {
    if (s.id == kEmpty) continue;
    std::size_t pos = spread(s.key) & mask;
    while (slots_[pos].id != kEmpty) pos = (pos + 1) & mask;
    slots_[pos] = s;
    used_.push_back(static_cast<std::uint32_t>(pos));
  }
}

std::uint32_t KeyTable::id(std::uint64_t key, bool* added) {
  if (slots_.size() < 2 * (std::size_t(keys_) + 1)) grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t pos = spread(key) & mask;
  while (slots_[pos].id != kEmpty) {
    if (slots_[pos].key == key) {
      *added = false;
      return slots_[pos].id;
    }
    pos = (pos + 1) & mask;
  }
  const std::uint32_t id = keys_++;
  slots_[pos] = {key, id};
  used_.push_back(static_cast<std::uint32_t>(pos));
  *added = true;
  return id;
}

}  // namespace dynet
