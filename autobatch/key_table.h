#pragma once
// The scheduler's hash map: group keys (a signature, or a signature and a depth) to dense ids
// 0, 1, 2, ... in order of first appearance. Open addressing over a power-of-two table; clearing
// touches only the slots in use, so a forward pass over a few nodes costs no more than they do.

#include <cstdint>
#include <vector>

namespace dynet {

/// A well-mixed 64-bit hash of k (MurmurHash3's finalizer).
inline std::uint64_t spread(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xFF51AFD7ED558CCDull;
  return k ^ (k >> 33);
}

class KeyTable {
 public:
  /// The id of `key`; a key not seen since clear() gets the next id, and *added is set. Inline:
  /// the scheduler looks up every node's key.
  std::uint32_t id(std::uint64_t key, bool* added) {
    if (slots_.size() < 2 * (std::size_t(keys_) + 1)) grow();
    const std::size_t mask = slots_.size() - 1;
    std::size_t pos = spread(key) & mask;
    for (; slots_[pos].id != kEmpty; pos = (pos + 1) & mask) {
      if (slots_[pos].key == key) {
        *added = false;
        return slots_[pos].id;
      }
    }
    *added = true;
    return add(pos, key);
  }
  /// Forgets every key; ids start from 0 again.
  void clear();
  /// How many keys are held.
  std::uint32_t size() const { return keys_; }

 private:
  struct Slot {
    std::uint64_t key;
    std::uint32_t id;
  };
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  void grow();
  /// Gives `key` the next id, in the empty slot at `pos`.
  std::uint32_t add(std::size_t pos, std::uint64_t key);

  std::vector<Slot> slots_;
  std::vector<std::uint32_t> used_;  // positions of the slots in use
  std::uint32_t keys_ = 0;
};

}  // namespace dynet
