#pragma once
// Reading the predictions of many score vectors at once: they are put side by side and
// computed by one forward, so an autobatcher sees the whole graph before any value is read.

#include <vector>

#include "dynet_core/expression.h"

namespace examples {

/// The index of the largest element of each score vector (all of one size, batch size 1).
std::vector<unsigned> column_argmax(dynet::ComputationGraph& cg, const std::vector<dynet::Expression>& scores);

}  // namespace examples
