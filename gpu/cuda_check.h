#pragma once
// CUDA and cuBLAS calls report failure as a status; dybatch reports it as an exception that names
// the call that failed and CUDA's own words for why.

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

#include "gpu/cublas_library.h"

namespace dynet {
namespace gpu {

inline void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": CUDA error " + std::to_string(int(status)) + " (" +
                             cudaGetErrorName(status) + ": " + cudaGetErrorString(status) + ")");
}

inline void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLAS error " + std::to_string(int(status)) + " (" +
                             cublas_library().status_string(status) + ")");
}

}  // namespace gpu
}  // namespace dynet
