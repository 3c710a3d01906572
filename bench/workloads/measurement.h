#pragma once
// Timing of a training workload under a time budget, and the two lines every workload program
// prints: one `RESULT key=value ...` line for scripts/bench and one line for a person (and a third,
// for a person, from a workload that scores its model on held-out examples).

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bench {

/// What one training step (build, forward, backward, update) did.
struct StepCost {
  double items = 0;    ///< sentences, words or trees trained on
  double flops = 0;    ///< products, forward and backward (workloads/flops.h)
  double build_s = 0;  ///< of it, building the graph (0 where the program has no separate graph)
  double nodes = 0;    ///< graph nodes (0 where there is no graph)
  /// The phases after building, where the program times them (one graph a step): forward,
  /// backward, and the trainer's update.
  double forward_s = 0, backward_s = 0, update_s = 0;
};

/// A model on held-out examples: its loss a predicted token, and the share of examples of which
/// it predicts every token best.
struct HeldOutScore {
  std::size_t examples = 0;
  double loss = 0, exact = 0;
};

struct Measurement {
  std::size_t steps = 0;
  double seconds = 0;
  StepCost total;
  /// Where the workload scores its model: before training and after the measured steps, so that a
  /// run shows that the model it times learns.
  std::optional<HeldOutScore> before, after;
};

/// Runs `step(0), step(1), ...`: warm-up steps for a tenth of the budget (one at least), then
/// measured steps until `budget_s` seconds have passed (one at least). The warm-up starts with
/// `largest` (Minibatches::largest_steps), so that the memory a program keeps between steps has
/// grown to its full size before timing starts: on a workload of seconds a step, growth in the
/// few measured steps would otherwise be most of what is measured.
Measurement measure(double budget_s, const std::vector<std::size_t>& largest,
                    const std::function<StepCost(std::size_t step)>& step);

/// The run's identity: which program, workload and settings.
struct RunLabel {
  std::string task, impl, variant, unit, updates;
  unsigned batch = 0, hidden = 0, threads = 1;
  int autobatch = -1, vertex = -1;  ///< -1: not a dybatch run, or the flag was not given
};

/// Prints the RESULT line and the human line, then the held-out scores where `m` has them.
void report(const RunLabel& label, const Measurement& m);

}  // namespace bench
