// Leaves. Parameters are their own memory (no kernel); inputs are copied from the host; lookups
// gather their rows in one launch and scatter their gradient back into the table in one launch.

#include <vector>

#include "dynet_core/gradient_set.h"
#include "dynet_core/ops/leaves.h"
#include "gpu/device_operations.h"
#include "gpu/kernel_table.h"
#include "gpu/launch.cuh"

namespace dynet {
namespace gpu {

namespace {

void no_kernel(const OpCall&) {}

void input_forward(const OpCall& c) {
  const std::size_t per_node = c.y.d.size() / c.nodes;
  for (unsigned j = 0; j < c.nodes; ++j)
    device_of(c).to_device(c.y.v + j * per_node, input_values(c.op_data<InputData>(j)), per_node);
}

void lookup_forward(const OpCall& c) {
  std::vector<const float*> rows;
  std::vector<unsigned> lengths;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const LookupData& d = c.op_data<LookupData>(j);
    const unsigned* idx = lookup_rows(d);
    for (unsigned k = 0; k < d.count; ++k) {
      rows.push_back(d.table->row(idx[k]));
      lengths.push_back(unsigned(d.table->row_size()));
    }
  }
  device_of(c).gather(c.y.v, rows.data(), lengths.data(), unsigned(rows.size()));
}

void lookup_leaf_backward(const OpCall& c) {
  std::vector<float*> rows;
  std::vector<unsigned> lengths;
  for (unsigned j = 0; j < c.nodes; ++j) {
    const LookupData& d = c.op_data<LookupData>(j);
    const unsigned* idx = lookup_rows(d);
    for (unsigned k = 0; k < d.count; ++k) {
      rows.push_back(row_gradient_target(*d.table, idx[k]));
      lengths.push_back(unsigned(d.table->row_size()));
    }
  }
  device_of(c).scatter_add(rows.data(), c.dy.v, lengths.data(), unsigned(rows.size()));
}

void constant_forward(const OpCall& c) {
  launch_fill(c.y.v, c.op_data<ConstantData>().value, c.y.d.size(), stream_of(c));
}

}  // namespace

void add_leaf_kernels(KernelTable& t) {
  NamedKernel lookup = kernel_for("lookup", lookup_forward);
  lookup.kernel.leaf_backward = lookup_leaf_backward;
  t.add({kernel_for("input", input_forward), kernel_for("parameter", no_kernel),
         kernel_for("const_parameter", no_kernel), kernel_for("lookup_table_parameter", no_kernel),
         kernel_for("const_lookup_table_parameter", no_kernel), kernel_for("lookup_row_parameter", no_kernel),
         kernel_for("const_lookup_row_parameter", no_kernel), lookup, kernel_for("const_lookup", lookup_forward),
         kernel_for("constant", constant_forward)});
}

}  // namespace gpu
}  // namespace dynet
