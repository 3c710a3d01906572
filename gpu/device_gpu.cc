#include "gpu/device_gpu.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "gpu/cuda_check.h"
#include "gpu/element_chain.h"

namespace dynet {

namespace {

constexpr unsigned char kCanary = 0xCD;
/// Appends the run of n floats from `from` to `to` (either may be null) to `pieces`, as runs of at
/// most gpu::kRunPiece floats.
void split_run(const float* from, float* to, std::size_t n, std::vector<gpu::CopyBlock>& pieces) {
  for (std::size_t done = 0; done < n; done += gpu::kRunPiece)
    pieces.push_back({from ? from + done : nullptr, to ? to + done : nullptr,
                      static_cast<unsigned>(std::min<std::size_t>(n - done, gpu::kRunPiece))});
}

gpu::BlockMode block_mode(RunOp op) {
  return op == RunOp::Copy   ? gpu::BlockMode::Copy
         : op == RunOp::Zero ? gpu::BlockMode::Zero
                             : gpu::BlockMode::AtomicAdd;
}

int checked_gpu(int cuda_id) {
  const int n = gpu::visible_gpus();
  if (cuda_id < 0 || cuda_id >= n)
    throw std::runtime_error(
        "Device_GPU: GPU:" + std::to_string(cuda_id) + " was asked for, but " +
        (n == 0 ? std::string("no CUDA device is visible")
                : std::to_string(n) + " CUDA device(s) are visible (GPU:0 to GPU:" + std::to_string(n - 1) + ")"));
  gpu::check_cuda(cudaSetDevice(cuda_id), "Device_GPU: cudaSetDevice");
  return cuda_id;
}

}  // namespace

Device_GPU::Device_GPU(int cuda_id, const MemorySizes& sizes, bool debug_memory)
    : Device(DeviceType::GPU, "GPU:" + std::to_string(cuda_id), DeviceCapabilities{false, true, true}, sizes,
             debug_memory, false, true),
      cuda_device_id(checked_gpu(cuda_id)) {
  gpu::check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "Device_GPU: cudaStreamCreate");
  try {
    gpu::check_cublas(gpu::cublas_library().create(&cublas_), "Device_GPU: cublasCreate");
    gpu::check_cublas(gpu::cublas_library().set_stream(cublas_, stream_), "Device_GPU: cublasSetStream");
    timer_ = std::make_unique<gpu::KernelTimer>(stream_);
    clock_ = timer_.get();
  } catch (...) {
    if (cublas_) gpu::cublas_library().destroy(cublas_);
    cudaStreamDestroy(stream_);
    throw;
  }
}

Device_GPU::~Device_GPU() {
  // At process exit the CUDA runtime may be unloading already: nothing here may throw.
  cudaSetDevice(cuda_device_id);
  cudaStreamSynchronize(stream_);
  timer_.reset();
  release_pools();
  for (Staging* s : {&run_list_, &indices_, &chain_staging_, &norms_}) cudaFree(s->data);
  gpu::cublas_library().destroy(cublas_);
  cudaStreamDestroy(stream_);
}

void Device_GPU::make_current() const {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == cuda_device_id) return;
  gpu::check_cuda(cudaSetDevice(cuda_device_id), "Device_GPU: cudaSetDevice");
}

void* Device_GPU::allocate_block(std::size_t bytes) {
  make_current();
  void* p = nullptr;
  if (cudaMalloc(&p, bytes) == cudaSuccess) return p;
  cudaGetLastError();  // out of device memory: the pool reports it, naming itself
  return nullptr;
}

void Device_GPU::free_block(void* p, std::size_t) {
  cudaSetDevice(cuda_device_id);  // as the destructor: pools free their blocks at exit too
  // Kernels still queued may read the block: it goes back only once they are done.
  cudaStreamSynchronize(stream_);
  cudaFree(p);
}

void Device_GPU::poison(void* p, std::size_t bytes, std::size_t footprint) {
  make_current();
  fill(static_cast<float*>(p), std::numeric_limits<float>::quiet_NaN(), bytes / sizeof(float));
  gpu::check_cuda(cudaMemsetAsync(static_cast<char*>(p) + bytes, kCanary, footprint - bytes, stream_),
                  "Device_GPU::poison");
}

bool Device_GPU::canary_intact(const void* p, std::size_t bytes, std::size_t footprint) {
  make_current();
  std::vector<unsigned char> canary(footprint - bytes);
  gpu::check_cuda(cudaMemcpyAsync(canary.data(), static_cast<const char*>(p) + bytes, canary.size(),
                                  cudaMemcpyDeviceToHost, stream_),
                  "Device_GPU::canary_intact");
  synchronize();
  for (unsigned char c : canary)
    if (c != kCanary) return false;
  return true;
}

void Device_GPU::copy(float* dst, const float* src, std::size_t n) {
  make_current();
  gpu::check_cuda(cudaMemcpyAsync(dst, src, n * sizeof(float), cudaMemcpyDeviceToDevice, stream_), "Device_GPU::copy");
}

void Device_GPU::zero(float* dst, std::size_t n) {
  make_current();
  gpu::check_cuda(cudaMemsetAsync(dst, 0, n * sizeof(float), stream_), "Device_GPU::zero");
}

void Device_GPU::fill(float* dst, float value, std::size_t n) {
  make_current();
  gpu::launch_fill(dst, value, n, stream_);
}

void Device_GPU::scale(float* y, float a, std::size_t n) {
  make_current();
  gpu::launch_scale(y, a, n, stream_);
}

void Device_GPU::scaled_sum(float* y, float a, const float* x, float b, std::size_t n) {
  make_current();
  gpu::launch_scale(y, a, n, stream_);
  gpu::launch_scaled_add(y, b, x, n, false, stream_);
}

