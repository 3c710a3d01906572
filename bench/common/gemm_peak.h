#pragma once
// Single-precision GEMM throughput of this machine right now, measured with the library's own
// GEMM (JIT kernels where the build has them, Eigen otherwise), so that workload figures can be
// reported as a share of it (figures drift between runs on a shared machine; a ratio measured
// in the same run does not).

namespace bench {

/// GFLOP/s of square products, the best over sizes 128..512 (a single size can hit cache-set
/// conflicts that depend on where the allocator happened to put the matrices).
double gemm_gflops();

}  // namespace bench
