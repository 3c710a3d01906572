#pragma once
// An operator is one row of data: shape inference, kernels, batching traits and its gradient-check
// spec. Engines, the autobatcher and the test suite read rows; no file lists every op.
//
// Rows are written with named setters, never by position, so that reordering a struct cannot change
// what a row means:
//   OpDef AffineTransformOp = OpRow("affine_transform").arity(-1).infer(infer_affine).forward(affine_forward)
//       .backward(affine_backward).saves(kSavesInputs).batch(ConcatBatch().shared_odd().broadcasts_all())
//       .check(check_affine).backward_overwrites();
// The setters are constexpr, so a row is constant-initialised data and engines read plain fields.

#include <cstddef>
#include <cstdint>

#include "dynet_core/device/aligned_memory_pool.h"
#include "dynet_core/ops/elementwise_op_list.h"
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
  Tensor y;                           ///< output value
  Tensor dy;                          ///< output gradient (backward only)
  Tensor dx;                          ///< gradient of the argument being differentiated (backward only)
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

/// The shape rule of ops whose result has their first argument's shape. The graph copies that
/// argument's shape and shape hash instead of calling it: hashing a shape just written waits for
/// the writes to drain from the store buffer.
inline Dim first_argument_shape(const DimArgs& xs, const void*) { return xs[0]; }

/// Which values backward reads, so that engines may release or reuse the others.
enum Saves : std::uint8_t { kSavesNothing = 0, kSavesInputs = 1, kSavesOutput = 2, kSavesBoth = 3 };

enum class BatchRule : std::uint8_t {
  None,    ///< never batched (signature 0)
  Concat,  ///< a group runs as one call: non-shared arguments concatenated along the batch dim
};

struct BatchTraits {
  static constexpr std::uint32_t kAllArguments = 0xFFFFFFFFu;
  /// Not an aggregate, so that traits are set by name (ConcatBatch), never by position.
  constexpr BatchTraits() {}

  BatchRule rule = BatchRule::None;
  std::uint32_t shared = 0;    ///< bit i: argument i is the same node for the whole group
  bool shared_odd = false;     ///< every odd argument is shared too (affine_transform's W1, W2...)
  std::uint8_t sig_bytes = 0;  ///< leading bytes of the op data that select the kernel
  /// Bit i: the kernel broadcasts argument i when it has one batch element and y has more, so a
  /// parameter there is shared by the group instead of copied once per node (kAllArguments: all).
  std::uint32_t broadcasts = 0;

  bool is_shared(unsigned i) const { return (i < 32 && ((shared >> i) & 1u)) || (shared_odd && (i % 2 == 1)); }
  bool is_broadcast(unsigned i) const { return broadcasts == kAllArguments || (i < 32 && ((broadcasts >> i) & 1u)); }
};

/// The numeric gradient check every registered op gets: `build` makes one random instance of the
/// op from the CheckCase's differentiable inputs (covering batch sizes > 1 and broadcasting).
struct GradCheck {
  /// Not an aggregate: OpRow::check, check_tolerance and no_gradcheck set it by name.
  constexpr GradCheck() {}

  Expression (*build)(CheckCase&) = nullptr;
  float tolerance = 2e-2f;            ///< relative, against the larger of numeric and analytic
  const char* skip_reason = nullptr;  ///< set instead of `build` only when no check can apply
};

/// The scalar rule of an op whose kernel is a pure elementwise map (y[e] = f(x_0[e], x_1[e], ...)
/// with every argument the size of y), as kernels over equal-length runs of contiguous floats. A
/// fuser chains rows through these without knowing which op a row is; the rows' own kernels run
/// the same functions, so fused and unfused values agree. Runs, not single elements: a call per
/// element through a pointer would keep the loops from vectorizing.
struct ElementwiseRule {
  /// Not an aggregate: OpRow::elementwise sets it.
  constexpr ElementwiseRule() {}
  constexpr ElementwiseRule(ElementwiseOp op_,
                            void (*f_)(const void*, const float* const*, unsigned, float*, std::size_t),
                            void (*df_)(const void*, unsigned, const float* const*, unsigned, const float*,
                                        const float*, float*, std::size_t, bool))
      : op(op_), f(f_), df(df_) {}

