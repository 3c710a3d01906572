// pick, select_rows / select_cols, pick_range, pick_batch_elems and strided_select. The host walks
// the runs a call moves (dynet_core/ops/select_blocks.h, the CPU's own walk, which also reads and
// checks the indices), and one launch moves them all.

#include <vector>

#include "dynet_core/ops/select_blocks.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

/// The runs of a call, from x to y (forward) or from dy to dx (backward).
template <class Blocks>
std::vector<CopyBlock> blocks_of(const OpCall& c, bool forward) {
  std::vector<CopyBlock> blocks;
  Blocks::each(c, [&](std::size_t iy, std::size_t ix, unsigned n) {
    blocks.push_back(forward ? CopyBlock{c.xs[0].v + ix, c.y.v + iy, n} : CopyBlock{c.dy.v + iy, c.dx.v + ix, n});
  });
  return blocks;
}

template <class Blocks>
void copy_blocks(const OpCall& c) {
  device_of(c).move(blocks_of<Blocks>(c, true), BlockMode::Copy);
}

// Runs of x may repeat (a pick of one index twice); overwriting calls come only from ops whose
// runs are disjoint.
template <class Blocks>
void add_blocks_back(const OpCall& c, unsigned) {
  device_of(c).move(blocks_of<Blocks>(c, false), c.overwrite ? BlockMode::Copy : BlockMode::AtomicAdd);
}

template <class Blocks>
NamedKernel selection(const char* op) {
  return kernel_for(op, copy_blocks<Blocks>, add_blocks_back<Blocks>);
}

}  // namespace

void add_select_kernels(KernelTable& t) {
  t.add({selection<SelectedBlocks>("pick"), selection<SelectedBlocks>("select_rows_cols"),
         selection<RangeBlocks>("pick_range"), selection<PickedBatchBlocks>("pick_batch_elems"),
         selection<StridedBlocks>("strided_select")});
}

}  // namespace gpu
}  // namespace dynet
