// make_gpu_device (gpu_backend.h) in builds without the CUDA backend: it refuses, naming why.
#include <stdexcept>
#include <string>

#include "dynet_core/device/gpu_backend.h"

namespace dynet {

std::unique_ptr<Device> make_gpu_device(int cuda_id, const MemorySizes&, bool) {
  throw std::invalid_argument("GPU:" + std::to_string(cuda_id) +
                              " was asked for, but this build of dybatch has no CUDA backend (nvcc was not found "
                              "when it was configured, or DYBATCH_CUDA was OFF); use --dynet-devices CPU");
}

}  // namespace dynet
