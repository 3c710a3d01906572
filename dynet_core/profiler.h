#pragma once
// Profiling (--dynet-profiling 1 or 2): where a training step's time goes. A step runs from the
// first node of a graph to the end of the trainer update that follows (or to the graph's end when
// no update comes; an update after a graph that is gone joins the step of that graph), and is split into graph construction, forward (scheduling, memory movement,
// kernels), backward (memory movement, kernels), and the update. Kernels are counted per batching
// signature. With profiling off every hook is one predictable branch.
//
// A step is a training step when a backward pass or a trainer update ran in it; a step that only
// built graphs and ran them forward (evaluation, decoding) is an evaluation graph. The two are
// summed apart, so that per-step figures are those of training.

#include <cstdint>
#include <string>
#include <vector>

#include "dynet_core/dim.h"

namespace dynet {

struct OpDef;
struct Node;
struct GraphMemory;
class Device;
class KernelClock;

namespace profile {

/// Time and bytes of one step, or of all steps summed. Times in nanoseconds.
struct Phases {
  std::uint64_t step_ns = 0;          ///< wall time of the step
  std::uint64_t construction_ns = 0;  ///< adding nodes, between evaluations
  std::uint64_t forward_ns = 0;       ///< forward and incremental_forward, wall
  std::uint64_t scheduling_ns = 0;    ///< part of forward: grouping nodes
  std::uint64_t memory_ns = 0;        ///< gathers (forward) and scatters (backward)
  std::uint64_t forward_kernel_ns = 0;
  std::uint64_t backward_ns = 0;  ///< backward, wall
  std::uint64_t backward_kernel_ns = 0;
  std::uint64_t update_ns = 0;         ///< trainer updates
  std::uint64_t communication_ns = 0;  ///< summing gradients over processes (DistributedReducer)
  std::uint64_t nodes = 0;             ///< nodes computed
  std::uint64_t kernel_calls = 0;      ///< forward kernel calls (groups)
  std::uint64_t bytes_gathered = 0;
  std::uint64_t bytes_in_place = 0;
  std::uint64_t bytes_scattered = 0;
  std::uint64_t bytes_communicated = 0;  ///< sent by this process to the others' collectives

