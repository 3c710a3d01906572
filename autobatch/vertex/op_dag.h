#pragma once
// The ops of one vertex function as the fuser sees them: rows, argument references and the shape
// of one instance. The vertex executor traces them once per function; fusion plans from them.

#include <cstdint>
#include <vector>

#include "dynet_core/dim.h"
#include "dynet_core/op_def.h"

namespace dynet {
namespace vertex {

/// A value an op reads: another op of the same DAG (earlier in the list) or an input from outside.
struct DagRef {
  enum Kind : std::uint8_t { kOp, kInput };
  Kind kind = kOp;
  unsigned index = 0;

  static DagRef op(unsigned i) { return {kOp, i}; }
  static DagRef input(unsigned i) { return {kInput, i}; }
  bool operator==(const DagRef& o) const { return kind == o.kind && index == o.index; }
};

/// A value from outside the DAG. Per-instance inputs (gathers, pulls) lie instance after instance
/// in their block, each of `dim`; a shared one (a parameter, a value every instance reads) is one
/// tensor of `dim` that every instance broadcasts.
struct DagInput {
  Dim dim;
  bool shared = false;
};

struct DagOp {
  const OpDef* op = nullptr;
  /// The op data of the traced instance; every instance runs with it, as the signature (which
  /// covers the data bytes that select the kernel) makes them equal. Must outlive the plans.
  const void* data = nullptr;
  Dim dim;  ///< the output of one instance
  std::vector<DagRef> args;
  /// Read by something outside the DAG (a scatter, a push, a value() read), so it is kept whole.
  bool read_outside = false;
};

/// Ops in topological order: every op's arguments come before it.
struct OpDag {
  std::vector<DagInput> inputs;
  std::vector<DagOp> ops;

  const Dim& dim_of(DagRef r) const { return r.kind == DagRef::kOp ? ops[r.index].dim : inputs[r.index].dim; }
  bool shared(DagRef r) const { return r.kind == DagRef::kInput && inputs[r.index].shared; }
};

}  // namespace vertex
}  // namespace dynet
