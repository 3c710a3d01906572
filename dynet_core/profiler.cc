#include "dynet_core/profiler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <unordered_map>

#include "dynet_core/device/device.h"
#include "dynet_core/init.h"
#include "dynet_core/op_def.h"
#include "dynet_core/signature.h"
#include "dynet_core/vertex_scope.h"

namespace dynet {
namespace profile {

void Phases::add(const Phases& o) {
  step_ns += o.step_ns;
  construction_ns += o.construction_ns;
  forward_ns += o.forward_ns;
  scheduling_ns += o.scheduling_ns;
  memory_ns += o.memory_ns;
  forward_kernel_ns += o.forward_kernel_ns;
  backward_ns += o.backward_ns;
  backward_kernel_ns += o.backward_kernel_ns;
  update_ns += o.update_ns;
  communication_ns += o.communication_ns;
  nodes += o.nodes;
  kernel_calls += o.kernel_calls;
  bytes_gathered += o.bytes_gathered;
  bytes_in_place += o.bytes_in_place;
  bytes_scattered += o.bytes_scattered;
  bytes_communicated += o.bytes_communicated;
}

namespace {

constexpr std::size_t kMaxTraceEvents = 1 << 16;

struct Event {
  std::uint64_t key;
  std::uint64_t start_ns, ns;
  std::uint32_t nodes;
  bool backward;
};

void merge(KernelStats& into, const KernelStats& k) {
  if (into.name.empty()) into.name = k.name;
  into.min_batch = into.calls ? std::min(into.min_batch, k.min_batch) : k.min_batch;
  into.max_batch = std::max(into.max_batch, k.max_batch);
  into.calls += k.calls;
  into.nodes += k.nodes;
  into.forward_ns += k.forward_ns;
  into.backward_ns += k.backward_ns;
}

void merge(VertexFunctionStats& into, const VertexFunctionStats& f) {
  if (into.name.empty()) into.name = f.name;
  into.instances += f.instances;
  into.tasks += f.tasks;
  into.fused_chains += f.fused_chains;
  into.bytes_gathered += f.bytes_gathered;
  into.bytes_scattered += f.bytes_scattered;
}

/// A kernel() record whose time is that of device clock slots [first, end).
struct DeviceTimed {
  std::uint64_t key;
  bool backward;
  std::uint64_t host_ns;
  std::size_t event;  // its trace event, or past the end when the trace was full
  unsigned first, end;
};

/// The open step of one thread.
struct Step {
  bool open = false;
  bool training = false;  // a backward pass or an update ran: see the rule in profiler.h
  std::uint64_t start_ns = 0;
  Phases phases;
  std::unordered_map<std::uint64_t, KernelStats> kernels;
  std::unordered_map<std::uint32_t, VertexFunctionStats> functions;
  std::vector<Event> events;
  PoolMarks pools;
  KernelClock* clock = nullptr;
  bool pending = false;  // slots [pending_first, pending_end) await their record
  unsigned pending_first = 0, pending_end = 0;
  std::vector<DeviceTimed> device_timed;
};

thread_local Step current;

/// Per signature whose groups share a parameter, what its kernel row's name ends with: " W=" and
/// the parameter's full name. Kept per thread, as steps are, from the nodes of its graphs; an
/// entry is made once per signature, so recording a kernel never allocates for it.
thread_local std::unordered_map<std::uint64_t, std::string> weight_suffixes;

/// Replaces the host times of device-timed records by the clock's.
void apply_device_times() {
  const std::vector<std::uint64_t> ns = current.clock->collect();
  for (const DeviceTimed& r : current.device_timed) {
    std::uint64_t device_ns = 0;
    for (unsigned s = r.first; s < r.end && s < ns.size(); ++s) device_ns += ns[s];
    KernelStats& k = current.kernels[r.key];
    std::uint64_t& kernel_ns = r.backward ? k.backward_ns : k.forward_ns;
    std::uint64_t& phase_ns = r.backward ? current.phases.backward_kernel_ns : current.phases.forward_kernel_ns;
    kernel_ns = kernel_ns - r.host_ns + device_ns;
    phase_ns = phase_ns - r.host_ns + device_ns;
    if (r.event < current.events.size()) current.events[r.event].ns = device_ns;
  }
}

/// Everything recorded by all threads; printed at exit when profiling is on.
struct Totals {
  std::mutex mutex;
  std::uint64_t steps = 0, evaluation_graphs = 0;
  Phases total, evaluation, last;
  bool last_awaits_update = false;  // the last training step ended with its graph, before an update
  std::unordered_map<std::uint64_t, KernelStats> kernels;
  std::unordered_map<std::uint32_t, VertexFunctionStats> functions;
  std::vector<Event> last_events;
  std::uint64_t last_start_ns = 0;
  PoolMarks pools;

