#pragma once
// Zero-gradient steps of a lookup table's rows that a CPU update kernel has not run yet.
//
// A dense update steps every row, those no gradient reached with a zero gradient. Where such a step
// changes no value, only state that the row's own later steps read (Adam's, wherever the first
// moment is +0: the second moment decays, nothing else changes), the kernel may count it instead
// of running it, and run the counted steps, the same arithmetic in the same order, before the row's
// next step or whenever its state is read (checkpoints) or the rule's constants change. The values
// a model reads are then exactly those of stepping every row every time.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dynet {

struct DeferredRows {
  std::vector<std::uint32_t> steps;  ///< per row, the zero-gradient steps counted and not run
  std::size_t row_size = 0;
  /// Whether some row may have counted steps, and the constant and denormal mode they were counted
  /// under (Adam's beta_2): a call of other constants runs them first.
  bool any = false;
  float decay = 0.f;
  bool flush_denormals = false;
};

}  // namespace dynet
