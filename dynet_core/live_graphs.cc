#include "dynet_core/live_graphs.h"

#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace dynet {
namespace live_graphs {

std::atomic<std::atomic<std::uint64_t>*> chunks[std::size_t{1} << (kSlotBits - kChunkBits)];

namespace {

constexpr std::uint64_t kChunkSize = std::uint64_t{1} << kChunkBits;

std::mutex table_mutex;
std::vector<std::uint64_t> free_slots;
std::uint64_t slots_made = 0;
// Starts at 1 so that no id is 0, the id of an empty Expression.
std::uint64_t next_serial = 1;

std::atomic<std::uint64_t>& entry(std::uint64_t slot) {
  return chunks[slot >> kChunkBits].load(std::memory_order_relaxed)[slot & (kChunkSize - 1)];
}

std::uint64_t next_id(std::uint64_t slot) { return (next_serial++ << kSlotBits) | slot; }

}  // namespace

std::uint64_t enter() {
  std::lock_guard<std::mutex> lock(table_mutex);
  std::uint64_t slot;
  if (!free_slots.empty()) {
    slot = free_slots.back();
    free_slots.pop_back();
  } else {
    if (slots_made > kSlotMask)
      throw std::length_error("ComputationGraph: " + std::to_string(kSlotMask + 1) +
                              " graphs exist at once; destroy some before making more");
    slot = slots_made++;
    if ((slot & (kChunkSize - 1)) == 0)
      // Chunks are never freed: an Expression of a long-gone graph may still read its entry.
      chunks[slot >> kChunkBits].store(new std::atomic<std::uint64_t>[kChunkSize](), std::memory_order_release);
  }
  const std::uint64_t id = next_id(slot);
  entry(slot).store(id, std::memory_order_release);
  return id;
}

std::uint64_t renew(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(table_mutex);
  const std::uint64_t fresh = next_id(id & kSlotMask);
  entry(id & kSlotMask).store(fresh, std::memory_order_release);
  return fresh;
}

void leave(std::uint64_t id) {
  std::lock_guard<std::mutex> lock(table_mutex);
  entry(id & kSlotMask).store(0, std::memory_order_release);
  free_slots.push_back(id & kSlotMask);
}

}  // namespace live_graphs
}  // namespace dynet
