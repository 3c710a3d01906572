#pragma once
// Bump-pointer memory pool over large aligned blocks.
// allocate = align + advance; reset and revert move the pointer back. Growing adds a block and
// never moves live data. A reset after growth coalesces the blocks into one, so a workload
// settles into a single block whose pages stay resident between graphs.

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace dynet {

/// Where a pool's blocks come from, and how debug mode marks them. Device implements it for
/// device memory; a pool without a source uses host memory.
class BlockSource {
 public:
  virtual ~BlockSource() = default;
  /// kAlign-aligned memory of at least `bytes`, or null when there is none.
  virtual void* allocate_block(std::size_t bytes) = 0;
  virtual void free_block(void* p, std::size_t bytes) = 0;
  /// Fills [p, p + bytes) with NaN floats and [p + bytes, p + footprint) with canary bytes.
  virtual void poison(void* p, std::size_t bytes, std::size_t footprint) = 0;
  /// Whether the canary bytes after [p, p + bytes) are intact.
  virtual bool canary_intact(const void* p, std::size_t bytes, std::size_t footprint) = 0;
};

/// Host memory (std::aligned_alloc), marked by the host.
class HostBlocks : public BlockSource {
 public:
  void* allocate_block(std::size_t bytes) override;
  void free_block(void* p, std::size_t bytes) override;
  void poison(void* p, std::size_t bytes, std::size_t footprint) override;
  bool canary_intact(const void* p, std::size_t bytes, std::size_t footprint) override;
  static HostBlocks& instance();
};

class AlignedMemoryPool {
 public:
  static constexpr std::size_t kAlign = 64;  // a cache line; also AVX-512 alignment

  /// `initial_bytes` is reserved lazily: address space is taken at once, pages when touched.
  /// Blocks come from `source` (host memory when null), which must outlive the pool.
  AlignedMemoryPool(std::string name, std::size_t initial_bytes, BlockSource* source = nullptr);
  ~AlignedMemoryPool();
  AlignedMemoryPool(const AlignedMemoryPool&) = delete;
  AlignedMemoryPool& operator=(const AlignedMemoryPool&) = delete;

  /// Returns kAlign-aligned memory; throws std::runtime_error naming the pool when the machine
  /// has no memory left.
  void* allocate(std::size_t bytes) {
    const std::size_t n = footprint(bytes);
    Block& b = blocks_[current_];
    if (b.size - b.used >= n && n >= bytes) {  // n < bytes: the footprint wrapped around
      char* p = b.base + b.used;
      b.used += n;
      if (debug_) source_->poison(p, bytes, n);
      return p;
    }
    return allocate_slow(bytes);
  }
  template <class T>
  T* allocate_array(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) reject_array(n, sizeof(T));
    return static_cast<T*>(allocate(n * sizeof(T)));
  }

  struct Mark {
    unsigned block;
    std::size_t used;
  };
  Mark mark() const { return {current_, blocks_[current_].used}; }
  /// Frees everything allocated after `m`.
  void revert(const Mark& m) {
    // Most kernels take no scratch: a pool still at the mark holds nothing to free, and any
    // allocation made since was freed by a revert or reset that noted the high water.
    if (m.block == current_ && m.used == blocks_[current_].used) return;
    revert_slow(m);
  }
  /// Frees everything.
  void reset();

  std::size_t used() const;        ///< bytes handed out (with alignment padding)
  std::size_t capacity() const;    ///< bytes reserved in all blocks
  std::size_t high_water() const;  ///< largest used() seen since construction
  std::size_t blocks() const { return blocks_.size(); }
  const std::string& name() const { return name_; }

  /// Debug mode: every allocation is filled with NaN and followed by canary bytes.
  void set_debug(bool on) { debug_ = on; }
  bool debug() const { return debug_; }
  /// In debug mode, whether the canary after an allocation of `bytes` at `p` is intact.
  bool guard_intact(const void* p, std::size_t bytes) const;

 private:
  struct Block {
    char* base;
    std::size_t size;
    std::size_t used;
  };
  static constexpr std::size_t kGuardBytes = 64;

  std::size_t footprint(std::size_t bytes) const {
    return ((bytes + kAlign - 1) & ~(kAlign - 1)) + (debug_ ? kGuardBytes : 0);
  }
  void* allocate_slow(std::size_t bytes);
  void revert_slow(const Mark& m);
  [[noreturn]] void reject_array(std::size_t n, std::size_t element_bytes) const;
  void add_block(std::size_t bytes, std::size_t request);
  void note_high_water();

  std::string name_;
  BlockSource* source_;
  std::vector<Block> blocks_;
  unsigned current_ = 0;
  std::size_t high_water_ = 0;
  bool debug_ = false;
};

}  // namespace dynet
