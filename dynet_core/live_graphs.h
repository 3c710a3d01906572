#pragma once
// Which ComputationGraphs exist, readable without touching a graph. An Expression keeps a raw
// pointer to its graph, which may be a destroyed stack object by the time the expression is used;
// asking here first turns that use into an error instead of a read of freed memory.
//
// A graph id carries the graph's slot in a table that only grows and is never freed, so the check
// is two loads and a compare, with no lock, on every Expression access.

#include <atomic>
#include <cstdint>

namespace dynet {
namespace live_graphs {

constexpr unsigned kSlotBits = 20;  ///< at most 2^20 graphs alive at once
constexpr unsigned kChunkBits = 10;
constexpr std::uint64_t kSlotMask = (std::uint64_t{1} << kSlotBits) - 1;

extern std::atomic<std::atomic<std::uint64_t>*> chunks[std::size_t{1} << (kSlotBits - kChunkBits)];

/// A new id for a graph that did not exist; throws std::length_error when 2^20 graphs exist.
std::uint64_t enter();
/// A new id for the graph that had `id` (after clear()); `id` is no longer alive.
std::uint64_t renew(std::uint64_t id);
/// The graph with `id` is gone.
void leave(std::uint64_t id);

inline bool alive(std::uint64_t id) {
  if (id == 0) return false;
  const std::uint64_t slot = id & kSlotMask;
  const std::atomic<std::uint64_t>* chunk = chunks[slot >> kChunkBits].load(std::memory_order_acquire);
  return chunk && chunk[slot & ((std::uint64_t{1} << kChunkBits) - 1)].load(std::memory_order_acquire) == id;
}

}  // namespace live_graphs
}  // namespace dynet
