// The CUDA kernel table is registered and checked against the op registry on the host, so a
// missing kernel is caught here, on machines with no GPU.

#include <catch2/catch.hpp>

#include <set>
#include <stdexcept>
#include <string>

#include "dynet_core/device/kernel_table.h"
#include "dynet_core/ops/registry.h"
#include "gpu/kernel_table.h"
#include "gpu/trainer_updates.h"
#include "trainers/update_kernels.h"

using namespace dynet;

namespace {

void a_forward(const OpCall&) {}
void a_backward(const OpCall&, unsigned) {}

}  // namespace

TEST_CASE("every registered op has its CUDA kernels", "[gpu]") {
  register_all_ops();
  const gpu::KernelTable kernels = gpu::cuda_kernels();
  std::set<std::string> missing;
  for (const OpDef* op : registered_ops()) {
    const OpKernels* k = kernels.find(op->name);
    INFO(op->name);
    if (!k) {
      missing.insert(op->name);
      continue;
    }
    CHECK(k->forward);
    CHECK(bool(k->backward) == bool(op->backward));
    CHECK(bool(k->leaf_backward) == bool(op->leaf_backward));
  }
  CHECK(missing == std::set<std::string>{});
  // Installing the table, as the GPU device does when it starts, refuses any table with a gap.
  gpu::install_cuda_kernels();
  // The kernels a GPU device launches through Device::forward / backward are the CUDA ones.
  const OpDef* tanh_op = find_op("tanh");
  REQUIRE(tanh_op);
  const OpKernels& launched = kernel_table(DeviceType::GPU).at(tanh_op->id);
  CHECK(launched.forward == kernels.find("tanh")->forward);
  CHECK(launched.backward == kernels.find("tanh")->backward);
  CHECK(launched.forward != tanh_op->forward);
}

TEST_CASE("CUDA kernels for unknown ops or given twice are refused, naming the op", "[gpu]") {
  register_all_ops();
  const OpDef* tanh_op = find_op("tanh");
  REQUIRE(tanh_op);
  OpKernels full;
  full.forward = a_forward;
  full.backward = a_backward;

  gpu::KernelTable unknown;
  unknown.add({{"tanh", full}, {"no_such_op", full}});
  CHECK_THROWS_WITH(unknown.by_id(), Catch::Contains("'no_such_op', which is no registered op"));

  gpu::KernelTable twice;
  twice.add({{"tanh", full}, {"tanh", full}});
  CHECK_THROWS_WITH(twice.by_id(), Catch::Contains("two kernels for 'tanh'"));

  gpu::KernelTable forward_only;
  forward_only.add({gpu::kernel_for("tanh", a_forward)});
  const std::vector<OpKernels> table = forward_only.by_id();
  CHECK(table.at(tanh_op->id).forward == a_forward);
  CHECK(missing_kernels(table).find("tanh (backward)") != std::string::npos);
}

TEST_CASE("the GPU has an update kernel for every trainer rule, a backend lacking one is refused", "[gpu][trainers]") {
  gpu::install_update_kernels();
  UpdateKernels& gpu_kernels = update_kernels(DeviceType::GPU);
  const UpdateKernels& cpu_kernels = update_kernels(DeviceType::CPU);
  // The GPU launches its own kernels, not the CPU's host loops.
  CHECK(std::get<0>(gpu_kernels) != std::get<0>(cpu_kernels));
  CHECK(std::get<6>(gpu_kernels) != std::get<6>(cpu_kernels));
  const UpdateKernels installed = gpu_kernels;
  std::get<UpdateKernel<update_rules::Adam>>(gpu_kernels) = nullptr;
  CHECK_THROWS_WITH(check_update_kernels(DeviceType::GPU, "CUDA"),
                    Catch::Contains("device backend 'CUDA' lacks 1 of 7 trainer update kernels"));
  gpu_kernels = installed;
  check_update_kernels(DeviceType::GPU, "CUDA");
}
