#pragma once
// Host memory that processes forked after it was mapped keep sharing: the parameter pool of a
// process started with shared parameters (DyNet's initialize(argc, argv, true)) takes its blocks
// here, so that the children of dynet::mp read the values the trainer writes and add into one
// gradient.

#include "dynet_core/device/aligned_memory_pool.h"

namespace dynet {

class SharedHostBlocks : public HostBlocks {
 public:
  /// Anonymous shared mappings (page-aligned, so kAlign-aligned); pages are taken when touched.
  void* allocate_block(std::size_t bytes) override;
  void free_block(void* p, std::size_t bytes) override;
  static SharedHostBlocks& instance();
};

}  // namespace dynet
