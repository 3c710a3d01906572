#include "dynet_core/graph.h"

#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dynet_core/execution_engine.h"
#include "dynet_core/init.h"
#include "dynet_core/live_graphs.h"
#include "dynet_core/profiler.h"
#include "dynet_core/signature.h"

namespace dynet {

namespace {

constexpr unsigned kInlineDims = 8;

std::string describe_failure(const OpDef& op, const DimArgs& xs, const char* what) {
  std::ostringstream os;
  os << op.name << ": " << what << " (argument dims:";
  for (unsigned k = 0; k < xs.size(); ++k) os << ' ' << xs[k];
  if (xs.size() == 0) os << " none";
  os << ')';
  return os.str();
}

}  // namespace

ComputationGraph::ComputationGraph() : ComputationGraph(default_device()) {}

ComputationGraph::ComputationGraph(Device* device)
    : device_(device),
      memory_(nullptr),
      autobatch_(current_params().autobatch),
      vertex_(current_params().vertex),
      profiling_(profile::enabled()) {
  if (!device_) throw std::invalid_argument("ComputationGraph: no device (was dynet::cleanup() called?)");
  if (autobatch_ < 0 || autobatch_ > 2)
    throw std::invalid_argument("ComputationGraph: autobatch_flag is " + std::to_string(autobatch_) +
                                "; expected 0 (off), 1 (agenda) or 2 (depth)");
  memory_ = device_->acquire_graph_memory();
  engine_ = &engine_for(autobatch_);
  engine_->bind(*this);
  id_ = live_graphs::enter();
}

ComputationGraph::~ComputationGraph() {
  end_profiled_step();
  live_graphs::leave(id_);
  device_->release_graph_memory(memory_);
}

void ComputationGraph::set_autobatch(int strategy) {
  if (strategy < 0 || strategy > 2)
    throw std::invalid_argument("set_autobatch: " + std::to_string(strategy) +
                                " is not a strategy; expected 0 (off), 1 (agenda) or 2 (depth)");
  if (strategy == autobatch_) return;
  engine_->invalidate();
  autobatch_ = strategy;
  engine_ = &engine_for(strategy);
  engine_->bind(*this);
}

bool ComputationGraph::runs_vertex_tasks() const {
  return autobatch_ != 0 && (vertex_ == 2 || (vertex_ == 1 && device()->capabilities().costly_calls));
}

void ComputationGraph::set_vertex(int mode) {
  if (mode < 0 || mode > 2)
    throw std::invalid_argument(
        "ComputationGraph::set_vertex: " + std::to_string(mode) +
        " is not a mode; expected 0 (op by op), 1 (as suits the device) or 2 (units everywhere)");
  if (mode == vertex_) return;
  engine_->invalidate();
  vertex_ = mode;
}

void ComputationGraph::open_vertex(std::uint64_t key) {
  if (open_scopes_++ == 0) instances_.push_back({size_, size_, key});
}

void ComputationGraph::close_vertex() {
  // A scope that outlived clear() has no instance left to close.
  if (open_scopes_ == 0 || --open_scopes_ > 0 || instances_.empty()) return;
  VertexInstance& v = instances_.back();
  v.end = size_;
  if (v.end == v.begin) instances_.pop_back();
}

ExecutionEngine& ComputationGraph::engine() { return *engine_; }

ExecutionEngine& ComputationGraph::engine_for(int strategy) {
  std::unique_ptr<ExecutionEngine>& e = memory_->engines[strategy];
  if (!e) e = make_engine(strategy);
  return *e;
}

void ComputationGraph::add_node_chunk() {
  void* p = std::malloc(sizeof(Node) << kChunkBits);
  if (!p) throw std::runtime_error("dybatch: out of memory for the node records of a graph");
  memory_->node_chunks.push_back(static_cast<Node*>(p));
}

void ComputationGraph::start_building() {
  building_ = true;
  profile::touch_step();  // each timed phase lies within its step
  build_start_ns_ = profile::now_ns();
}

void ComputationGraph::finish_building() {
  if (!building_) return;
  building_ = false;
  profile::add_time(profile::Phase::Construction, profile::now_ns() - build_start_ns_);
}

void ComputationGraph::end_profiled_step() {
  if (!profiling_) return;
  finish_building();
  profile::end_graph_step(device_);
}

void ComputationGraph::evaluate(VariableIndex i, bool recompute) {
  if (!profiling_) {
    if (recompute) engine_->invalidate();
    engine_->incremental_forward(i);
    return;
  }
  finish_building();
  profile::touch_step();
  const std::uint64_t start = profile::now_ns();
  if (recompute) engine_->invalidate();
  engine_->incremental_forward(i);
  profile::add_time(profile::Phase::Forward, profile::now_ns() - start);
  profile::note_pools(*memory_);
}

void ComputationGraph::differentiate(VariableIndex i, bool full, const float* seed) {
  if (!profiling_) {
    engine_->backward(i, full, seed);
    return;
  }
  finish_building();
  profile::touch_step();
  const std::uint64_t start = profile::now_ns();
  engine_->backward(i, full, seed);
  profile::add_time(profile::Phase::Backward, profile::now_ns() - start);
  profile::note_pools(*memory_);
}

Expression ComputationGraph::append(const OpDef& op, const Expression* args, unsigned n, const void* data) {
  if (profiling_ && !building_) start_building();
  if (op.id == OpDef::kUnregistered)
    throw std::logic_error(std::string("op '") + op.name +
                           "' is not registered; add it to its family's register function");
  if (op.arity >= 0 ? n != static_cast<unsigned>(op.arity) : n == 0)
    throw std::invalid_argument(std::string(op.name) + ": expected " +
                                (op.arity >= 0 ? std::to_string(op.arity) : "at least 1") + " argument(s), got " +
                                std::to_string(n));
  const Dim* inline_dims[kInlineDims];
  const Node* inline_nodes[kInlineDims];
  const bool inline_args = n <= kInlineDims;
  const Dim** dims = inline_args ? inline_dims : memory_->arena.allocate_array<const Dim*>(n);
  const Node** arg_nodes = inline_args ? inline_nodes : memory_->arena.allocate_array<const Node*>(n);
  std::uint32_t depth = 0;
  for (unsigned k = 0; k < n; ++k) {
    check_expression(args[k], op.name);
    arg_nodes[k] = &node(args[k].i);
    dims[k] = &arg_nodes[k]->dim;
    if (arg_nodes[k]->depth >= depth) depth = arg_nodes[k]->depth + 1;
  }
  const DimArgs xs{dims, n};
  // The record is written in place but counted only at the end: a failure leaves the graph as it
  // was. The shape goes straight into it, as copying a Dim just written would stall on the store
  // buffer.
  Node& nd = push_node();
  DimHash out_hash;
  if (op.infer_dim == &first_argument_shape) {
    new (&nd.dim) Dim(arg_nodes[0]->dim);
    out_hash = {arg_nodes[0]->dim_hash, true};
  } else {
    try {
      new (&nd.dim) Dim(op.infer_dim(xs, data));
      out_hash = dim_hash(nd.dim);
      if (!out_hash.fits) reject_size(nd.dim, "the shape");
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(describe_failure(op, xs, e.what()));
    }
  }
  const Dim& out = nd.dim;
  nd.op = &op;
  nd.data = data;
  nd.nargs = n;
  nd.epoch = epoch_;
  nd.value = nullptr;
  nd.grad = nullptr;
  VariableIndex* a = nd.inline_args;
  nd.more_args = nullptr;
  if (n > Node::kInlineArgs) a = nd.more_args = memory_->arena.allocate_array<VariableIndex>(n);
  for (unsigned k = 0; k < n; ++k) a[k] = args[k].i;
  nd.dim_hash = out_hash.hash;
  nd.signature = node_signature(op, data, out, nd.dim_hash, arg_nodes, a, n);
  if (profiling_ && nd.signature) profile::note_node(nd, arg_nodes);
  nd.depth = depth;
  const Expression e(this, size_++, epoch_, id_);
  if (immediate_compute_) compute_now(e);
  return e;
}

void ComputationGraph::compute_now(const Expression& e) {
  const Tensor value = incremental_forward(e);
  if (!check_validity_) return;
  for (const float v : as_vector(value))
    if (!std::isfinite(v))
      throw std::runtime_error(std::string(node(e.i).op->name) + ": NaN or Inf detected in the value of node " +
                               std::to_string(e.i) + " (set_check_validity)");
}

void throw_stale_graph(const char* where) {
  // A stale expression is a run-time state, as DyNet reports it (std::runtime_error).
  throw std::runtime_error(std::string(where) +
                           ": the Expression is stale: its graph was cleared or destroyed after it was made "
                           "(make expressions anew for every graph, and call new_graph(cg) on builders)");
}

void ComputationGraph::reject_expression(const Expression& e, const char* where) const {
  std::string why;
  if (!e.pg)
    why = kEmptyExpressionUsed;
  else if (e.pg != this)
    why = "the Expression belongs to another ComputationGraph; expressions cannot cross graphs";
  else if (e.graph_id != id_)
    throw_stale_graph(where);
  else
    why = "the Expression is stale: the graph was reverted to a checkpoint taken before it";
  // A stale or empty expression is a run-time state, as DyNet reports it (std::runtime_error: an
  // empty one is stale there); one of another graph is a misuse of the API, an invalid argument.
  if (!e.pg || e.pg == this) throw std::runtime_error(std::string(where) + ": " + why);
  throw std::invalid_argument(std::string(where) + ": " + why);
}

const Dim& ComputationGraph::get_dimension(VariableIndex i) const {
  if (i >= size_)
    throw std::invalid_argument("get_dimension: node " + std::to_string(i) + " of a graph of " + std::to_string(size_) +
                                " nodes");
  return node(i).dim;
}

Tensor ComputationGraph::forward(const Expression& last) {
  check_expression(last, "forward");
  evaluate(last.i, true);
  return get_value(last.i);
}

Tensor ComputationGraph::incremental_forward(const Expression& last) {
  check_expression(last, "incremental_forward");
  return get_value(last.i);
}

Tensor ComputationGraph::get_value(VariableIndex i) {
  if (i >= size_)
    throw std::invalid_argument("get_value: node " + std::to_string(i) + " does not exist (graph has " +
                                std::to_string(size_) + " nodes)");
  if (i >= engine_->evaluated()) evaluate(i, false);
  const Node& n = node(i);
  return Tensor(n.dim, n.value, device_);
}

Tensor ComputationGraph::get_value(const Expression& e) {
  check_expression(e, "get_value");
  return get_value(e.i);
}

Tensor ComputationGraph::get_gradient(VariableIndex i) {
  if (i >= size_ || !engine_->has_gradient(i))
    throw std::runtime_error("get_gradient: node " + std::to_string(i) +
                             " has no gradient; call backward first (with full=true for nodes that do not depend on "
                             "parameters)");
  const Node& n = node(i);
  return Tensor(n.dim, n.grad, device_);
}

Tensor ComputationGraph::get_gradient(const Expression& e) {
  check_expression(e, "get_gradient");
  return get_gradient(e.i);
}

void ComputationGraph::invalidate() { engine_->invalidate(); }

void ComputationGraph::backward(const Expression& last, bool full) {
  check_expression(last, "backward");
  differentiate(last.i, full, nullptr);
}

void ComputationGraph::backward(const Expression& last, const std::vector<float>& output_gradient, bool full) {
  check_expression(last, "backward");
  const Dim& d = node(last.i).dim;
  if (output_gradient.size() != d.size())
    throw std::invalid_argument("backward: the output gradient has " + std::to_string(output_gradient.size()) +
                                " values; the expression has dim " + to_string(d) + " (" + std::to_string(d.size()) +
                                " values)");
  differentiate(last.i, full, output_gradient.data());
}

void ComputationGraph::checkpoint() {
  checkpoints_.push_back(
      {size_, engine_->evaluated(), engine_->generation(), memory_->arena.mark(), memory_->forward.mark()});
}

void ComputationGraph::revert() {
  // DyNet's: a revert with no checkpoint does nothing.
  if (checkpoints_.empty()) return;
  const Checkpoint cp = checkpoints_.back();
  checkpoints_.pop_back();
  if (cp.size == size_) return;
  const VariableIndex evaluated = engine_->evaluated();
  // Values of surviving nodes computed after the checkpoint sit above the mark; keep them then.
  const bool only_dropped_values_above_mark = (evaluated < cp.size ? evaluated : cp.size) <= cp.evaluated;
  engine_->truncate(cp.size);
  // An engine that dropped every value in truncating (a new generation) has reset the pool itself.
  if (only_dropped_values_above_mark && cp.generation == engine_->generation()) memory_->forward.revert(cp.forward);
  memory_->arena.revert(cp.arena);
  size_ = cp.size;
  while (!instances_.empty() && instances_.back().end > size_) instances_.pop_back();
  ++epoch_;
}

void ComputationGraph::clear() {
  end_profiled_step();
  id_ = live_graphs::renew(id_);
  size_ = 0;
  epoch_ = 0;
  checkpoints_.clear();
  instances_.clear();
  open_scopes_ = 0;
  memory_->reset();
  engine_->bind(*this);
}

}  // namespace dynet
