// Device agreement: every op with CUDA kernels, on the gradient check's random instances, gives
// the CPU's values and argument gradients on the GPU. The CPU runs the instance through its graph;
// the GPU runs the op's CUDA kernels on copies of the same arguments.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"
#include "gpu/device_gpu.h"
#include "gpu/kernel_table.h"
#include "gpu/kernel_timer.h"

using namespace dynet;

namespace {

constexpr std::size_t MB = std::size_t(1) << 20;

Device_GPU& gpu_device() {
  static Device_GPU device(0, MemorySizes{16 * MB, 16 * MB, 16 * MB, 16 * MB});
  return device;
}
/// Pools of GPU memory for the tests' tensors and the kernels' temporaries, from the device's blocks.
AlignedMemoryPool& gpu_values() {
  static AlignedMemoryPool pool("GPU test values", 16 * MB, &gpu_device());
  return pool;
}
AlignedMemoryPool& gpu_scratch() {
  static AlignedMemoryPool pool("GPU test scratch", 16 * MB, &gpu_device());
  return pool;
}

/// A device copy of host values, in the GPU test pool.
Tensor upload(Device_GPU& gpu, const Dim& d, const float* host) {
  Tensor t(d, gpu_values().allocate_array<float>(d.size()), &gpu);
  gpu.to_device(t.v, host, d.size());
  return t;
}

std::vector<float> download(Device_GPU& gpu, const Tensor& t) {
  std::vector<float> v(t.d.size());
  gpu.to_host(v.data(), t.v, v.size());
  return v;
}

void require_close(const std::vector<float>& gpu, const std::vector<float>& cpu, const char* op, const char* what,
                   unsigned arg) {
  REQUIRE(gpu.size() == cpu.size());
  for (std::size_t e = 0; e < cpu.size(); ++e) {
    INFO(op << ": " << what << " (argument " << arg << ") element " << e << ": GPU " << gpu[e] << ", CPU " << cpu[e]);
    REQUIRE(std::fabs(gpu[e] - cpu[e]) <= 1e-4f + 1e-3f * std::fabs(cpu[e]));
  }
}

void check_agreement(const OpDef& op, const OpKernels& kernel, std::uint64_t seed) {
  Device_GPU& gpu = gpu_device();
  ComputationGraph cg;
  CheckCase c(cg, seed);
  const Expression y = op.check.build(c);
  REQUIRE(cg.node(y.i).op == &op);
  cg.forward(y);
  const Node& n = cg.node(y.i);

  std::vector<Tensor> host_xs, gpu_xs;
  for (unsigned k = 0; k < n.nargs; ++k) {
    const Node& a = cg.node(n.arg(k));
    host_xs.emplace_back(a.dim, a.value, cg.device());
    gpu_xs.push_back(upload(gpu, a.dim, a.value));
  }
  OpCall g;
  g.xs = gpu_xs.data();
  g.nargs = n.nargs;
  g.y = Tensor(n.dim, gpu_values().allocate_array<float>(n.dim.size()), &gpu);
  g.data = &n.data;
  g.scratch = &gpu_scratch();
  kernel.forward(g);
  require_close(download(gpu, g.y), std::vector<float>(n.value, n.value + n.dim.size()), op.name, "forward", 0);
  if (!op.backward) return;

  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(-1.f, 1.f);
  std::vector<float> dy(n.dim.size());
  for (float& v : dy) v = unit(rng);
  g.dy = upload(gpu, n.dim, dy.data());
  for (unsigned k = 0; k < n.nargs; ++k) {
    std::vector<float> seed_grad(host_xs[k].d.size());
    for (float& v : seed_grad) v = unit(rng);
    std::vector<float> cpu_grad = seed_grad;
    OpCall h;
    h.xs = host_xs.data();
    h.nargs = n.nargs;
    h.y = Tensor(n.dim, n.value, cg.device());
    h.dy = Tensor(n.dim, dy.data(), cg.device());
    h.dx = Tensor(host_xs[k].d, cpu_grad.data(), cg.device());
    h.data = &n.data;
    h.scratch = &cg.memory().scratch;
    op.backward(h, k);
    g.dx = upload(gpu, host_xs[k].d, seed_grad.data());
    kernel.backward(g, k);
    require_close(download(gpu, g.dx), cpu_grad, op.name, "backward", k);
  }
}

/// Leaves whose op data points at the CPU device's parameter memory, which GPU kernels cannot read:
/// parameters are their own value (no kernel runs), lookups gather table rows.
bool reads_parameters(const OpDef& op) {
  return op.value_alias || op.leaf_backward || std::string(op.name) == "const_lookup";
}

}  // namespace

TEST_CASE("every op with CUDA kernels agrees with the CPU", "[gpu]") {
  register_all_ops();
  const gpu::KernelTable kernels = gpu::cuda_kernels();
  unsigned checked = 0;
  for (const OpDef* op : registered_ops()) {
    const OpKernels* k = kernels.find(op->name);
    if (!k || !op->check.build || reads_parameters(*op)) continue;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
      INFO(op->name << ", seed " << seed);
      check_agreement(*op, *k, seed * 7919 + op->id);
      gpu_device().synchronize();
      gpu_values().reset();
      gpu_scratch().reset();
    }
    ++checked;
  }
  CHECK(checked > 50);
}

TEST_CASE("Device_GPU's device operations move and add what they are told", "[gpu]") {
  Device_GPU& gpu = gpu_device();
  const std::vector<float> a = {1, 2, 3, 4, 5}, b = {10, 20, 30};
  float* da = gpu_values().allocate_array<float>(5);
  float* db = gpu_values().allocate_array<float>(3);
  float* packed = gpu_values().allocate_array<float>(8);
  gpu.to_device(da, a.data(), 5);
  gpu.to_device(db, b.data(), 3);
  const float* srcs[] = {db, da};
  const unsigned lengths[] = {3, 5};
  gpu.gather(packed, srcs, lengths, 2);
  std::vector<float> out(8);
  gpu.to_host(out.data(), packed, 8);
  CHECK(out == std::vector<float>{10, 20, 30, 1, 2, 3, 4, 5});
  float* dsts[] = {db, da};
  gpu.scatter_add(dsts, packed, lengths, 2);
  gpu.accumulate(db, db, 3);
  std::vector<float> back(3);
  gpu.to_host(back.data(), db, 3);
  CHECK(back == std::vector<float>{40, 80, 120});
  gpu.zero(da, 5);
  gpu.copy(packed, da, 5);
  gpu.to_host(out.data(), packed, 8);
  CHECK(out == std::vector<float>{0, 0, 0, 0, 0, 3, 4, 5});
  gpu_values().reset();
}

TEST_CASE("the kernel timer reads each timed call's device time", "[gpu][profiling]") {
  Device_GPU& gpu = gpu_device();
  const std::size_t small = 1 << 10, large = std::size_t(1) << 26;
  float* v = gpu_values().allocate_array<float>(large);
  gpu::KernelTimer timer(gpu.stream());
  const unsigned a = timer.start();
  gpu.zero(v, small);
  timer.stop(a);
  const unsigned b = timer.start();
  for (int k = 0; k < 20; ++k) gpu.accumulate(v, v, large);
  timer.stop(b);
  const std::vector<std::uint64_t> ns = timer.collect();
  REQUIRE(ns.size() == 2);
  CHECK(ns[1] > ns[0]);  // 20 passes over 256 MB against one zeroing of 4 KB
  CHECK(timer.collect().empty());
  gpu_values().reset();
}
