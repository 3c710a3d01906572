#include "dynet_core/ops/leaves.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "dynet_core/gradient_set.h"
#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/dims.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/gradient_control.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/tensor_eigen.h"

namespace dynet {

void check_lookup_indices(const LookupData& d, const char* function) {
  const unsigned* idx = d.indices;
  if (d.pindices) {
    if (d.pindices->size() != d.count)
      throw std::invalid_argument(std::string(function) + ": the index vector behind this node now holds " +
                                  std::to_string(d.pindices->size()) + " indices; it was built with " +
                                  std::to_string(d.count));
    idx = d.pindices->data();
  }
  for (unsigned k = 0; k < d.count; ++k)
    if (idx[k] >= d.table->n)
      throw std::invalid_argument(std::string(function) + ": index " + std::to_string(idx[k]) +
                                  " is out of range for " + describe(*d.table));
}

namespace {

Dim infer_input(const DimArgs&, const void* data) { return static_cast<const InputData*>(data)->dim; }

/// The host-side check before a launch: the caller's vectors still hold the declared number of values.
void input_check(const OpCall& c) {
  const unsigned per_node = c.y.d.size() / c.nodes;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const InputData& d = c.op_data<InputData>(j);
    if (d.pvalues && d.pvalues->size() != per_node)
      throw std::invalid_argument("input: the vector behind this node now holds " + std::to_string(d.pvalues->size()) +
                                  " values; it was declared with dim " + to_string(d.dim) + " (" +
                                  std::to_string(per_node) + " values)");
  }
}

void input_forward(const OpCall& c) {
  const unsigned per_node = c.y.d.size() / c.nodes;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const float* src = input_values(c.op_data<InputData>(j));
    std::memcpy(c.y.v + std::size_t(j) * per_node, src, per_node * sizeof(float));
  }
}

Expression check_input(CheckCase& c) { return c.input(c.shape(0, 3, c.batch())); }

OpDef InputOp = OpRow("input")
                    .arity(0)
                    .infer(infer_input)
                    .forward(input_forward)
                    .host_check(input_check)
                    .saves(kSavesNothing)
                    .batch(ConcatBatch())
                    .check(check_input);

Dim infer_parameter(const DimArgs&, const void* data) { return static_cast<const ParameterStorage*>(data)->dim; }
void no_kernel(const OpCall&) {}
float* parameter_values(const void* data) { return static_cast<const ParameterStorage*>(data)->values.v; }
const char* parameter_name(const void* data) { return static_cast<const ParameterStorage*>(data)->name.c_str(); }
// The node refers to the (mutable) parameter; its op data pointer is const only by type.
float* parameter_grads(const void* data) {
  return gradient_target(*static_cast<ParameterStorage*>(const_cast<void*>(data)));
}

Expression check_parameter(CheckCase& c) { return c.parameter(c.shape(0, 3)); }
Expression check_const_parameter(CheckCase& c) { return const_parameter(c.cg, c.constant_parameter(c.shape(0, 3))); }

OpDef ParameterOp = OpRow("parameter")
                        .arity(0)
                        .infer(infer_parameter)
                        .forward(no_kernel)
                        .saves(kSavesNothing)
                        .check(check_parameter)
                        .value_alias(parameter_values)
                        .grad_alias(parameter_grads)
                        .parameter_name(parameter_name);
OpDef ConstParameterOp = OpRow("const_parameter")
                             .arity(0)
                             .infer(infer_parameter)
                             .forward(no_kernel)
                             .saves(kSavesNothing)
                             .check(check_const_parameter)
                             .value_alias(parameter_values)
                             .parameter_name(parameter_name);

Dim infer_table(const DimArgs&, const void* data) {
  return static_cast<const LookupParameterStorage*>(data)->all_values.d;
}
const char* table_name(const void* data) { return static_cast<const LookupParameterStorage*>(data)->name.c_str(); }
float* table_values(const void* data) { return static_cast<const LookupParameterStorage*>(data)->all_values.v; }
float* table_grads(const void* data) {
  // The node refers to the (mutable) table, whose rows are all touched; its op data pointer is
  // const only by type.
  return table_gradient_target(*static_cast<LookupParameterStorage*>(const_cast<void*>(data)));
}