  void add(const Phases& o);
};

/// One batching signature: how often its kernel ran, on how many nodes, for how long.
struct KernelStats {
  /// Op name and the shape of one node, e.g. "tanh {128}"; when the group shares parameters, then
  /// " W=" and the full name of the largest of them, e.g. "affine_transform {256} W=/decoder/gates".
  std::string name;
  std::uint64_t calls = 0;
  std::uint64_t nodes = 0;
  std::uint32_t min_batch = 0, max_batch = 0;
  std::uint64_t forward_ns = 0, backward_ns = 0;
};

/// One vertex function (autobatch/vertex): how many of its instances ran as units, in how many
/// tasks, how many elementwise chains its tasks ran fused, and the bytes its tasks gathered
/// (forward) and scattered (backward).
struct VertexFunctionStats {
  std::string name;  ///< the VertexScope key's name and the function's number
  std::uint64_t instances = 0, tasks = 0, fused_chains = 0;
  std::uint64_t bytes_gathered = 0, bytes_scattered = 0;
};

/// High-water marks of the memory pools, in bytes.
struct PoolMarks {
  std::size_t forward = 0, backward = 0, scratch = 0, parameters = 0;
};

/// One kernel call of the last completed step, for the Chrome trace.
struct TraceEvent {
  std::string name;
  bool backward;
  std::uint64_t start_ns;  ///< from the start of the step
  std::uint64_t ns;
  std::uint32_t nodes;
};

struct Snapshot {
  int level = 0;
  std::uint64_t steps = 0;                     ///< training steps (forward and backward)
  Phases total;                                ///< of the training steps
  std::uint64_t evaluation_graphs = 0;         ///< steps with no backward and no update
  Phases evaluation;                           ///< of the evaluation graphs
  Phases last_step;                            ///< the last training step, or the last evaluation graph while none ran
  std::vector<KernelStats> kernels;            ///< all steps, evaluation too, sorted by total time, largest first
  std::vector<VertexFunctionStats> functions;  ///< all steps, most instances first
  PoolMarks high_water;
  std::vector<TraceEvent> last_step_events;  ///< of last_step
};

/// The numbers so far (empty when profiling is off).
Snapshot snapshot();
/// Forgets everything recorded so far.
void reset();
/// The human report: per-phase table with units and % of the step; level 2 adds the kernels and
/// the vertex functions.
std::string report(const Snapshot& s);
/// The snapshot as JSON.
std::string to_json(const Snapshot& s);
/// The last completed step's kernel calls as a Chrome trace (chrome://tracing, Perfetto).
std::string to_chrome_trace(const Snapshot& s);
/// Writes to_json(snapshot()) / to_chrome_trace(snapshot()) to a file; throws std::runtime_error
/// naming the file when it cannot be written.
void write_json(const std::string& path);
void write_chrome_trace(const std::string& path);

/// While alive on this thread, the graphs that end here do not end the step: it runs on to the
/// trainer's update. DataParallel holds one on the calling thread, whose shard's graph is gone
/// before the update.
class StepSpan {
 public:
  StepSpan();
  ~StepSpan();
  StepSpan(const StepSpan&) = delete;
  StepSpan& operator=(const StepSpan&) = delete;
};

/// While alive on this thread, nothing done here is recorded (enabled() is false): the other
/// threads of DataParallel, whose shards the calling thread's shard stands for in the profile.
class Unrecorded {
 public:
  Unrecorded();
  ~Unrecorded();
  Unrecorded(const Unrecorded&) = delete;
  Unrecorded& operator=(const Unrecorded&) = delete;
};

// ---- recording, for graphs, engines and trainers; call only when enabled() ----

bool enabled();
/// Monotonic nanoseconds.
std::uint64_t now_ns();

enum class Phase { Construction, Forward, Scheduling, Memory, Backward, Update };
void add_time(Phase phase, std::uint64_t ns);
void add_bytes(std::uint64_t gathered, std::uint64_t in_place, std::uint64_t scattered);
/// Time spent in collectives across processes and the bytes this process contributed to them.
void add_communication(std::uint64_t ns, std::uint64_t bytes);
/// One kernel call over `nodes` nodes whose signature is `key`; `node_dim` is one node's shape.
void kernel(std::uint64_t key, const OpDef& op, const Dim& node_dim, unsigned nodes, bool backward,
            std::uint64_t start_ns, std::uint64_t ns);
/// Vertex function `id` (of VertexScope key `scope_key`) ran a task of `instances` units that
/// gathered `gathered` bytes; or (instances 0) its groups scattered `scattered` bytes in backward.
void vertex_task(std::uint32_t id, std::uint64_t scope_key, unsigned instances, std::uint64_t gathered,
                 std::uint64_t scattered);
/// A fused chain of `ops` elementwise ops of vertex function `id` (of VertexScope key
/// `scope_key`) ran as one pass over `nodes` nodes per op, each of shape `node_dim`: a forward
/// kernel call of its own, or (`backward`) the time of its backward pass.
void fused_chain(std::uint32_t id, std::uint64_t scope_key, unsigned ops, const Dim& node_dim, unsigned nodes,
                 bool backward, std::uint64_t start_ns, std::uint64_t ns);
/// The device kernel call timed by `clock` in `slot` (Device::forward / backward); the next
/// kernel() record takes its time, and every call's since its predecessor record, from the clock
/// when the step ends, instead of the host time given there. One clock per step.
void device_timed(KernelClock& clock, unsigned slot);
/// A node `n` was added with the arguments `args`: when its group will share parameter arguments,
/// the kernel row of its signature is named after the largest of them. A lookup per such node,
/// allocating only when a signature is new or names another parameter.
void note_node(const Node& n, const Node* const* args);
/// Opens a step if none is open: at the first node of a graph, and before any timed phase.
void touch_step();
/// Notes the high-water marks of a graph's pools into the open step.
void note_pools(const GraphMemory& memory);
/// The end of a graph: closes the open step unless a StepSpan is alive on this thread.
void end_graph_step(const Device* device);
/// Closes the open step (if any), noting the parameter pool of `device`.
void end_step(const Device* device);

}  // namespace profile
}  // namespace dynet
