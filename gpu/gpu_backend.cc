// make_gpu_device (dynet_core/device/gpu_backend.h) in CUDA builds: installs the kernel tables, then opens the GPU.
#include "dynet_core/device/gpu_backend.h"

#include "gpu/device_gpu.h"
#include "gpu/kernel_table.h"
#include "gpu/trainer_updates.h"

namespace dynet {

std::unique_ptr<Device> make_gpu_device(int cuda_id, const MemorySizes& sizes, bool debug_memory) {
  // A backend that lacks an op is refused before any GPU memory is taken.
  gpu::install_cuda_kernels();
  gpu::install_update_kernels();
  return std::make_unique<Device_GPU>(cuda_id, sizes, debug_memory);
}

}  // namespace dynet
