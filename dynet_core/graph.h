#pragma once
// ComputationGraph: the graph of one example (or minibatch). Each expression appends one Node
// record to the graph's arena; shapes are checked as nodes are added. Evaluation is handed to
// the graph's execution engine (sequential, or autobatched per --dynet-autobatch).

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dynet_core/device/device.h"
#include "dynet_core/execution_engine.h"
#include "dynet_core/expression.h"
#include "dynet_core/live_graphs.h"
#include "dynet_core/node.h"
#include "dynet_core/tensor.h"

namespace dynet {

/// One instance of a vertex function (dynet_core/vertex_scope.h): the nodes [begin, end), built
/// inside one outermost VertexScope of function `key`.
struct VertexInstance {
  VariableIndex begin, end;
  std::uint64_t key;
};

class ComputationGraph {
 public:
  /// A graph on the default device, run by the engine --dynet-autobatch selects.
  ComputationGraph();
  explicit ComputationGraph(Device* device);
  ~ComputationGraph();
  ComputationGraph(const ComputationGraph&) = delete;
  ComputationGraph& operator=(const ComputationGraph&) = delete;

  /// Recomputes every value up to `last` and returns it.
  Tensor forward(const Expression& last);
  /// Computes only nodes not yet computed, up to `last`, and returns its value.
  Tensor incremental_forward(const Expression& last);
  Tensor get_value(VariableIndex i);
  /// DyNet's: the dim of node i (std::invalid_argument past the last node).
  const Dim& get_dimension(VariableIndex i) const;
  Tensor get_value(const Expression& e);
  /// The gradient of node i from the last backward; throws if backward gave it none.
  Tensor get_gradient(VariableIndex i);
  Tensor get_gradient(const Expression& e);
  /// Forgets every computed value (inputs read by pointer are re-read by the next forward).
  void invalidate();
  /// Backpropagates from `last`, which must hold one value per batch element (the values are
  /// summed). Gradients accumulate into parameters; with `full`, every node keeps a gradient.
  void backward(const Expression& last, bool full = false);
  /// Backpropagates `output_gradient` (one value per element of `last`): a vector-Jacobian product.
  void backward(const Expression& last, const std::vector<float>& output_gradient, bool full = false);

  /// Remembers the current size; revert() drops every node added after it (with no checkpoint
  /// left, nothing, as in DyNet).
  void checkpoint();
  void revert();
  /// Drops every node; expressions of this graph become stale.
  void clear();

  /// As DyNet: every node is computed as it is added, so that an error surfaces where the node
  /// is built; with check_validity too, a value holding a NaN or an infinity throws
  /// std::runtime_error there. Both are off by default.
  void set_immediate_compute(bool ic) { immediate_compute_ = ic; }
  void set_check_validity(bool cv) { check_validity_ = cv; }

  unsigned size() const { return size_; }
  Device* device() const { return device_; }
  std::uint64_t id() const { return id_; }
  /// DyNet's graph number: it grows with every graph made, and (unlike DyNet) with every clear().
  unsigned get_id() const { return static_cast<unsigned>(id_ >> live_graphs::kSlotBits); }
  std::uint32_t epoch() const { return epoch_; }

  /// Writes the graph in Graphviz's dot language (a node per line, labelled as DyNet's with its
  /// index, op and arguments, and its dim; an edge per argument), to std::cerr as DyNet does, or to
  /// `os`.
  void print_graphviz() const;
  void print_graphviz(std::ostream& os) const;

  /// As DyNet: writes every node (index, op, arguments, dim) to `filename`, or to std::cerr when it
  /// is empty, with its value where forward computed one (show_values) and its gradient where
  /// backward gave one (show_gradients); with nan_check_only, only the nodes whose value or gradient
  /// holds a NaN or an infinity, without the numbers. Throws std::runtime_error when the file
  /// cannot be written.
  void dump(const std::string& filename, bool show_values = true, bool show_gradients = true,
            bool nan_check_only = false);

  /// 0: sequential, 1: agenda autobatching, 2: depth autobatching.
  void set_autobatch(int strategy);
  int autobatch() const { return autobatch_; }
  /// How autobatching engines use vertex functions (--dynet-vertex; DynetParams::vertex tells the
  /// modes); values and gradients are the same in each. Throws std::invalid_argument for a mode
  /// other than 0, 1 or 2.
  void set_vertex(int mode);
  int vertex() const { return vertex_; }
  /// Whether the engine runs the instances of marked cells (VertexScope) as vertex-function tasks,
  /// whose elementwise chains it fuses: the batched engines under --dynet-vertex 2, and under 1 on
  /// a device whose kernel calls are costly (a GPU). On the CPU a call costs little next to its
  /// kernel, and planning costs more than units save.
  bool runs_vertex_tasks() const;
  ExecutionEngine& engine();

  /// The instances marked so far, in the order they were opened.
  const std::vector<VertexInstance>& vertex_instances() const { return instances_; }
  /// For VertexScope: nodes added until the matching close_vertex() form an instance of `key`.
  void open_vertex(std::uint64_t key);
  void close_vertex();

  // ---- for op implementations ----