void Device_GPU::accumulate(float* y, const float* x, std::size_t n) {
  make_current();
  gpu::launch_accumulate(y, x, n, stream_);
}

void Device_GPU::to_device(float* dst, const float* host_src, std::size_t n) {
  make_current();
  gpu::check_cuda(cudaMemcpyAsync(dst, host_src, n * sizeof(float), cudaMemcpyHostToDevice, stream_),
                  "Device_GPU::to_device");
}

void Device_GPU::to_host(float* host_dst, const float* src, std::size_t n) {
  make_current();
  gpu::check_cuda(cudaMemcpyAsync(host_dst, src, n * sizeof(float), cudaMemcpyDeviceToHost, stream_),
                  "Device_GPU::to_host");
  synchronize();
}

double Device_GPU::squared_norm(const float* x, std::size_t n) {
  const MemoryRun run{nullptr, x, n};
  return squared_norm(&run, 1);
}

// Each run's pieces are summed by one thread block each, in a fixed order, and the pieces' sums
// are added on the host in the order of the runs: the same floats give the same norm every time.
double Device_GPU::squared_norm(const MemoryRun* runs, std::size_t count) {
  make_current();
  const std::lock_guard<std::mutex> lock(staging_mutex_);
  pieces_.clear();
  for (std::size_t r = 0; r < count; ++r) split_run(runs[r].src, nullptr, runs[r].n, pieces_);
  if (pieces_.empty()) return 0;
  const void* list =
      stage(run_list_, pieces_.data(), pieces_.size() * sizeof(gpu::CopyBlock), "Device_GPU::squared_norm");
  auto* sums = static_cast<double*>(reserve(norms_, pieces_.size() * sizeof(double), "Device_GPU::squared_norm"));
  gpu::launch_block_squared_norms(sums, static_cast<const gpu::CopyBlock*>(list), pieces_.size(), stream_);
  host_norms_.resize(pieces_.size());
  gpu::check_cuda(
      cudaMemcpyAsync(host_norms_.data(), sums, pieces_.size() * sizeof(double), cudaMemcpyDeviceToHost, stream_),
      "Device_GPU::squared_norm");
  synchronize();
  double s = 0;
  for (double piece : host_norms_) s += piece;
  return s;
}

void Device_GPU::apply_runs(RunOp op, const MemoryRun* runs, std::size_t count) {
  make_current();
  const std::lock_guard<std::mutex> lock(staging_mutex_);
  pieces_.clear();
  for (std::size_t r = 0; r < count; ++r) split_run(runs[r].src, runs[r].dst, runs[r].n, pieces_);
  launch_pieces(block_mode(op));
}

void Device_GPU::synchronize() {
  make_current();
  gpu::check_cuda(cudaStreamSynchronize(stream_), "Device_GPU::synchronize");
}

void Device_GPU::move(const std::vector<gpu::CopyBlock>& runs, gpu::BlockMode mode) {
  make_current();
  const std::lock_guard<std::mutex> lock(staging_mutex_);
  pieces_.clear();
  for (const gpu::CopyBlock& run : runs) split_run(run.from, run.to, run.n, pieces_);
  launch_pieces(mode);
}

void Device_GPU::launch_pieces(gpu::BlockMode mode) {
  if (pieces_.empty()) return;
  const void* list = stage(run_list_, pieces_.data(), pieces_.size() * sizeof(gpu::CopyBlock), "Device_GPU: run list");
  gpu::launch_blocks(static_cast<const gpu::CopyBlock*>(list), pieces_.size(), mode, stream_);
}

void* Device_GPU::reserve(Staging& s, std::size_t bytes, const char* who) {
  if (bytes > s.capacity) {
    cudaStreamSynchronize(stream_);
    cudaFree(s.data);
    s.data = nullptr;
    s.capacity = 0;
    gpu::check_cuda(cudaMalloc(&s.data, bytes), who);
    s.capacity = bytes;
  }
  return s.data;
}

void* Device_GPU::stage(Staging& s, const void* host, std::size_t bytes, const char* who) {
  reserve(s, bytes, who);
  gpu::check_cuda(cudaMemcpyAsync(s.data, host, bytes, cudaMemcpyHostToDevice, stream_), who);
  return s.data;
}

gpu::ElementChain Device_GPU::stage_chain(const ChainProgram& chain, const ChainRun& run) {
  chain_block_.resize(gpu::element_chain_bytes(chain));
  void* device = reserve(chain_staging_, chain_block_.size(), "fused chain");
  const gpu::ElementChain packed =
      gpu::pack_element_chain(chain, run, chain_block_.data(), reinterpret_cast<std::uintptr_t>(device));
  stage(chain_staging_, chain_block_.data(), chain_block_.size(), "fused chain");
  return packed;
}

void Device_GPU::gather(float* dst, const float* const* srcs, const unsigned* lengths, unsigned runs) {
  std::vector<gpu::CopyBlock> list(runs);
  for (unsigned r = 0; r < runs; dst += lengths[r], ++r) list[r] = {srcs[r], dst, lengths[r]};
  move(list, gpu::BlockMode::Copy);
}

void Device_GPU::scatter_add(float* const* dsts, const float* src, const unsigned* lengths, unsigned runs) {
  std::vector<gpu::CopyBlock> list(runs);
  for (unsigned r = 0; r < runs; src += lengths[r], ++r) list[r] = {src, dsts[r], lengths[r]};
  move(list, gpu::BlockMode::AtomicAdd);
}

namespace gpu {

int visible_gpus() {
  int n = 0;
  if (cudaGetDeviceCount(&n) == cudaSuccess) return n;
  cudaGetLastError();  // no driver or no GPU: not an error that later calls should see
  return 0;
}

}  // namespace gpu
}  // namespace dynet
