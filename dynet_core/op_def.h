#pragma once
// An operator is one row of data: shape inference, kernels, batching traits and its gradient-check
// spec. Engines, the autobatcher and the test suite read rows; no file lists every op.

#include <cstdint>

#include "dynet_core/aligned_memory_pool.h"
#include "dynet_core/tensor.h"

namespace dynet {

struct Expression;
class CheckCase;
class TransposeCache;

/// What a kernel sees. It is the same for one node and for an autobatched group of nodes that
/// share a signature: a group is one node with a larger batch dimension, split into `nodes`
/// equal runs of batch elements, each with its own op data.
struct OpCall {
  const Tensor* xs = nullptr;  ///< argument values
  unsigned nargs = 0;
  Tensor y;                    ///< output value
  Tensor dy;                   ///< output gradient (backward only)
  Tensor dx;                   ///< gradient of the argument being differentiated (backward only)
  const void* const* data = nullptr;  ///< op data of each node of the group
  /// Backward only, for ops whose row sets backward_overwrites: dx holds garbage, and backward
  /// writes the gradient into it instead of adding.
  bool overwrite = false;
  unsigned nodes = 1;
  AlignedMemoryPool* scratch = nullptr;  ///< kernel temporaries, released after the kernel
  /// Backward only, may be null: transposed argument values, kept for the whole backward pass.
  TransposeCache* transposes = nullptr;

  template <class T>
  const T& op_data(unsigned node = 0) const {
    return *static_cast<const T*>(data[node]);
  }
  float* scratch_floats(std::size_t n) const { return scratch->allocate_array<float>(n); }
};

/// The argument shapes infer_dim sees.
struct DimArgs {
  const Dim* const* dims;
  unsigned n;
  const Dim& operator[](unsigned i) const { return *dims[i]; }
  unsigned size() const { return n; }
};

/// Which values backward reads, so that engines may release or reuse the others.
enum Saves : std::uint8_t { kSavesNothing = 0, kSavesInputs = 1, kSavesOutput = 2, kSavesBoth = 3 };

enum class BatchRule : std::uint8_t {
  None,    ///< never batched (signature 0)
  Concat,  ///< a group runs as one call: non-shared arguments concatenated along the batch dim
};

struct BatchTraits {
  static constexpr std::uint32_t kAllArguments = 0xFFFFFFFFu;

  BatchRule rule = BatchRule::None;
  std::uint32_t shared = 0;   ///< bit i: argument i is the same node for the whole group
  bool shared_odd = false;    ///< every odd argument is shared too (affine_transform's W1, W2...)
  std::uint8_t sig_bytes = 0; ///< leading bytes of the op data that select the kernel
  /// Bit i: the kernel broadcasts argument i when it has one batch element and y has more, so a
  /// parameter there is shared by the group instead of copied once per node (kAllArguments: all).
  std::uint32_t broadcasts = 0;

  bool is_shared(unsigned i) const {
    return (i < 32 && ((shared >> i) & 1u)) || (shared_odd && (i % 2 == 1));
  }
  bool is_broadcast(unsigned i) const {
    return broadcasts == kAllArguments || (i < 32 && ((broadcasts >> i) & 1u));
  }
};

/// The numeric gradient check every registered op gets: `build` makes one random instance of the
/// op from the CheckCase's differentiable inputs (covering batch sizes > 1 and broadcasting).
struct GradCheck {
  Expression (*build)(CheckCase&) = nullptr;
  float tolerance = 2e-2f;           ///< relative, against the larger of numeric and analytic
  const char* skip_reason = nullptr;  ///< set instead of `build` only when no check can apply
};

struct OpDef {
  const char* name;
  int arity;  ///< number of arguments, or -1 for one or more
  /// Output shape from argument shapes; throws std::invalid_argument saying what was expected.
  Dim (*infer_dim)(const DimArgs& xs, const void* data);
  /// Overwrites y; never reads it.
  void (*forward)(const OpCall&);
  /// Adds d(loss)/d(argument i) into dx. Null when no gradient flows to the arguments.
  void (*backward)(const OpCall&, unsigned i);
  Saves saves;
  BatchTraits batch;
  GradCheck check;
  /// Leaves whose value is parameter memory (no copy); null for everything else.
  float* (*value_alias)(const void* data) = nullptr;
  /// Leaves whose gradient is the parameter gradient itself, so backward accumulates in place.
  float* (*grad_alias)(const void* data) = nullptr;
  /// Leaves that pass their gradient on to a parameter after backward (lookups).
  void (*leaf_backward)(const OpCall&) = nullptr;
  /// Backward honours OpCall::overwrite, so an engine need not zero a gradient block that this
  /// op's backward writes first and whole.
  bool backward_overwrites = false;
  /// For ops whose output is a span of their one argument, unchanged (slices): sets [begin, end)
  /// to the elements of each batch element of the argument x that form the output, and returns
  /// true when they are contiguous (false: no span). An engine may then point the output at the
  /// argument instead of copying it; and backward, asked to overwrite, writes that span of the
  /// argument's gradient and leaves the rest alone, so slices of one block need no zeroing.
  bool (*argument_span)(const void* data, const Dim& x, unsigned& begin, unsigned& end) = nullptr;
  /// Set by the registry.
  std::uint16_t id = kUnregistered;

  static constexpr std::uint16_t kUnregistered = 0xFFFF;
  bool differentiable_leaf() const { return grad_alias || leaf_backward; }
};

}  // namespace dynet
