#include <catch2/catch.hpp>

#include <vector>

#include "autobatch/argument_placement.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "support/host_device.h"

using namespace dynet;

namespace {

/// Records `nodes` as one group whose outputs are `values`, every `stride` floats.
void record_group(ComputationGraph& cg, GroupRecord& r, const std::vector<VariableIndex>& nodes, float* values,
                  std::uint32_t stride) {
  r.add_group(cg, nodes.data(), static_cast<std::uint32_t>(nodes.size()), values, stride);
}

}  // namespace

TEST_CASE("arguments are read in place, shared or gathered", "[autobatch][placement]") {
  ParameterCollection pc;
  Parameter W = pc.add_parameters({2, 2});
  ComputationGraph cg(&test_support::host_device());
  std::vector<Expression> xs;
  for (unsigned k = 0; k < 3; ++k) xs.push_back(input(cg, Dim({2}), {0.f, 0.f}));
  const Expression lone = input(cg, Dim({2}), {0.f, 0.f});
  const Expression w = parameter(cg, W);
  std::vector<float> block{0, 1, 10, 11, 20, 21}, lone_value{90, 91};
  GroupRecord r;
  r.cover(cg.size());
  record_group(cg, r, {xs[0].i, xs[1].i, xs[2].i}, block.data(), 2);
  cg.node(lone.i).value = lone_value.data();

  const std::vector<VariableIndex> in_order{tanh(xs[1]).i, tanh(xs[2]).i};
  r.cover(cg.size());
  ArgumentPlace p = place_argument(cg, r, in_order.data(), 2, 0);
  CHECK(p.how == Placement::InPlace);
  CHECK(p.values == block.data() + 2);
  CHECK(p.producer == 0);
  CHECK(p.offset == 1);

  const std::vector<VariableIndex> products{(w * xs[0]).i, (w * xs[1]).i};
  r.cover(cg.size());
  CHECK(place_argument(cg, r, products.data(), 2, 0).how == Placement::Shared);
  CHECK(place_argument(cg, r, products.data(), 2, 1).how == Placement::InPlace);

  const std::vector<VariableIndex> mixed{tanh(xs[2]).i, tanh(lone).i, tanh(xs[0]).i, tanh(xs[1]).i};
  r.cover(cg.size());
  p = place_argument(cg, r, mixed.data(), 4, 0);
  CHECK(p.how == Placement::Gathered);
  CHECK(p.producer == GroupRecord::kNoGroup);
  std::vector<float> gathered(8, -1.f);
  GroupArg arg{nullptr, p.producer, 0, false};
  r.add_runs(cg, mixed.data(), 4, 0, arg);
  CHECK(arg.runs == 3);  // xs[2], lone, then xs[0] and xs[1] as one run
  std::vector<MemoryRun> runs;
  gather_argument(cg, r, arg, 2, gathered.data(), runs);
  CHECK(gathered == std::vector<float>{20, 21, 90, 91, 0, 1, 10, 11});
}

TEST_CASE("slices of computed values are views, consecutive outputs of a view are gathered", "[autobatch][placement]") {
  ParameterCollection pc;
  Parameter b = pc.add_parameters({4});
  ComputationGraph cg(&test_support::host_device());
  std::vector<Expression> xs;
  for (unsigned k = 0; k < 2; ++k) xs.push_back(input(cg, Dim({4}), {0.f, 0.f, 0.f, 0.f}));
  std::vector<float> block{0, 1, 2, 3, 10, 11, 12, 13};
  GroupRecord r;
  r.cover(cg.size());
  record_group(cg, r, {xs[0].i, xs[1].i}, block.data(), 4);
  for (unsigned k = 0; k < 2; ++k) cg.node(xs[k].i).value = block.data() + 4 * k;

  const Expression s0 = pick_range(xs[0], 1, 3), s1 = pick_range(xs[1], 1, 3);
  const std::vector<VariableIndex> slices{s0.i, s1.i};
  r.cover(cg.size());
  std::uint32_t stride = 0;
  float* view = view_of_argument(cg, r, slices.data(), 2, stride);
  CHECK(view == block.data() + 1);
  CHECK(stride == 4);
  const std::vector<VariableIndex> one{slices[1]};
  CHECK(view_of_argument(cg, r, one.data(), 1, stride) == block.data() + 5);
  CHECK(stride == 2);
  const std::vector<VariableIndex> of_parameter{pick_range(parameter(cg, b), 0, 2).i};
  r.cover(cg.size());
  CHECK(view_of_argument(cg, r, of_parameter.data(), 1, stride) == nullptr);

  // The slices' outputs are 2 floats every 4: a reader of both gathers them.
  record_group(cg, r, slices, block.data() + 1, 4);
  const std::vector<VariableIndex> readers{tanh(s0).i, tanh(s1).i};
  r.cover(cg.size());
  const ArgumentPlace p = place_argument(cg, r, readers.data(), 2, 0);
  CHECK(p.how == Placement::Gathered);
  CHECK(p.producer == 1);
  std::vector<float> gathered(4);
  GroupArg arg{nullptr, p.producer, p.offset, false};
  r.add_runs(cg, readers.data(), 2, 0, arg);
  std::vector<MemoryRun> runs;
  gather_argument(cg, r, arg, 2, gathered.data(), runs);
  CHECK(gathered == std::vector<float>{1, 2, 11, 12});
}
