// nobackprop, scale_gradient and argmax.

#include "gpu/device_operations.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

void copy_forward(const OpCall& c) { device_of(c).copy(c.y.v, c.xs[0].v, c.y.d.size()); }

void scaled_backward(const OpCall& c, unsigned) {
  launch_scaled_add(c.dx.v, c.op_data<float>(), c.dy.v, c.y.d.size(), false, stream_of(c));
}

// One thread per column: columns are short (a distribution over classes), and there are many.
__global__ void argmax_kernel(const float* x, float* y, unsigned rows, unsigned cols) {
  DYBATCH_GRID_STRIDE(col, cols) {
    const float* xc = x + col * rows;
    float* yc = y + col * rows;
    unsigned best = 0;
    for (unsigned i = 1; i < rows; ++i)
      if (xc[i] > xc[best]) best = i;
    for (unsigned i = 0; i < rows; ++i) yc[i] = i == best ? 1.f : 0.f;
  }
}

void argmax_forward(const OpCall& c) {
  const unsigned rows = c.y.d.rows(), cols = unsigned(c.y.d.size() / rows);
  argmax_kernel<<<blocks_for(cols), kThreads, 0, stream_of(c)>>>(c.xs[0].v, c.y.v, rows, cols);
  check_launch("argmax forward");
}

}  // namespace

void add_gradient_control_kernels(KernelTable& t) {
  t.add({kernel_for("nobackprop", copy_forward), kernel_for("scale_gradient", copy_forward, scaled_backward),
         kernel_for("argmax", argmax_forward, scaled_backward)});
}

}  // namespace gpu
}  // namespace dynet
