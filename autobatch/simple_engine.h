#pragma once
// Node by node: the reference every other engine is tested against. Under --dynet-vertex 0 in
// graph order; under 1 and 2 in an order that runs chains of sole readers late (tail_order.h),
// and, as in the batched engine, a node's part of a trainable parameter's gradient waits and the
// parts of one signature are added as one product at the end of backward
// (lazy_weight_gradients.h): a recurrent model's steps then add one large product per weight
// instead of one rank-few update each. Under --dynet-vertex 0 each node adds its own, and so does
// a node whose output spans kWaitBelowColumns columns or more. Under 1 and 2 too, affine
// transforms over inputs known in advance take their input products from one product computed
// ahead, and add their input gradients as one (leading_products.h).

#include <cstddef>
#include <cstdint>
#include <vector>

#include "autobatch/engine_base.h"
#include "autobatch/group_record.h"
#include "autobatch/vertex/lazy_weight_gradients.h"
#include "autobatch/vertex/leading_products.h"
#include "autobatch/vertex/tail_order.h"

namespace dynet {

class SimpleEngine : public EngineBase {
 public:
  /// A node of this many output columns (all batch elements together) adds its weight-gradient
  /// parts at once: its product is wide enough already. Measured, one column a node gained 4-47%
  /// (the taggers and treenn at one example a graph), 8 columns came out level, and the 16 of
  /// rnnlm-batch's output layer lost 5% to the copies of inputs and output gradients that waiting
  /// needs.
  static constexpr std::size_t kWaitBelowColumns = 16;

 protected:
  void forward_nodes(VariableIndex begin, VariableIndex end) override;
  void backward_nodes(VariableIndex last, const std::uint8_t* needs) override;
  void on_forget() override;
  void on_truncate(VariableIndex n) override;

 private:
  /// The arguments of node j whose gradient parts wait in lazy_ (bit k: argument k), recording
  /// the node as a group of its own for them; 0 when none may.
  std::uint64_t leave_weight_gradients(VariableIndex j, const std::uint8_t* needs);

  GroupRecord record_;              // of the backward pass running: one group per node with waiting parts
  std::vector<float*> group_grad_;  // per group: its node's gradient
  LazyWeightGradients lazy_;
  TailOrder order_;
  LeadingProducts ahead_;
};

}  // namespace dynet