  ~Totals() {
    if (steps + evaluation_graphs > 0 && current_params().profiling > 0) std::fputs(report(snapshot()).c_str(), stderr);
  }
};

Totals& totals() {
  static Totals t;
  return t;
}

std::string milliseconds(std::uint64_t ns) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", ns / 1e6);
  return buf;
}

void print_step_line(const char* what, std::uint64_t index, const Phases& p) {
  // Every step for the first ten, then every hundredth, so that long runs stay readable.
  if (index > 10 && index % 100 != 0) return;
  std::fprintf(stderr,
               "[profile] %s %llu: %s ms | build %s | forward %s (scheduling %s, kernels %s) | backward %s | "
               "update %s | %llu nodes in %llu groups\n",
               what, static_cast<unsigned long long>(index), milliseconds(p.step_ns).c_str(),
               milliseconds(p.construction_ns).c_str(), milliseconds(p.forward_ns).c_str(),
               milliseconds(p.scheduling_ns).c_str(), milliseconds(p.forward_kernel_ns).c_str(),
               milliseconds(p.backward_ns).c_str(), milliseconds(p.update_ns).c_str(),
               static_cast<unsigned long long>(p.nodes), static_cast<unsigned long long>(p.kernel_calls));
}

}  // namespace

namespace {
thread_local unsigned step_spans = 0;
thread_local unsigned unrecorded = 0;
}  // namespace

bool enabled() { return current_params().profiling > 0 && unrecorded == 0; }

StepSpan::StepSpan() { ++step_spans; }
StepSpan::~StepSpan() { --step_spans; }
Unrecorded::Unrecorded() { ++unrecorded; }
Unrecorded::~Unrecorded() { --unrecorded; }

void end_graph_step(const Device* device) {
  if (step_spans == 0) end_step(device);
}

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

void touch_step() {
  if (current.open) return;
  current.open = true;
  current.start_ns = now_ns();
}

void add_time(Phase phase, std::uint64_t ns) {
  touch_step();
  Phases& p = current.phases;
  switch (phase) {
    case Phase::Construction:
      p.construction_ns += ns;
      break;
    case Phase::Forward:
      p.forward_ns += ns;
      break;
    case Phase::Scheduling:
      p.scheduling_ns += ns;
      break;
    case Phase::Memory:
      p.memory_ns += ns;
      break;
    case Phase::Backward:
      p.backward_ns += ns;
      break;
    case Phase::Update:
      p.update_ns += ns;
      break;
  }
  if (phase == Phase::Backward || phase == Phase::Update) current.training = true;
}

void add_bytes(std::uint64_t gathered, std::uint64_t in_place, std::uint64_t scattered) {
  current.phases.bytes_gathered += gathered;
  current.phases.bytes_in_place += in_place;
  current.phases.bytes_scattered += scattered;
}

void add_communication(std::uint64_t ns, std::uint64_t bytes) {
  touch_step();
  current.training = true;  // gradients are summed for an update
  current.phases.communication_ns += ns;
  current.phases.bytes_communicated += bytes;
}

void kernel(std::uint64_t key, const OpDef& op, const Dim& node_dim, unsigned nodes, bool backward,
            std::uint64_t start_ns, std::uint64_t ns) {
  touch_step();
  KernelStats& k = current.kernels[key];
  if (k.name.empty()) {
    k.name = std::string(op.name) + " " + to_string(node_dim);
    const auto weight = weight_suffixes.find(key);
    if (weight != weight_suffixes.end()) k.name += weight->second;
  }
  if (backward) {
    current.training = true;
    k.backward_ns += ns;
    current.phases.backward_kernel_ns += ns;
  } else {
    k.min_batch = k.calls ? std::min<std::uint32_t>(k.min_batch, nodes) : nodes;
    k.max_batch = std::max<std::uint32_t>(k.max_batch, nodes);
    ++k.calls;
    k.nodes += nodes;
    k.forward_ns += ns;
    current.phases.forward_kernel_ns += ns;
    current.phases.nodes += nodes;
    ++current.phases.kernel_calls;
  }
  std::size_t event = ~std::size_t(0);
  if (current.events.size() < kMaxTraceEvents) {
    event = current.events.size();
    current.events.push_back({key, start_ns, ns, nodes, backward});
  }
  if (current.pending) {
    current.device_timed.push_back({key, backward, ns, event, current.pending_first, current.pending_end});
    current.pending = false;
  }
}

void device_timed(KernelClock& clock, unsigned slot) {
  if (current.clock && current.clock != &clock) return;
  current.clock = &clock;
  if (!current.pending) current.pending_first = slot;
  current.pending = true;
  current.pending_end = slot + 1;
}

void vertex_task(std::uint32_t id, std::uint64_t scope_key, unsigned instances, std::uint64_t gathered,
                 std::uint64_t scattered) {
  VertexFunctionStats& f = current.functions[id];
  if (f.name.empty()) f.name = vertex_key_name(scope_key) + " #" + std::to_string(id);
  if (instances) {
    f.instances += instances;
    ++f.tasks;
  }
  f.bytes_gathered += gathered;
  f.bytes_scattered += scattered;
}

void fused_chain(std::uint32_t id, std::uint64_t scope_key, unsigned ops, const Dim& node_dim, unsigned nodes,
                 bool backward, std::uint64_t start_ns, std::uint64_t ns) {
  touch_step();
  const std::uint64_t key = (std::uint64_t(0xF05Eu) << 48) ^ (std::uint64_t(id) << 16) ^ ops ^ node_dim.size();
  KernelStats& k = current.kernels[key];
  if (k.name.empty()) k.name = "fused " + std::to_string(ops) + " ops " + to_string(node_dim);
  if (backward) {
    current.training = true;
    k.backward_ns += ns;
    current.phases.backward_kernel_ns += ns;
    if (current.events.size() < kMaxTraceEvents) current.events.push_back({key, start_ns, ns, nodes, true});
    return;
  }
  k.min_batch = k.calls ? std::min<std::uint32_t>(k.min_batch, nodes) : nodes;
  k.max_batch = std::max<std::uint32_t>(k.max_batch, nodes);
  ++k.calls;
  k.nodes += nodes;  // per op, as its batch column reads
  k.forward_ns += ns;
  current.phases.forward_kernel_ns += ns;
  current.phases.nodes += std::uint64_t(nodes) * ops;
  ++current.phases.kernel_calls;
  if (current.events.size() < kMaxTraceEvents) current.events.push_back({key, start_ns, ns, nodes, false});
  VertexFunctionStats& f = current.functions[id];
  if (f.name.empty()) f.name = vertex_key_name(scope_key) + " #" + std::to_string(id);
  ++f.fused_chains;
}

void note_node(const Node& n, const Node* const* args) {
  const Node* weight = nullptr;
  for (unsigned i = 0; i < n.nargs; ++i) {
    const Node& a = *args[i];
    if (a.op->parameter_name && shared_argument(*n.op, i, a, n.dim) && (!weight || a.dim.size() > weight->dim.size()))
      weight = &a;
  }
  if (!weight) return;
  const char* name = weight->op->parameter_name(weight->data);
  std::string& suffix = weight_suffixes[n.signature];
  // A signature knows a parameter by its memory, which a later parameter may reuse under another name.
  if (suffix.empty() || suffix.compare(3, std::string::npos, name) != 0) suffix = std::string(" W=") + name;
}

void note_pools(const GraphMemory& memory) {
  PoolMarks& m = current.pools;
  m.forward = std::max(m.forward, memory.forward.high_water());
  m.backward = std::max(m.backward, memory.backward.high_water());
  m.scratch = std::max(m.scratch, memory.scratch.high_water());
}

void end_step(const Device* device) {
  if (!current.open) return;
  if (current.clock) apply_device_times();
  current.phases.step_ns = now_ns() - current.start_ns;
  if (device) current.pools.parameters = device->parameter_bytes_high_water();
  Totals& t = totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  const bool training = current.training;
  // A program that lets its graph go before the update ends the step there; the update that
  // follows belongs to that step, not to one of its own.
  const Phases& p = current.phases;
  if (t.last_awaits_update && p.update_ns > 0 && p.nodes == 0 && p.construction_ns == 0 && p.forward_ns == 0 &&
      p.backward_ns == 0) {
    t.total.add(p);
    t.last.add(p);
    t.last_awaits_update = false;
    current = Step();
    return;
  }
  (training ? t.total : t.evaluation).add(current.phases);
  const std::uint64_t index = training ? ++t.steps : ++t.evaluation_graphs;
  for (const auto& kv : current.kernels) merge(t.kernels[kv.first], kv.second);
  for (const auto& kv : current.functions) merge(t.functions[kv.first], kv.second);
  if (training) t.last_awaits_update = current.phases.update_ns == 0;
  if (training || t.steps == 0) {
    t.last = current.phases;
    t.last_events.swap(current.events);
    t.last_start_ns = current.start_ns;
  }
  t.pools.forward = std::max(t.pools.forward, current.pools.forward);
  t.pools.backward = std::max(t.pools.backward, current.pools.backward);
  t.pools.scratch = std::max(t.pools.scratch, current.pools.scratch);
  t.pools.parameters = std::max(t.pools.parameters, current.pools.parameters);
  print_step_line(training ? "step" : "evaluation graph", index, current.phases);
  current = Step();
}

Snapshot snapshot() {
  Totals& t = totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  Snapshot s;
  s.level = current_params().profiling;
  s.steps = t.steps;
  s.total = t.total;
  s.evaluation_graphs = t.evaluation_graphs;
  s.evaluation = t.evaluation;
  s.last_step = t.last;
  s.high_water = t.pools;
  for (const auto& kv : t.kernels) s.kernels.push_back(kv.second);
  for (const Event& e : t.last_events) {
    const auto k = t.kernels.find(e.key);
    s.last_step_events.push_back({k == t.kernels.end() ? std::string("?") : k->second.name, e.backward,
                                  e.start_ns - t.last_start_ns, e.ns, e.nodes});
  }
  std::sort(s.kernels.begin(), s.kernels.end(), [](const KernelStats& a, const KernelStats& b) {
    return a.forward_ns + a.backward_ns > b.forward_ns + b.backward_ns;
  });
  for (const auto& kv : t.functions) s.functions.push_back(kv.second);
  std::sort(s.functions.begin(), s.functions.end(),
            [](const VertexFunctionStats& a, const VertexFunctionStats& b) { return a.instances > b.instances; });
  return s;
}

void reset() {
  Totals& t = totals();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.steps = t.evaluation_graphs = 0;
  t.last_awaits_update = false;
  t.total = t.evaluation = t.last = Phases();
  t.kernels.clear();
  t.functions.clear();
  t.last_events.clear();
  t.pools = PoolMarks();
  current = Step();
}

}  // namespace profile
}  // namespace dynet