  /// Appends a node of `op` over `args` with op data `data` (already in this graph's arena).
  Expression append(const OpDef& op, const Expression* args, unsigned n, const void* data);
  Expression append(const OpDef& op, std::initializer_list<Expression> args, const void* data = nullptr) {
    return append(op, args.begin(), static_cast<unsigned>(args.size()), data);
  }
  /// A copy of `v` in the graph arena, alive until the graph is cleared.
  template <class T>
  const T* store(const T& v) {
    static_assert(std::is_trivially_destructible<T>::value, "arena data is never destroyed");
    return new (memory_->arena.allocate(sizeof(T))) T(v);
  }
  /// A T made in place in the graph arena from `args` (braced, so aggregates work), alive until
  /// the graph is cleared. Unlike store(), no copy of a T the caller has just written is read
  /// back: that read waits for the writes to drain from the store buffer.
  template <class T, class... A>
  const T* make(A&&... args) {
    static_assert(std::is_trivially_destructible<T>::value, "arena data is never destroyed");
    return new (memory_->arena.allocate(sizeof(T))) T{std::forward<A>(args)...};
  }
  template <class T>
  const T* store_array(const T* v, std::size_t n) {
    T* p = arena_array<T>(n);
    for (std::size_t k = 0; k < n; ++k) p[k] = v[k];
    return p;
  }
  /// Room for n values in the graph arena, alive until the graph is cleared; for op data that a
  /// kernel rewrites at every forward.
  template <class T>
  T* arena_array(std::size_t n) {
    static_assert(std::is_trivially_copyable<T>::value, "arena arrays are copied bytewise");
    return memory_->arena.allocate_array<T>(n ? n : 1);
  }

  Node& node(VariableIndex i) { return memory_->node_chunks[i >> kChunkBits][i & kChunkMask]; }
  const Node& node(VariableIndex i) const { return memory_->node_chunks[i >> kChunkBits][i & kChunkMask]; }
  /// Throws std::invalid_argument when `e` does not name a live node of this graph.
  void check_expression(const Expression& e, const char* where) const {
    if (e.pg != this || e.graph_id != id_ || e.i >= size_ || node(e.i).epoch != e.epoch) reject_expression(e, where);
  }
  GraphMemory& memory() { return *memory_; }

  static constexpr unsigned kChunkBits = 9;
  static constexpr unsigned kChunkMask = (1u << kChunkBits) - 1;

 private:
  struct Checkpoint {
    unsigned size;
    unsigned evaluated;
    std::uint64_t generation;
    AlignedMemoryPool::Mark arena;
    AlignedMemoryPool::Mark forward;
  };
  /// The record of node size_, not yet counted.
  Node& push_node() {
    if ((size_ >> kChunkBits) == memory_->node_chunks.size()) add_node_chunk();
    return node(size_);
  }
  void add_node_chunk();
  /// "v3 = tanh(v2) {4}": node i, its op, its arguments and its dim, as dump() and the Graphviz
  /// labels write it.
  void write_node(std::ostream& os, VariableIndex i) const;
  /// The engine of this graph's memory for a strategy, made on first use.
  ExecutionEngine& engine_for(int strategy);
  [[noreturn]] void reject_expression(const Expression& e, const char* where) const;
  void compute_now(const Expression& e);
  /// Computes up to i through the engine (from scratch with `recompute`), timed when profiling.
  void evaluate(VariableIndex i, bool recompute);
  void differentiate(VariableIndex i, bool full, const float* seed);
  void start_building();
  void finish_building();
  void end_profiled_step();

  Device* device_;
  GraphMemory* memory_;
  std::uint64_t id_ = 0;
  std::uint32_t epoch_ = 0;
  unsigned size_ = 0;
  int autobatch_;
  int vertex_;
  bool profiling_;
  bool building_ = false;  // nodes added since the last evaluation (profiling only)
  bool immediate_compute_ = false;
  bool check_validity_ = false;
  std::uint64_t build_start_ns_ = 0;
  ExecutionEngine* engine_ = nullptr;
  std::vector<Checkpoint> checkpoints_;
  std::vector<VertexInstance> instances_;
  unsigned open_scopes_ = 0;  // VertexScopes alive; the outermost one is instances_.back()
};

/// Throws std::runtime_error: `where` was given an Expression whose graph was cleared or destroyed.
[[noreturn]] void throw_stale_graph(const char* where);

/// The graph an argument expression lives in; throws std::runtime_error naming `op` when the
/// expression is empty or its graph is gone, as DyNet's stale check does. (append() then checks
/// that its node is live.)
inline ComputationGraph& graph_of(const Expression& e, const char* op) {
  if (!e.pg) throw std::runtime_error(std::string(op) + ": " + kEmptyExpressionUsed);
  if (!live_graphs::alive(e.graph_id)) throw_stale_graph(op);
  return *e.pg;
}

/// The live node `e` names, which must be one of `ops`' (DyNet's reusable graphs change such a
/// node's data in place); throws std::invalid_argument naming `function` otherwise.
inline Node& node_of(const Expression& e, std::initializer_list<const OpDef*> ops, const char* function) {
  ComputationGraph& g = graph_of(e, function);
  g.check_expression(e, function);
  Node& n = g.node(e.i);
  for (const OpDef* op : ops)
    if (n.op == op) return n;
  throw std::invalid_argument(std::string(function) + ": the expression is a '" + n.op->name + "' node, not a '" +
                              (*ops.begin())->name + "' node");
}

}  // namespace dynet
