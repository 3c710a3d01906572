// reshape, concatenate and concatenate_to_batch: copies; a concatenation moves the runs of the
// CPU's own walk (dynet_core/ops/shape.h) in one launch.

#include <vector>

#include "dynet_core/ops/shape.h"
#include "gpu/device_operations.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

void copy_forward(const OpCall& c) { device_of(c).copy(c.y.v, c.xs[0].v, c.y.d.size()); }
void add_backward(const OpCall& c, unsigned) { launch_accumulate(c.dx.v, c.dy.v, c.y.d.size(), stream_of(c)); }

void concatenate_forward(const OpCall& c) {
  std::vector<CopyBlock> blocks;
  for_each_concat_block(c, [&](unsigned k, std::size_t iy, std::size_t ix, unsigned n) {
    blocks.push_back({c.xs[k].v + ix, c.y.v + iy, n});
  });
  device_of(c).move(blocks, BlockMode::Copy);
}

void concatenate_backward(const OpCall& c, unsigned i) {
  std::vector<CopyBlock> blocks;
  for_each_concat_block(c, [&](unsigned k, std::size_t iy, std::size_t ix, unsigned n) {
    if (k == i) blocks.push_back({c.dy.v + iy, c.dx.v + ix, n});
  });
  // A broadcast argument sums the gradients of every batch element: its runs overlap.
  const bool broadcast = c.dx.d.bd != c.y.d.bd;
  if (broadcast && c.overwrite) device_of(c).zero(c.dx.v, c.dx.d.size());
  device_of(c).move(blocks, broadcast ? BlockMode::AtomicAdd : c.overwrite ? BlockMode::Copy : BlockMode::Add);
}

void concatenate_to_batch_forward(const OpCall& c) {
  float* y = c.y.v;
  for (unsigned k = 0; k < c.nargs; ++k) {
    device_of(c).copy(y, c.xs[k].v, c.xs[k].d.size());
    y += c.xs[k].d.size();
  }
}

void concatenate_to_batch_backward(const OpCall& c, unsigned i) {
  std::size_t offset = 0;
  for (unsigned k = 0; k < i; ++k) offset += c.xs[k].d.size();
  launch_accumulate(c.dx.v, c.dy.v + offset, c.dx.d.size(), stream_of(c));
}

}  // namespace

void add_shape_kernels(KernelTable& t) {
  t.add({kernel_for("reshape", copy_forward, add_backward),
         kernel_for("concatenate", concatenate_forward, concatenate_backward),
         kernel_for("concatenate_to_batch", concatenate_to_batch_forward, concatenate_to_batch_backward)});
}

}  // namespace gpu
}  // namespace dynet