  /// Which elementwise op this is (elementwise_op_list.h); none for a row without a rule.
  ElementwiseOp op = ElementwiseOp::none;

  /// y[e] = f(xs[0][e], ..., xs[nargs - 1][e]) for e < n; `data` is the node's op data.
  void (*f)(const void* data, const float* const* xs, unsigned nargs, float* y, std::size_t n) = nullptr;
  /// dx[e] += dy[e] * dy/dxs[i] at e, or dx[e] = ... when `overwrite`; y holds f's output. Null when
  /// no gradient flows to the arguments (the row has no backward).
  void (*df)(const void* data, unsigned i, const float* const* xs, unsigned nargs, const float* y, const float* dy,
             float* dx, std::size_t n, bool overwrite) = nullptr;
};

struct OpDef {
  /// Not an aggregate, so that a row is built by name with OpRow, never by position.
  constexpr OpDef() {}

  const char* name = nullptr;
  int arity = 0;  ///< number of arguments, or -1 for one or more
  /// Output shape from argument shapes; throws std::invalid_argument saying what was expected.
  Dim (*infer_dim)(const DimArgs& xs, const void* data) = nullptr;
  /// Overwrites y; never reads it.
  void (*forward)(const OpCall&) = nullptr;
  /// Adds d(loss)/d(argument i) into dx. Null when no gradient flows to the arguments.
  void (*backward)(const OpCall&, unsigned i) = nullptr;
  Saves saves = kSavesNothing;
  BatchTraits batch;
  GradCheck check;
  /// Leaves whose value is parameter memory (no copy); null for everything else.
  float* (*value_alias)(const void* data) = nullptr;
  /// Leaves whose gradient is the parameter gradient itself, so backward accumulates in place.
  float* (*grad_alias)(const void* data) = nullptr;
  /// Leaves that pass their gradient on to a parameter after backward (lookups).
  void (*leaf_backward)(const OpCall&) = nullptr;
  /// Parameter leaves: the full name of the parameter their op data refers to, which names the
  /// kernel rows of the profile whose groups share it.
  const char* (*parameter_name)(const void* data) = nullptr;
  /// Runs on the host before every forward launch (of one node or a group) and throws
  /// std::invalid_argument for op data a kernel cannot trust: indices out of range, a vector
  /// behind the node that changed size. Kernels then never check, so a device kernel needs none.
  void (*host_check)(const OpCall&) = nullptr;
  /// Backward honours OpCall::overwrite, so an engine need not zero a gradient block that this
  /// op's backward writes first and whole.
  bool backward_overwrites = false;
  /// y = x0 + x1 x2 + x3 x4 + ..., each product a term of its own (affine_transform): a node may
  /// run with b + x1 x2, computed ahead, as its x0 in place of its first three arguments; and the
  /// gradient of x2 is x1^T dy whatever the other terms are.
  bool sum_of_products = false;
  /// For ops whose output is a span of their one argument, unchanged (slices): sets [begin, end)
  /// to the elements of each batch element of the argument x that form the output, and returns
  /// true when they are contiguous (false: no span). An engine may then point the output at the
  /// argument instead of copying it; and backward, asked to overwrite, writes that span of the
  /// argument's gradient and leaves the rest alone, so slices of one block need no zeroing.
  bool (*argument_span)(const void* data, const Dim& x, unsigned& begin, unsigned& end) = nullptr;
  /// Set exactly when the kernel is a pure elementwise map; see ElementwiseRule.
  ElementwiseRule elementwise;
  /// Set by the registry.
  std::uint16_t id = kUnregistered;

