// The profiler's report (profiler.h): the phase, kernel and vertex tables printed at exit.
#include <algorithm>
#include <cstdio>
#include <string>

#include "dynet_core/profiler.h"

namespace dynet {
namespace profile {

namespace {

std::string format(const char* fmt, double a) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, a);
  return buf;
}

std::string duration(std::uint64_t ns) {
  if (ns >= 10000000000ull) return format("%.1f s", ns / 1e9);
  if (ns >= 1000000ull) return format("%.2f ms", ns / 1e6);
  return format("%.1f us", ns / 1e3);
}

std::string bytes(std::uint64_t b) {
  if (b >= (1ull << 30)) return format("%.2f GiB", b / double(1ull << 30));
  if (b >= (1ull << 20)) return format("%.1f MiB", b / double(1ull << 20));
  return format("%.1f KiB", b / 1024.0);
}

void row(std::string& out, const char* name, std::uint64_t ns, std::uint64_t steps, std::uint64_t step_ns) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "  %-28s %12s %12s %9.1f%%\n", name, duration(ns).c_str(),
                duration(steps ? ns / steps : 0).c_str(), step_ns ? 100.0 * ns / step_ns : 0.0);
  out += buf;
}

}  // namespace

std::string report(const Snapshot& s) {
  const Phases& t = s.total;
  std::string out;
  char buf[512];  // a kernel row is as long as its parameter's name
  std::snprintf(buf, sizeof buf, "dybatch profile: %llu training steps (forward+backward), %s in all, %s per step\n",
                static_cast<unsigned long long>(s.steps), duration(t.step_ns).c_str(),
                duration(s.steps ? t.step_ns / s.steps : 0).c_str());
  out += buf;
  if (s.evaluation_graphs) {
    const Phases& e = s.evaluation;
    std::snprintf(buf, sizeof buf,
                  "  and %llu evaluation graphs (forward only), %s in all: construction %s, forward %s (kernels %s); "
                  "not in the phases below, in the kernel table\n",
                  static_cast<unsigned long long>(s.evaluation_graphs), duration(e.step_ns).c_str(),
                  duration(e.construction_ns).c_str(), duration(e.forward_ns).c_str(),
                  duration(e.forward_kernel_ns).c_str());
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "  %-28s %12s %12s %10s\n", "phase", "total", "per step", "% of step");
  out += buf;
  const std::uint64_t accounted = t.construction_ns + t.forward_ns + t.backward_ns + t.update_ns + t.communication_ns;
  row(out, "graph construction", t.construction_ns, s.steps, t.step_ns);
  row(out, "forward", t.forward_ns, s.steps, t.step_ns);
  row(out, "  scheduling", t.scheduling_ns, s.steps, t.step_ns);
  row(out, "  kernels", t.forward_kernel_ns, s.steps, t.step_ns);
  row(out, "backward", t.backward_ns, s.steps, t.step_ns);
  row(out, "  kernels", t.backward_kernel_ns, s.steps, t.step_ns);
  row(out, "memory movement (fwd+bwd)", t.memory_ns, s.steps, t.step_ns);
  row(out, "trainer update", t.update_ns, s.steps, t.step_ns);
  if (t.bytes_communicated) row(out, "communication", t.communication_ns, s.steps, t.step_ns);
  row(out, "other (caller's code)", t.step_ns > accounted ? t.step_ns - accounted : 0, s.steps, t.step_ns);
  const double moved = double(t.bytes_gathered + t.bytes_in_place);
  std::snprintf(buf, sizeof buf, "  nodes %llu in %llu kernel calls (mean batch %.1f); construction %.1f ns/node\n",
                static_cast<unsigned long long>(t.nodes), static_cast<unsigned long long>(t.kernel_calls),
                t.kernel_calls ? double(t.nodes) / t.kernel_calls : 0.0,
                t.nodes ? double(t.construction_ns) / t.nodes : 0.0);
  out += buf;
  std::snprintf(buf, sizeof buf, "  batch inputs: %s gathered, %s read in place (%.1f%% gathered); %s scattered back\n",
                bytes(t.bytes_gathered).c_str(), bytes(t.bytes_in_place).c_str(),
                moved > 0 ? 100.0 * t.bytes_gathered / moved : 0.0, bytes(t.bytes_scattered).c_str());
  out += buf;
  if (t.bytes_communicated) {
    std::snprintf(buf, sizeof buf, "  communication: %s sent per step\n",
                  bytes(s.steps ? t.bytes_communicated / s.steps : 0).c_str());
    out += buf;
  }
  std::snprintf(buf, sizeof buf, "  pool high-water: forward %s, backward %s, scratch %s, parameters %s\n",
                bytes(s.high_water.forward).c_str(), bytes(s.high_water.backward).c_str(),
                bytes(s.high_water.scratch).c_str(), bytes(s.high_water.parameters).c_str());
  out += buf;
  if (s.level < 2) return out;
  std::uint64_t kernel_ns = 0;  // the rows count evaluation graphs' kernels too
  for (const KernelStats& k : s.kernels) kernel_ns += k.forward_ns + k.backward_ns;
  int width = 36;  // as wide as the longest row name, which a parameter's name can lengthen
  for (const KernelStats& k : s.kernels) width = std::max(width, static_cast<int>(k.name.size()));
  std::snprintf(buf, sizeof buf, "  %-*s %9s %11s %19s %12s %12s %8s\n", width, "kernel (op, shape of one node)",
                "calls", "nodes", "batch min/mean/max", "forward", "backward", "% kernels");
  out += buf;
  for (const KernelStats& k : s.kernels) {
    char batch[40];
    std::snprintf(batch, sizeof batch, "%u/%.1f/%u", k.min_batch, k.calls ? double(k.nodes) / k.calls : 0.0,
                  k.max_batch);
    std::snprintf(buf, sizeof buf, "  %-*s %9llu %11llu %19s %12s %12s %7.1f%%\n", width, k.name.c_str(),
                  static_cast<unsigned long long>(k.calls), static_cast<unsigned long long>(k.nodes), batch,
                  duration(k.forward_ns).c_str(), duration(k.backward_ns).c_str(),
                  kernel_ns ? 100.0 * (k.forward_ns + k.backward_ns) / kernel_ns : 0.0);
    out += buf;
  }
  if (s.functions.empty()) return out;
  std::snprintf(buf, sizeof buf, "  %-36s %9s %11s %19s %12s %12s %12s\n", "vertex function", "instances", "tasks",
                "instances per task", "fused chains", "gathered", "scattered");
  out += buf;
  for (const VertexFunctionStats& f : s.functions) {
    std::snprintf(buf, sizeof buf, "  %-36s %9llu %11llu %19.1f %12llu %12s %12s\n", f.name.c_str(),
                  static_cast<unsigned long long>(f.instances), static_cast<unsigned long long>(f.tasks),
                  f.tasks ? double(f.instances) / f.tasks : 0.0, static_cast<unsigned long long>(f.fused_chains),
                  bytes(f.bytes_gathered).c_str(), bytes(f.bytes_scattered).c_str());
    out += buf;
  }
  return out;
}

}  // namespace profile
}  // namespace dynet
