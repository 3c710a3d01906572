#include "dynet_core/device/aligned_memory_pool.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace dynet {

namespace {
constexpr unsigned char kCanary = 0xCD;
std::size_t round_up(std::size_t n) { return (n + AlignedMemoryPool::kAlign - 1) & ~(AlignedMemoryPool::kAlign - 1); }
}  // namespace

void* HostBlocks::allocate_block(std::size_t bytes) { return std::aligned_alloc(AlignedMemoryPool::kAlign, bytes); }

void HostBlocks::free_block(void* p, std::size_t) { std::free(p); }

void HostBlocks::poison(void* p, std::size_t bytes, std::size_t footprint) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  float* f = static_cast<float*>(p);
  for (std::size_t i = 0; i < bytes / sizeof(float); ++i) f[i] = nan;
  std::memset(static_cast<char*>(p) + bytes, kCanary, footprint - bytes);
}

bool HostBlocks::canary_intact(const void* p, std::size_t bytes, std::size_t footprint) {
  const unsigned char* c = static_cast<const unsigned char*>(p) + bytes;
  for (std::size_t i = 0; i < footprint - bytes; ++i)
    if (c[i] != kCanary) return false;
  return true;
}

HostBlocks& HostBlocks::instance() {
  // Never destroyed: pools of static objects (the default device's) return their blocks through
  // it at exit, whatever the order in which statics are destroyed.
  static HostBlocks* const blocks = new HostBlocks;
  return *blocks;
}

AlignedMemoryPool::AlignedMemoryPool(std::string name, std::size_t initial_bytes, BlockSource* source)
    : name_(std::move(name)), source_(source ? source : &HostBlocks::instance()) {
  add_block(initial_bytes < kAlign ? kAlign : initial_bytes, initial_bytes);
}

AlignedMemoryPool::~AlignedMemoryPool() {
  for (Block& b : blocks_) source_->free_block(b.base, b.size);
}

void AlignedMemoryPool::add_block(std::size_t bytes, std::size_t request) {
  const std::size_t size = round_up(bytes);
  void* p = size >= bytes ? source_->allocate_block(size) : nullptr;
  if (!p)
    throw std::runtime_error("dybatch: out of memory in the '" + name_ + "' pool: a request of " +
                             std::to_string(request) + " bytes needed a new block of " + std::to_string(bytes) +
                             " bytes, and the system refused it (the pool " + "already holds " +
                             std::to_string(capacity()) + " bytes in " + std::to_string(blocks_.size()) +
                             " blocks). Use smaller batches or models, or free memory.");
  blocks_.push_back({static_cast<char*>(p), size, 0});
}

void* AlignedMemoryPool::allocate_slow(std::size_t bytes) {
  const std::size_t n = footprint(bytes);
  if (n < bytes)  // the size wrapped around
    throw std::runtime_error("dybatch: out of memory in the '" + name_ + "' pool: a request of " +
                             std::to_string(bytes) + " bytes cannot be satisfied");
  // Later blocks survive a revert; reuse one that fits before growing.
  while (current_ + 1 < blocks_.size()) {
    Block& next = blocks_[++current_];
    next.used = 0;
    if (next.size >= n) {
      next.used = n;
      if (debug_) source_->poison(next.base, bytes, n);
      return next.base;
    }
  }
  const std::size_t cap = capacity();
  add_block(n > cap ? n : cap, bytes);
  current_ = static_cast<unsigned>(blocks_.size() - 1);
  Block& b = blocks_[current_];
  b.used = n;
  if (debug_) source_->poison(b.base, bytes, n);
  return b.base;
}

void AlignedMemoryPool::reject_array(std::size_t n, std::size_t element_bytes) const {
  throw std::runtime_error("dybatch: out of memory in the '" + name_ + "' pool: a request of " + std::to_string(n) +
                           " elements of " + std::to_string(element_bytes) + " bytes cannot be satisfied");
}

bool AlignedMemoryPool::guard_intact(const void* p, std::size_t bytes) const {
  return !debug_ || source_->canary_intact(p, bytes, footprint(bytes));
}

void AlignedMemoryPool::note_high_water() {
  const std::size_t u = used();
  if (u > high_water_) high_water_ = u;
}

void AlignedMemoryPool::revert_slow(const Mark& m) {
  if (m.block > current_ || (m.block == current_ && m.used > blocks_[current_].used))
    throw std::invalid_argument("AlignedMemoryPool '" + name_ + "': revert to a mark that lies beyond the current top");
  note_high_water();
  for (unsigned i = m.block + 1; i <= current_; ++i) blocks_[i].used = 0;
  current_ = m.block;
  blocks_[current_].used = m.used;
}

void AlignedMemoryPool::reset() {
  note_high_water();
  if (blocks_.size() > 1) {
    // Nothing is live after a reset, so the blocks can be replaced by one that holds them all.
    // When the system cannot give the larger block now, the old blocks simply stay.
    const std::size_t cap = capacity();
    if (void* p = source_->allocate_block(cap)) {
      for (Block& b : blocks_) source_->free_block(b.base, b.size);
      blocks_.assign(1, Block{static_cast<char*>(p), cap, 0});
    }
  }
  current_ = 0;
  blocks_[0].used = 0;
}

std::size_t AlignedMemoryPool::used() const {
  std::size_t u = 0;
  for (unsigned i = 0; i <= current_; ++i) u += blocks_[i].used;
  return u;
}

std::size_t AlignedMemoryPool::capacity() const {
  std::size_t c = 0;
  for (const Block& b : blocks_) c += b.size;
  return c;
}

std::size_t AlignedMemoryPool::high_water() const {
  const std::size_t u = used();
  return u > high_water_ ? u : high_water_;
}

}  // namespace dynet