  static constexpr std::uint16_t kUnregistered = 0xFFFF;
  bool differentiable_leaf() const { return grad_alias || leaf_backward; }
};

/// BatchTraits for BatchRule::Concat, by name: `ConcatBatch().shared(1u).broadcasts_all()`.
class ConcatBatch {
 public:
  constexpr ConcatBatch() { traits_.rule = BatchRule::Concat; }
  constexpr ConcatBatch& shared(std::uint32_t arguments) {
    traits_.shared = arguments;
    return *this;
  }
  constexpr ConcatBatch& shared_odd() {
    traits_.shared_odd = true;
    return *this;
  }
  constexpr ConcatBatch& sig_bytes(std::uint8_t bytes) {
    traits_.sig_bytes = bytes;
    return *this;
  }
  constexpr ConcatBatch& broadcasts(std::uint32_t arguments) {
    traits_.broadcasts = arguments;
    return *this;
  }
  constexpr ConcatBatch& broadcasts_all() { return broadcasts(BatchTraits::kAllArguments); }
  constexpr operator BatchTraits() const { return traits_; }

 private:
  BatchTraits traits_;
};

/// An OpDef row by name; each setter writes the field it is named after (`infer` sets infer_dim,
/// `check` GradCheck::build). Fields not set keep OpDef's defaults.
class OpRow {
 public:
  constexpr explicit OpRow(const char* name) { def_.name = name; }
  constexpr OpRow& arity(int n) {
    def_.arity = n;
    return *this;
  }
  constexpr OpRow& infer(Dim (*infer_dim)(const DimArgs&, const void*)) {
    def_.infer_dim = infer_dim;
    return *this;
  }
  constexpr OpRow& forward(void (*forward)(const OpCall&)) {
    def_.forward = forward;
    return *this;
  }
  constexpr OpRow& backward(void (*backward)(const OpCall&, unsigned)) {
    def_.backward = backward;
    return *this;
  }
  constexpr OpRow& saves(Saves saves) {
    def_.saves = saves;
    return *this;
  }
  constexpr OpRow& batch(BatchTraits batch) {
    def_.batch = batch;
    return *this;
  }
  constexpr OpRow& check(Expression (*build)(CheckCase&)) {
    def_.check.build = build;
    return *this;
  }
  constexpr OpRow& check_tolerance(float tolerance) {
    def_.check.tolerance = tolerance;
    return *this;
  }
  constexpr OpRow& no_gradcheck(const char* reason) {
    def_.check.skip_reason = reason;
    return *this;
  }
  constexpr OpRow& value_alias(float* (*value_alias)(const void*)) {
    def_.value_alias = value_alias;
    return *this;
  }
  constexpr OpRow& grad_alias(float* (*grad_alias)(const void*)) {
    def_.grad_alias = grad_alias;
    return *this;
  }
  constexpr OpRow& parameter_name(const char* (*parameter_name)(const void*)) {
    def_.parameter_name = parameter_name;
    return *this;
  }
  constexpr OpRow& leaf_backward(void (*leaf_backward)(const OpCall&)) {
    def_.leaf_backward = leaf_backward;
    return *this;
  }
  constexpr OpRow& host_check(void (*host_check)(const OpCall&)) {
    def_.host_check = host_check;
    return *this;
  }
  constexpr OpRow& backward_overwrites() {
    def_.backward_overwrites = true;
    return *this;
  }
  constexpr OpRow& sum_of_products() {
    def_.sum_of_products = true;
    return *this;
  }
  constexpr OpRow& argument_span(bool (*argument_span)(const void*, const Dim&, unsigned&, unsigned&)) {
    def_.argument_span = argument_span;
    return *this;
  }
  constexpr OpRow& elementwise(ElementwiseRule rule) {
    def_.elementwise = rule;
    return *this;
  }
  constexpr operator OpDef() const { return def_; }

 private:
  OpDef def_;
};

}  // namespace dynet