Expression check_table(CheckCase& c) { return parameter(c.cg, c.lookup_parameter(c.uniform(1, 4), c.shape(1, 2))); }
Expression check_const_table(CheckCase& c) {
  return const_parameter(c.cg, c.lookup_parameter(c.uniform(1, 4), c.shape(1, 2), false));
}

OpDef TableParameterOp = OpRow("lookup_table_parameter")
                             .arity(0)
                             .infer(infer_table)
                             .forward(no_kernel)
                             .saves(kSavesNothing)
                             .check(check_table)
                             .value_alias(table_values)
                             .grad_alias(table_grads)
                             .parameter_name(table_name);
OpDef ConstTableParameterOp = OpRow("const_lookup_table_parameter")
                                  .arity(0)
                                  .infer(infer_table)
                                  .forward(no_kernel)
                                  .saves(kSavesNothing)
                                  .check(check_const_table)
                                  .value_alias(table_values)
                                  .parameter_name(table_name);

Dim infer_table_row(const DimArgs&, const void* data) { return static_cast<const TableRowData*>(data)->table->dim; }
float* table_row_values(const void* data) {
  const TableRowData& r = *static_cast<const TableRowData*>(data);
  return r.table->row(r.index);
}
float* table_row_grads(const void* data) {
  // As table_grads: the node refers to the (mutable) table.
  const TableRowData& r = *static_cast<const TableRowData*>(data);
  return row_gradient_target(*r.table, r.index);
}
const char* table_row_name(const void* data) { return static_cast<const TableRowData*>(data)->table->name.c_str(); }

Expression check_table_row(CheckCase& c) {
  const unsigned rows = c.uniform(1, 4);
  return parameter(c.cg, c.lookup_parameter(rows, c.shape(1, 2)), c.uniform(0, rows - 1));
}
Expression check_const_table_row(CheckCase& c) {
  return const_parameter(c.cg, c.lookup_parameter(3, c.shape(1, 2), false), c.uniform(0, 2));
}

OpDef TableRowParameterOp = OpRow("lookup_row_parameter")
                                .arity(0)
                                .infer(infer_table_row)
                                .forward(no_kernel)
                                .saves(kSavesNothing)
                                .check(check_table_row)
                                .value_alias(table_row_values)
                                .grad_alias(table_row_grads)
                                .parameter_name(table_row_name);
OpDef ConstTableRowParameterOp = OpRow("const_lookup_row_parameter")
                                     .arity(0)
                                     .infer(infer_table_row)
                                     .forward(no_kernel)
                                     .saves(kSavesNothing)
                                     .check(check_const_table_row)
                                     .value_alias(table_row_values)
                                     .parameter_name(table_row_name);

Dim infer_lookup(const DimArgs&, const void* data) {
  const LookupData& d = *static_cast<const LookupData*>(data);
  return d.table->dim.with_batch(d.count);
}

template <const char* Function>
void lookup_check(const OpCall& c) {
  for (unsigned j = 0; j < c.nodes; ++j) check_lookup_indices(c.op_data<LookupData>(j), Function);
}

void lookup_forward(const OpCall& c) {
  float* out = c.y.v;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const LookupData& d = c.op_data<LookupData>(j);
    const unsigned* idx = lookup_rows(d);
    const std::size_t row = d.table->row_size();
    for (unsigned k = 0; k < d.count; ++k, out += row) std::memcpy(out, d.table->row(idx[k]), row * sizeof(float));
  }
}

void lookup_leaf_backward(const OpCall& c) {
  const float* dy = c.dy.v;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const LookupData& d = c.op_data<LookupData>(j);
    const unsigned* idx = lookup_rows(d);
    const std::size_t row = d.table->row_size();
    for (unsigned k = 0; k < d.count; ++k, dy += row) {
      float* g = row_gradient_target(*d.table, idx[k]);
      for (std::size_t e = 0; e < row; ++e) g[e] += dy[e];
    }
  }
}

