#include "workloads/measurement.h"

#include <chrono>
#include <cstdio>

namespace bench {

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::string flag(int value) { return value < 0 ? "-" : std::to_string(value); }

}  // namespace

Measurement measure(double budget_s, const std::vector<std::size_t>& largest,
                    const std::function<StepCost(std::size_t)>& step) {
  std::size_t k = 0;
  const Clock::time_point warm_start = Clock::now();
  for (std::size_t s : largest) step(s);
  do step(k++);
  while (since(warm_start) < 0.1 * budget_s);
  Measurement m;
  const Clock::time_point start = Clock::now();
  while (m.steps == 0 || since(start) < budget_s) {
    const StepCost c = step(k++);
    m.total.items += c.items;
    m.total.flops += c.flops;
    m.total.build_s += c.build_s;
    m.total.nodes += c.nodes;
    m.total.forward_s += c.forward_s;
    m.total.backward_s += c.backward_s;
    m.total.update_s += c.update_s;
    ++m.steps;
  }
  m.seconds = since(start);
  return m;
}

void report(const RunLabel& l, const Measurement& m) {
  const double steps = double(m.steps), per_s = m.total.items / m.seconds, gflops = m.total.flops / m.seconds / 1e9;
  const double step_ms = 1e3 * m.seconds / steps, build_ms = 1e3 * m.total.build_s / steps;
  const double forward_ms = 1e3 * m.total.forward_s / steps, backward_ms = 1e3 * m.total.backward_s / steps,
               update_ms = 1e3 * m.total.update_s / steps;
  std::printf("RESULT task=%s impl=%s variant=%s batch=%u hidden=%u threads=%u autobatch=%s vertex=%s updates=%s "
              "unit=%s items_per_s=%.3f gflops=%.4f step_ms=%.4f build_ms=%.4f build_share=%.5f "
              "nodes_per_graph=%.1f forward_ms=%.4f backward_ms=%.4f update_ms=%.4f steps=%zu seconds=%.3f\n",
              l.task.c_str(), l.impl.c_str(), l.variant.c_str(), l.batch, l.hidden, l.threads,
              flag(l.autobatch).c_str(), flag(l.vertex).c_str(), l.updates.c_str(), l.unit.c_str(), per_s, gflops,
              step_ms, build_ms, m.total.build_s / m.seconds, m.total.nodes / steps, forward_ms, backward_ms, update_ms,
              m.steps, m.seconds);
  std::printf("%s %s %s, %u a step, hidden %u, %u thread%s: %.0f %s/s, %.1f GFLOP/s, %.2f ms a step", l.task.c_str(),
              l.impl.c_str(), l.variant.c_str(), l.batch, l.hidden, l.threads, l.threads == 1 ? "" : "s", per_s,
              l.unit.c_str(), gflops, step_ms);
  if (m.total.nodes > 0)
    std::printf(", graph construction %.2f ms (%.1f%%) for %.0f nodes", build_ms, 100 * m.total.build_s / m.seconds,
                m.total.nodes / steps);
  if (m.total.update_s > 0)
    std::printf(", forward %.2f ms, backward %.2f ms, update %.2f ms (%s)", forward_ms, backward_ms, update_ms,
                l.updates.c_str());
  std::printf(" (%zu steps in %.1f s)\n", m.steps, m.seconds);
  if (m.before && m.after)
    std::printf("held out (%zu examples): loss %.4f a token before training, %.4f after; every token right in %.1f%% "
                "before, %.1f%% after\n",
                m.after->examples, m.before->loss, m.after->loss, 100 * m.before->exact, 100 * m.after->exact);
  std::fflush(stdout);
}

}  // namespace bench
