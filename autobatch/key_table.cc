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

std::uint32_t KeyTable::add(std::size_t pos, std::uint64_t key) {
  const std::uint32_t id = keys_++;
  slots_[pos] = {key, id};
  used_.push_back(static_cast<std::uint32_t>(pos));
  return id;
}

}  // namespace dynet