Expression check_lookup(CheckCase& c) {
  const unsigned rows = c.uniform(2, 5);
  LookupParameter p = c.lookup_parameter(rows, c.shape(1, 2));
  std::vector<unsigned> idx(c.batch());
  for (unsigned& i : idx) i = c.uniform(0, rows - 1);  // repeats exercise accumulation
  return lookup(c.cg, p, idx);
}
Expression check_const_lookup(CheckCase& c) {
  LookupParameter p = c.lookup_parameter(3, c.shape(1, 2), false);
  return const_lookup(c.cg, p, c.uniform(0, 2));
}

constexpr BatchTraits kLookupBatch = ConcatBatch().sig_bytes(sizeof(LookupParameterStorage*));
constexpr char kLookup[] = "lookup", kConstLookup[] = "const_lookup";
OpDef LookupOp = OpRow(kLookup)
                     .arity(0)
                     .infer(infer_lookup)
                     .forward(lookup_forward)
                     .host_check(lookup_check<kLookup>)
                     .saves(kSavesNothing)
                     .batch(kLookupBatch)
                     .check(check_lookup)
                     .leaf_backward(lookup_leaf_backward);
OpDef ConstLookupOp = OpRow(kConstLookup)
                          .arity(0)
                          .infer(infer_lookup)
                          .forward(lookup_forward)
                          .host_check(lookup_check<kConstLookup>)
                          .saves(kSavesNothing)
                          .batch(kLookupBatch)
                          .check(check_const_lookup);

Dim infer_constant(const DimArgs&, const void* data) { return static_cast<const ConstantData*>(data)->dim; }
void constant_forward(const OpCall& c) { eig::arr(c.y).setConstant(c.op_data<ConstantData>().value); }
Expression check_constant(CheckCase& c) { return constant(c.cg, c.shape(0, 3, c.batch()), c.real(-2, 2)); }

OpDef ConstantOp = OpRow("constant")
                       .arity(0)
                       .infer(infer_constant)
                       .forward(constant_forward)
                       .saves(kSavesNothing)
                       .batch(ConcatBatch().sig_bytes(sizeof(float)))
                       .check(check_constant);

LookupParameterStorage& table_of(const LookupParameter& p, const char* op) {
  if (!p.p) throw std::invalid_argument(std::string(op) + ": the LookupParameter handle is empty");
  if (p.p->row_size() == 0)
    throw std::invalid_argument(std::string(op) + ": the lookup parameter '" + p.p->name + "' has rows of dim " +
                                to_string(p.p->dim) + ", no values, which no expression can hold");
  return *p.p;
}

Expression lookup_node(ComputationGraph& g, const OpDef& op, const LookupParameter& p, const unsigned* indices,
                       unsigned count, const std::vector<unsigned>* pindices, bool caller_owned) {
  LookupParameterStorage* table = &table_of(p, op.name);
  if (count == 0) throw std::invalid_argument(std::string(op.name) + ": no indices given");
  // The caller's indices are read first at forward, as DyNet's (lookup_check).
  if (!caller_owned) check_lookup_indices(LookupData{table, indices, pindices, count, caller_owned}, op.name);
  return g.append(op, {}, g.make<LookupData>(table, indices, pindices, count, caller_owned));
}

// DyNet's four ways to give the rows: one index, a pointer to one read at every forward, a vector
// (one row per batch element), a pointer to a vector read at every forward.
Expression lookup_index(ComputationGraph& g, const OpDef& op, const LookupParameter& p, unsigned index) {
  return lookup_node(g, op, p, g.store(index), 1, nullptr, false);
}
Expression lookup_pointer(ComputationGraph& g, const OpDef& op, const LookupParameter& p, const unsigned* pindex) {
  if (!pindex) throw std::invalid_argument(std::string(op.name) + ": null pointer");
  return lookup_node(g, op, p, pindex, 1, nullptr, true);
}
Expression lookup_indices(ComputationGraph& g, const OpDef& op, const LookupParameter& p,
                          const std::vector<unsigned>& indices) {
  return lookup_node(g, op, p, g.store_array(indices.data(), indices.size()), static_cast<unsigned>(indices.size()),
                     nullptr, false);
}
Expression lookup_vector_pointer(ComputationGraph& g, const OpDef& op, const LookupParameter& p,
                                 const std::vector<unsigned>* pindices) {
  if (!pindices) throw std::invalid_argument(std::string(op.name) + ": null pointer");
  return lookup_node(g, op, p, pindices->data(), static_cast<unsigned>(pindices->size()), pindices, true);
}

