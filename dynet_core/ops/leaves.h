#pragma once
// Leaves: inputs, parameters, lookups and constants.

#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/parameters.h"

namespace dynet {

class ComputationGraph;
class Device;

// The trailing Device* of the inputs is DyNet's placement argument: null or the graph's own device
// (dynet::default_device for a default graph); a graph runs on one device, so any other is refused.

/// A scalar input, copied now.
Expression input(ComputationGraph& g, float s, Device* device = nullptr);
/// A scalar read from *ps at every forward (change it and call forward again).
Expression input(ComputationGraph& g, const float* ps, Device* device = nullptr);
/// Values copied now; data.size() must equal d.size() (batch elements included).
Expression input(ComputationGraph& g, const Dim& d, const std::vector<float>& data, Device* device = nullptr);
/// Values read from *pdata at every forward.
Expression input(ComputationGraph& g, const Dim& d, const std::vector<float>* pdata, Device* device = nullptr);
/// Sparse values: element ids[k] (counted over all batch elements) is data[k], every other
/// element is defdata.
Expression input(ComputationGraph& g, const Dim& d, const std::vector<unsigned>& ids, const std::vector<float>& data,
                 float defdata = 0.f, Device* device = nullptr);
/// A vector of size d that is 1 at idx and 0 elsewhere.
Expression one_hot(ComputationGraph& g, unsigned d, unsigned idx, Device* device = nullptr);
/// A batch of ids.size() one-hot vectors of size d.
Expression one_hot(ComputationGraph& g, unsigned d, const std::vector<unsigned>& ids, Device* device = nullptr);
/// DyNet's copy of x to another device. A graph runs on one device, so there is nowhere to copy
/// to: always throws std::invalid_argument (as DyNet does for x's own device).
Expression to_device(const Expression& x, Device* device);

/// A parameter (its gradient is accumulated by backward); y = p.
Expression parameter(ComputationGraph& g, const Parameter& p);
/// The whole lookup table as one tensor (its gradient touches every row).
Expression parameter(ComputationGraph& g, const LookupParameter& p);
/// A parameter treated as a constant.
Expression const_parameter(ComputationGraph& g, const Parameter& p);
Expression const_parameter(ComputationGraph& g, const LookupParameter& p);

/// Row `index` of a lookup table as a parameter: y is the row itself, not a copy, and backward
/// accumulates into the row's gradient, as parameter(g, p) does for a whole parameter. Rows used
/// as weights (DyNet's NaryTreeLSTMBuilder keeps its matrices in tables) then batch as weights
/// do, by identity; lookup() copies rows, for the inputs of a batch.
Expression parameter(ComputationGraph& g, const LookupParameter& p, unsigned index);
Expression const_parameter(ComputationGraph& g, const LookupParameter& p, unsigned index);

/// Row `index` of a lookup table.
Expression lookup(ComputationGraph& g, const LookupParameter& p, unsigned index);
/// Row *pindex, read at every forward.
Expression lookup(ComputationGraph& g, const LookupParameter& p, const unsigned* pindex);
/// One row per batch element.
Expression lookup(ComputationGraph& g, const LookupParameter& p, const std::vector<unsigned>& indices);
/// Rows read from *pindices at every forward (its size must stay the same).
Expression lookup(ComputationGraph& g, const LookupParameter& p, const std::vector<unsigned>* pindices);
Expression const_lookup(ComputationGraph& g, const LookupParameter& p, unsigned index);
Expression const_lookup(ComputationGraph& g, const LookupParameter& p, const unsigned* pindex);
Expression const_lookup(ComputationGraph& g, const LookupParameter& p, const std::vector<unsigned>& indices);
Expression const_lookup(ComputationGraph& g, const LookupParameter& p, const std::vector<unsigned>* pindices);

/// DyNet's reusable graphs (its Python module's `set` on inputs and lookups): new values of an
/// input, or new rows of a lookup, written over those the node copied into the graph (nodes of
/// the pointer overloads read the caller's memory, which the caller changes instead). The graph's
/// values are invalidated, so the next forward computes them again. The node keeps its shape: as
/// many values or rows as it was built with, rows checked as its constructor checked them. Throws
/// std::invalid_argument naming what was wrong, and then changes nothing.
void set_input_values(const Expression& x, const std::vector<float>& values);
void set_lookup_indices(const Expression& x, const std::vector<unsigned>& indices);

/// A tensor of dim d with every element equal to `value`.
Expression constant(ComputationGraph& g, const Dim& d, float value);
Expression zeros(ComputationGraph& g, const Dim& d);
Expression zeroes(ComputationGraph& g, const Dim& d);  ///< zeros, DyNet's older spelling
Expression ones(ComputationGraph& g, const Dim& d);

/// The op data of the leaves, and how every device's kernels read values and indices the caller
/// may have changed since the node was built.
struct InputData {
  Dim dim;
  const float* values;                // copied into the arena, or the caller's scalar
  const std::vector<float>* pvalues;  // read at every forward when set
  bool caller_owned;                  // values or pvalues are the caller's
};

struct LookupData {
  LookupParameterStorage* table;  // first: the signature bytes
  const unsigned* indices;        // copied into the arena, or the caller's index
  const std::vector<unsigned>* pindices;
  unsigned count;
  bool caller_owned;  // indices or pindices are the caller's
};

struct TableRowData {
  LookupParameterStorage* table;
  unsigned index;
};

struct ConstantData {
  float value;
  Dim dim;
};
/// The values of an input node as a kernel reads them, unchecked: its own, or the caller's vector,
/// whose size the row's host_check checked before the launch.
inline const float* input_values(const InputData& d) { return d.pvalues ? d.pvalues->data() : d.values; }
/// The rows of a lookup node as a kernel reads them, unchecked (the row's host_check ran before).
inline const unsigned* lookup_rows(const LookupData& d) { return d.pindices ? d.pindices->data() : d.indices; }
/// The host-side check of a lookup node: throws std::invalid_argument, naming `function`, when the
/// caller's index vector changed size or an index is out of range of the table.
void check_lookup_indices(const LookupData& d, const char* function);

}  // namespace dynet
