// Every op family's CUDA kernels, collected into one table (cuda_kernels, gpu/kernel_table.h).
#include "gpu/kernel_table.h"

namespace dynet {
namespace gpu {

void add_arithmetic_kernels(KernelTable& t);
void add_convolution_kernels(KernelTable& t);
void add_elementwise_kernels(KernelTable& t);
void add_gradient_control_kernels(KernelTable& t);
void add_leaf_kernels(KernelTable& t);
void add_linalg_kernels(KernelTable& t);
void add_loss_kernels(KernelTable& t);
void add_lstm_kernels(KernelTable& t);
void add_random_kernels(KernelTable& t);
void add_reduction_kernels(KernelTable& t);
void add_select_kernels(KernelTable& t);
void add_shape_kernels(KernelTable& t);
void add_softmax_kernels(KernelTable& t);

KernelTable cuda_kernels() {
  KernelTable t;
  add_arithmetic_kernels(t);
  add_convolution_kernels(t);
  add_elementwise_kernels(t);
  add_gradient_control_kernels(t);
  add_leaf_kernels(t);
  add_linalg_kernels(t);
  add_loss_kernels(t);
  add_lstm_kernels(t);
  add_random_kernels(t);
  add_reduction_kernels(t);
  add_select_kernels(t);
  add_shape_kernels(t);
  add_softmax_kernels(t);
  return t;
}

}  // namespace gpu
}  // namespace dynet