Expression parameter_node(ComputationGraph& g, const OpDef& op, const Parameter& p) {
  if (!p.p) throw std::invalid_argument(std::string(op.name) + ": the Parameter handle is empty");
  if (p.p->dim.size() == 0)
    throw std::invalid_argument(std::string(op.name) + ": the parameter '" + p.p->name + "' has dim " +
                                to_string(p.p->dim) + ", no values, which no expression can hold");
  return g.append(op, {}, p.p.get());
}

Expression table_node(ComputationGraph& g, const OpDef& op, const LookupParameter& p) {
  return g.append(op, {}, &table_of(p, op.name));
}

Expression table_row_node(ComputationGraph& g, const OpDef& op, const LookupParameter& p, unsigned index) {
  LookupParameterStorage& table = table_of(p, op.name);
  if (index >= table.n)
    throw std::invalid_argument(std::string(op.name) + ": index " + std::to_string(index) + " is out of range for " +
                                describe(table));
  return g.append(op, {}, g.store(TableRowData{&table, index}));
}

Expression input_node(ComputationGraph& g, const Dim& d, const float* values, const std::vector<float>* pvalues,
                      bool caller_owned) {
  return g.append(InputOp, {}, g.store(InputData{d, values, pvalues, caller_owned}));
}

/// The op data of x's node, which must be one of `ops`' and built from data copied into the graph;
/// `function` names the caller in messages.
template <class Data>
Data& copied_data_of(const Expression& x, std::initializer_list<const OpDef*> ops, const char* function) {
  Data& d = *static_cast<Data*>(const_cast<void*>(node_of(x, ops, function).data));
  if (d.caller_owned)
    throw std::invalid_argument(std::string(function) +
                                ": the expression reads the caller's memory (a pointer overload); change it there");
  return d;
}

void require_graph_device(const ComputationGraph& g, const Device* device, const char* function) {
  if (device && device != g.device())
    throw std::invalid_argument(std::string(function) + ": the graph runs on device '" + g.device()->name +
                                "'; its inputs go there, and a different Device* was given ('" + device->name + "')");
}

}  // namespace

Expression input(ComputationGraph& g, float s, Device* device) {
  require_graph_device(g, device, "input");
  return input_node(g, Dim({1}), g.store(s), nullptr, false);
}

Expression input(ComputationGraph& g, const float* ps, Device* device) {
  require_graph_device(g, device, "input");
  if (!ps) throw std::invalid_argument("input: null pointer");
  return input_node(g, Dim({1}), ps, nullptr, true);
}

Expression input(ComputationGraph& g, const Dim& d, const std::vector<float>& data, Device* device) {
  require_graph_device(g, device, "input");
  if (!d.fits()) reject_size(d, "input: the shape");  // before the values are copied
  if (data.size() != d.size())
    throw std::invalid_argument("input: dim " + to_string(d) + " holds " + std::to_string(d.size()) + " values, but " +
                                std::to_string(data.size()) + " were given");
  return input_node(g, d, g.store_array(data.data(), data.size()), nullptr, false);
}

Expression input(ComputationGraph& g, const Dim& d, const std::vector<unsigned>& ids, const std::vector<float>& data,
                 float defdata, Device* device) {
  require_graph_device(g, device, "input");
  if (ids.size() != data.size())
    throw std::invalid_argument("input: " + std::to_string(ids.size()) + " sparse ids but " +
                                std::to_string(data.size()) + " values");
  std::vector<float> dense(d.size(), defdata);
  for (std::size_t k = 0; k < ids.size(); ++k) {
    if (ids[k] >= dense.size())
      throw std::invalid_argument("input: sparse id " + std::to_string(ids[k]) + " is out of range for dim " +
                                  to_string(d) + " (" + std::to_string(dense.size()) + " values)");
    dense[ids[k]] = data[k];
  }
  return input(g, d, dense);
}

