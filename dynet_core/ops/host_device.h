#pragma once
// Marks the scalar rules shared by the CPU and CUDA kernels, so that each formula exists once.

#ifdef __CUDACC__
#define DYBATCH_HD __host__ __device__ __forceinline__
#else
#define DYBATCH_HD inline
#endif
