#pragma once
// cuBLAS is loaded when the first Device_GPU is made, not when a program starts. Linking it runs
// libcublasLt's start-up in every process, which cost each dybatch program, test and example about
// a second on a machine without a GPU, where cuBLAS is never called.

#include <cublas_v2.h>

namespace dynet {
namespace gpu {

/// The cuBLAS functions dybatch calls (cublas_v2.h's names are macros for their versioned symbols).
struct CublasLibrary {
  decltype(&cublasCreate) create;
  decltype(&cublasDestroy) destroy;
  decltype(&cublasSetStream) set_stream;
  decltype(&cublasGetStatusString) status_string;
  decltype(&cublasSgemm) sgemm;
  decltype(&cublasSgemmStridedBatched) sgemm_strided_batched;
};

/// Loads libcublas on the first call (by its soname, so LD_LIBRARY_PATH and the loader's cache
/// apply, then from where the build found it). Throws, naming the library and the loader's reason,
/// when it or one of the functions is missing; a later call tries again.
const CublasLibrary& cublas_library();

}  // namespace gpu
}  // namespace dynet