namespace {
Expression one_hots(ComputationGraph& g, unsigned d, const std::vector<unsigned>& ids) {
  std::vector<float> values(std::size_t(d) * ids.size(), 0.f);
  for (std::size_t b = 0; b < ids.size(); ++b) {
    if (ids[b] >= d)
      throw std::invalid_argument("one_hot: index " + std::to_string(ids[b]) + " is out of range for size " +
                                  std::to_string(d));
    values[b * d + ids[b]] = 1.f;
  }
  return input(g, Dim({d}, static_cast<unsigned>(ids.size())), values);
}
}  // namespace

Expression one_hot(ComputationGraph& g, unsigned d, unsigned idx, Device* device) {
  require_graph_device(g, device, "one_hot");
  return one_hots(g, d, {idx});
}
Expression one_hot(ComputationGraph& g, unsigned d, const std::vector<unsigned>& ids, Device* device) {
  require_graph_device(g, device, "one_hot");
  if (ids.empty()) throw std::invalid_argument("one_hot: no indices given");
  return one_hots(g, d, ids);
}

Expression to_device(const Expression& x, Device* device) {
  const ComputationGraph& g = graph_of(x, "to_device");
  const std::string on = "'" + g.device()->name + "'";
  throw std::invalid_argument("to_device: " + (device == g.device() ? "x is already on device " + on
                                                                    : "x's graph runs on device " + on +
                                                                          " only; there is no other to copy to"));
}

Expression input(ComputationGraph& g, const Dim& d, const std::vector<float>* pdata, Device* device) {
  require_graph_device(g, device, "input");
  if (!pdata) throw std::invalid_argument("input: null pointer");
  if (!d.fits()) reject_size(d, "input: the shape");
  // The caller's vector is read first at forward, as DyNet's (input_check): it may be filled later.
  return input_node(g, d, nullptr, pdata, true);
}

namespace {
// DyNet's parameter and lookup nodes read s v, s the pending weight-decay factor of the root
// collection (dynet_core/weight_decay.h), and pass their gradient to the parameter as the gradient of
// s v, which the trainer's step divides by s. Without a pending factor (always, when lambda is 0)
// the node is the stored values themselves.
// The node is built first, so that an empty handle is reported by the op that was called. It is
// built into the caller's return object: copying an Expression just written reads it back before
// the writes have drained from the store buffer, a stall as long as the rest of the call.
template <class Handle, class Build>
Expression decayed(const Handle& p, Build build) {
  Expression x = build();
  const float s = p.p->current_weight_decay();  // the node was built: p is not empty
  if (s != 1.f) x = x + nobackprop(x * (s - 1.f));
  return x;
}
template <class Handle, class Build>
Expression decayed_constant(const Handle& p, Build build) {
  Expression x = build();
  const float s = p.p->current_weight_decay();  // the node was built: p is not empty
  if (s != 1.f) x = x * s;
  return x;
}
}  // namespace

Expression parameter(ComputationGraph& g, const Parameter& p) {
  return decayed(p, [&] { return parameter_node(g, ParameterOp, p); });
}
Expression const_parameter(ComputationGraph& g, const Parameter& p) {
  return decayed_constant(p, [&] { return parameter_node(g, ConstParameterOp, p); });
}
Expression parameter(ComputationGraph& g, const LookupParameter& p) {
  return decayed(p, [&] { return called_as("parameter", [&] { return table_node(g, TableParameterOp, p); }); });
}
Expression const_parameter(ComputationGraph& g, const LookupParameter& p) {
  return decayed_constant(
      p, [&] { return called_as("const_parameter", [&] { return table_node(g, ConstTableParameterOp, p); }); });
}

