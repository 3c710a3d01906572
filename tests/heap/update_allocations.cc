// Every trainer's update allocates nothing on the heap once the first steps have grown its
// tables: with clipping taking the gradient norm, with sparse and dense updates of a lookup
// table, and under a learning-rate schedule. Its own program, since counting replaces the C
// allocator (bench/common/heap_counter.cc), which the sanitizers' builds own.

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "common/heap_counter.h"
#include "dynet_core/dybatch.h"
#include "trainers/all_trainers.h"

using namespace dynet;

namespace {

/// The most heap allocations any update makes after the first three, on a small model: a weight,
/// a bias and a table of which each step reads two rows.
std::size_t allocations_after_warm_up(const MakeTrainer& make, bool sparse, bool schedule) {
  ParameterCollection model;
  Parameter w = model.add_parameters({3, 4});
  Parameter b = model.add_parameters({3});
  LookupParameter table = model.add_lookup_parameters(50, {4});
  // Positive values, which EG's rule keeps positive (it takes their logarithms).
  w.set_value(std::vector<float>(12, 0.1f));
  b.set_value(std::vector<float>(3, 0.1f));
  for (unsigned row = 0; row < 50; ++row) table.initialize(row, std::vector<float>(4, 0.1f));
  std::unique_ptr<Trainer> trainer = make(model);
  trainer->sparse_updates_enabled = sparse;
  trainer->clip_threshold = 1e-3f;  // every step clips: the norm is taken and used
  if (schedule) trainer->learning_rate_schedule = [](unsigned) { return 0.01f; };
  std::size_t worst = 0;
  for (unsigned step = 0; step < 8; ++step) {
    ComputationGraph cg;
    Expression x = lookup(cg, table, step % 50) + lookup(cg, table, (7 * step + 3) % 50);
    Expression loss = squared_norm(parameter(cg, w) * x + parameter(cg, b));
    cg.forward(loss);
    cg.backward(loss);
    bench::start_heap_count();
    trainer->update();
    const bench::HeapCount heap = bench::stop_heap_count();
    if (step >= 3 && heap.calls > worst) worst = heap.calls;
  }
  return worst;
}

}  // namespace

TEST_CASE("Updates allocate nothing once warm", "[trainers][heap]") {
  // all_trainers() leaves out EG, whose rule needs positive values, and the cyclical schedule.
  std::vector<std::pair<std::string, MakeTrainer>> trainers(all_trainers().begin(), all_trainers().end());
  trainers.emplace_back("EGTrainer", [](ParameterCollection& m) { return std::make_unique<EGTrainer>(m); });
  trainers.emplace_back("CyclicalSGDTrainer",
                        [](ParameterCollection& m) { return std::make_unique<CyclicalSGDTrainer>(m); });
  for (const auto& [name, make] : trainers)
    for (bool sparse : {true, false})
      for (bool schedule : {false, true}) {
        INFO(name << (sparse ? " sparse" : " dense") << (schedule ? " with a schedule" : ""));
        CHECK(allocations_after_warm_up(make, sparse, schedule) == 0);
      }
}

int main(int argc, char** argv) {
  // The library's defaults; the arguments are Catch's (initialize rewrites the array it is given).
  char* program[] = {argv[0], nullptr};
  int program_argc = 1;
  char** program_argv = program;
  initialize(program_argc, program_argv);
  return Catch::Session().run(argc, argv);
}
