#include <catch2/catch.hpp>

#include <vector>

#include "autobatch/group_record.h"
#include "dynet_core/ops/all_ops.h"

using namespace dynet;

namespace {

struct Runs {
  std::vector<std::uint32_t> starts, lengths, groups, positions;
};

Runs runs_of(const ComputationGraph& cg, const GroupRecord& r, const std::vector<VariableIndex>& nodes) {
  Runs out;
  r.for_each_run(cg, nodes.data(), static_cast<std::uint32_t>(nodes.size()), 0,
                 [&](std::uint32_t j, std::uint32_t n, std::uint32_t group, std::uint32_t position, VariableIndex) {
                   out.starts.push_back(j);
                   out.lengths.push_back(n);
                   out.groups.push_back(group);
                   out.positions.push_back(position);
                 });
  return out;
}

}  // namespace

TEST_CASE("the group record knows each node's group and position, and runs of consecutive outputs",
          "[autobatch][record]") {
  ComputationGraph cg;
  std::vector<Expression> xs, ys;
  for (unsigned k = 0; k < 4; ++k) xs.push_back(input(cg, Dim({2}), {float(k), 1.f}));
  for (unsigned k = 0; k < 4; ++k) ys.push_back(tanh(xs[k]));
  const Expression lone = input(cg, Dim({2}), {9.f, 9.f});
  const Expression after_lone = tanh(lone);
  std::vector<float> block(8);

  GroupRecord r;
  r.cover(cg.size());
  const std::vector<VariableIndex> group0{xs[0].i, xs[1].i, xs[2].i, xs[3].i};
  CHECK(r.add_group(cg, group0.data(), 4, block.data(), 2) == 0);
  REQUIRE(r.size() == 1);
  CHECK(std::vector<VariableIndex>(r.nodes(r[0]), r.nodes(r[0]) + 4) == group0);
  CHECK(r[0].count == 4);
  CHECK(r[0].values == block.data());
  CHECK(r.data(r[0])[2] == cg.node(xs[2].i).data);
  for (unsigned k = 0; k < 4; ++k) {
    CHECK(r.group_of(xs[k].i) == 0);
    CHECK(r.position_of(xs[k].i) == k);
    CHECK(cg.node(xs[k].i).value == block.data() + 2 * k);
  }
  CHECK(r.group_of(lone.i) == GroupRecord::kNoGroup);

  std::uint32_t producer = 0, offset = 0;
  const std::vector<VariableIndex> in_order{ys[1].i, ys[2].i, ys[3].i};
  CHECK(r.consecutive_outputs(cg, in_order.data(), 3, 0, producer, offset));
  CHECK(producer == 0);
  CHECK(offset == 1);
  const std::vector<VariableIndex> swapped{ys[1].i, ys[0].i};
  CHECK(!r.consecutive_outputs(cg, swapped.data(), 2, 0, producer, offset));

  // Runs: [y0, y1] from position 0, then y3 alone (position 3), then a node in no group.
  const Runs runs = runs_of(cg, r, {ys[0].i, ys[1].i, ys[3].i, after_lone.i});
  CHECK(runs.starts == std::vector<std::uint32_t>{0, 2, 3});
  CHECK(runs.lengths == std::vector<std::uint32_t>{2, 1, 1});
  CHECK(runs.groups == std::vector<std::uint32_t>{0, 0, GroupRecord::kNoGroup});
  CHECK(runs.positions == std::vector<std::uint32_t>{0, 3, runs.positions[2]});

  // A second group records its arguments after the first's.
  CHECK(r.add_group(cg, in_order.data(), 3, block.data(), 2) == 1);
  r.add_argument({block.data() + 2, 0, 1, false});
  CHECK(r.args(r[1])[0].offset == 1);
  CHECK(r.group_of(ys[3].i) == 1);
  CHECK(r.position_of(ys[3].i) == 2);
  r.clear();
  CHECK(r.size() == 0);
}

TEST_CASE("a group is well-formed only when its nodes share the op and the signature", "[autobatch][record]") {
  ComputationGraph cg;
  const Expression a = input(cg, Dim({2}), {1.f, 2.f}), b = input(cg, Dim({2}), {3.f, 4.f});
  const Expression wide = input(cg, Dim({3}), {1.f, 2.f, 3.f});
  const std::vector<VariableIndex> same{tanh(a).i, tanh(b).i};
  const std::vector<VariableIndex> other_op{tanh(a).i, exp(b).i};
  const std::vector<VariableIndex> other_shape{tanh(a).i, tanh(wide).i};
  CHECK(one_op_and_signature(cg, same.data(), 2));
  CHECK(!one_op_and_signature(cg, other_op.data(), 2));
  CHECK(!one_op_and_signature(cg, other_shape.data(), 2));
}
