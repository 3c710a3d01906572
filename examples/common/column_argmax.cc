#include "examples/common/column_argmax.h"

#include <algorithm>

#include "dynet_core/graph.h"
#include "dynet_core/ops/shape.h"

namespace examples {

std::vector<unsigned> column_argmax(dynet::ComputationGraph& cg, const std::vector<dynet::Expression>& scores) {
  if (scores.empty()) return {};
  const unsigned rows = scores[0].dim().rows();
  const std::vector<float> columns = as_vector(cg.forward(dynet::concatenate_cols(scores)));
  std::vector<unsigned> best;
  for (auto first = columns.begin(); first != columns.end(); first += rows)
    best.push_back(static_cast<unsigned>(std::max_element(first, first + rows) - first));
  return best;
}

}  // namespace examples
