#pragma once
// Device agreement: every registered op, run on a device under test through the dispatch path
// (Device::forward / Device::backward, host_check included), gives the values and argument
// gradients of its CPU row run on host memory. The same checks serve GPU:0 (dybatch_gpu_tests:
// the CUDA kernels) and the guarded CPU device (dybatch_tests: the path, on every commit, with no
// GPU), in the calls engines make:
// - single: one node, from the op's gradient-check instances, among them one whose output has
//   several batch elements (batched) and one with an argument broadcast along the batch
//   (broadcast), where the check's random shapes give them;
// - overwrite: backward with OpCall::overwrite, for rows with backward_overwrites, into a
//   gradient full of NaN that must end as exactly the gradient (or, for slices, its span written
//   and the rest untouched); otherwise into a seeded gradient that must end as seed + gradient;
// - transposes: backward with a TransposeCache (OpCall::transposes), which GEMM's shared-weight
//   products may read W^T from;
// - multi-node: K nodes of one signature as one call, as the batched engine makes it
//   (OpCall::nodes = K, data per node, concatenated arguments, shared ones passed once), against
//   K single-node CPU results.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dynet_core/device/device.h"
#include "dynet_core/expression.h"
#include "dynet_core/ops/check_case.h"

namespace device_agreement {

/// What a run covered, for the test's summary line.
struct Coverage {
  unsigned ops = 0;                                    ///< ops checked
  unsigned instances = 0;                              ///< single-node instances
  unsigned groups = 0;                                 ///< multi-node calls
  unsigned batched = 0, broadcast = 0, overwrite = 0;  ///< ops with at least one such call
  std::vector<std::string> skipped;                    ///< "op (reason)"
  std::vector<std::string> partial;                    ///< "op (what no instance covered)"
};

/// Runs every registered op with a kernel on `device` through the checks above, `seeds` random
/// instances each (plus the batched and broadcast ones), and fails a Catch2 assertion naming op,
/// seed, case, argument, element, device value and CPU value at the first disagreement.
Coverage check_every_op(dynet::Device& device, unsigned seeds);

/// The single-node checks on the one instance `build` makes, `what` naming it: shapes the random
/// checks never reach (a 10,000-class softmax, a sum over 600,000 floats) take the kernels' paths
/// for long columns and split reductions.
void check_instance(dynet::Device& device, const char* what,
                    const std::function<dynet::Expression(dynet::CheckCase&)>& build);

/// One line: the counts, then the ops skipped and the cases some ops lack, with reasons.
std::string summary(const Coverage& c);

}  // namespace device_agreement
