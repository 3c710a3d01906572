#pragma once
// How initialize() reaches the CUDA backend without the core depending on it: the core declares
// the factory, and gpu/ defines it in builds with CUDA (no_gpu_backend.cc defines it otherwise).

#include <memory>

#include "dynet_core/device/device.h"

namespace dynet {

/// GPU `cuda_id` (--dynet-devices GPU:N) as a Device, its pools in debug mode when `debug_memory`.
/// Throws std::logic_error when the CUDA kernel table lacks an op, std::runtime_error when there
/// is no such GPU, and std::invalid_argument in a build without the CUDA backend.
std::unique_ptr<Device> make_gpu_device(int cuda_id, const MemorySizes& sizes, bool debug_memory);

}  // namespace dynet
