#pragma once
// The trainers' update kernels on a GPU (trainers/update_kernels.h): one thread per value running
// the same scalar rule as the CPU loop, and EG's normalization with one thread block per block of
// values, or, for a dense update (one block: the whole parameter), over many thread blocks in
// three passes with fixed-order reductions. The rows of a sparse update are copied to the device
// once per call.

namespace dynet {
namespace gpu {

/// Sets the GPU's update kernels and checks the table (check_update_kernels); needs no GPU.
void install_update_kernels();

}  // namespace gpu
}  // namespace dynet