Expression parameter(ComputationGraph& g, const LookupParameter& p, unsigned index) {
  return decayed(
      p, [&] { return called_as("parameter", [&] { return table_row_node(g, TableRowParameterOp, p, index); }); });
}
Expression const_parameter(ComputationGraph& g, const LookupParameter& p, unsigned index) {
  return decayed_constant(p, [&] {
    return called_as("const_parameter", [&] { return table_row_node(g, ConstTableRowParameterOp, p, index); });
  });
}

Expression lookup(ComputationGraph& g, const LookupParameter& p, unsigned index) {
  return decayed(p, [&] { return lookup_index(g, LookupOp, p, index); });
}
Expression lookup(ComputationGraph& g, const LookupParameter& p, const unsigned* pindex) {
  return decayed(p, [&] { return lookup_pointer(g, LookupOp, p, pindex); });
}
Expression lookup(ComputationGraph& g, const LookupParameter& p, const std::vector<unsigned>& indices) {
  return decayed(p, [&] { return lookup_indices(g, LookupOp, p, indices); });
}
Expression lookup(ComputationGraph& g, const LookupParameter& p, const std::vector<unsigned>* pindices) {
  return decayed(p, [&] { return lookup_vector_pointer(g, LookupOp, p, pindices); });
}
Expression const_lookup(ComputationGraph& g, const LookupParameter& p, unsigned index) {
  return decayed_constant(p, [&] { return lookup_index(g, ConstLookupOp, p, index); });
}
Expression const_lookup(ComputationGraph& g, const LookupParameter& p, const unsigned* pindex) {
  return decayed_constant(p, [&] { return lookup_pointer(g, ConstLookupOp, p, pindex); });
}
Expression const_lookup(ComputationGraph& g, const LookupParameter& p, const std::vector<unsigned>& indices) {
  return decayed_constant(p, [&] { return lookup_indices(g, ConstLookupOp, p, indices); });
}
Expression const_lookup(ComputationGraph& g, const LookupParameter& p, const std::vector<unsigned>* pindices) {
  return decayed_constant(p, [&] { return lookup_vector_pointer(g, ConstLookupOp, p, pindices); });
}

Expression constant(ComputationGraph& g, const Dim& d, float value) {
  return g.append(ConstantOp, {}, g.store(ConstantData{value, d}));
}
Expression zeros(ComputationGraph& g, const Dim& d) {
  return called_as("zeros", [&] { return constant(g, d, 0.f); });
}
Expression ones(ComputationGraph& g, const Dim& d) {
  return called_as("ones", [&] { return constant(g, d, 1.f); });
}
Expression zeroes(ComputationGraph& g, const Dim& d) {
  return called_as("zeroes", [&] { return constant(g, d, 0.f); });
}

void register_leaf_ops() {
  register_ops({&InputOp, &ParameterOp, &ConstParameterOp, &TableParameterOp, &ConstTableParameterOp, &LookupOp,
                &ConstLookupOp, &ConstantOp});
}

void register_table_row_ops() { register_ops({&TableRowParameterOp, &ConstTableRowParameterOp}); }

void set_input_values(const Expression& x, const std::vector<float>& values) {
  InputData& d = copied_data_of<InputData>(x, {&InputOp}, "set_input_values");
  if (values.size() != d.dim.size())
    throw std::invalid_argument("set_input_values: x has dim " + to_string(d.dim) + " (" +
                                std::to_string(d.dim.size()) + " values); " + std::to_string(values.size()) +
                                " were given");
  std::copy(values.begin(), values.end(), const_cast<float*>(d.values));
  x.pg->invalidate();
}

void set_lookup_indices(const Expression& x, const std::vector<unsigned>& indices) {
  LookupData& d = copied_data_of<LookupData>(x, {&LookupOp, &ConstLookupOp}, "set_lookup_indices");
  if (indices.size() != d.count)
    throw std::invalid_argument("set_lookup_indices: x looks up " + std::to_string(d.count) + " rows; " +
                                std::to_string(indices.size()) + " were given");
  check_lookup_indices(LookupData{d.table, indices.data(), nullptr, d.count, false}, "set_lookup_indices");
  std::copy(indices.begin(), indices.end(), const_cast<unsigned*>(d.indices));
  x.pg->invalidate();
}

}  // namespace dynet
