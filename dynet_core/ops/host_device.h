#pragma once
// Marks the scalar rules: inline functions for g++, and host and device functions when nvcc
// compiles them, so that a CUDA kernel can include the very formula the CPU kernels use.

#ifdef __CUDACC__
#define DYBATCH_HD __host__ __device__ __forceinline__
#else
#define DYBATCH_HD inline
#endif
