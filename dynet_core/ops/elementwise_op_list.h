#pragma once
// Every op whose kernel is a pure elementwise map (an OpDef with an ElementwiseRule), under one
// compile-time identity: ElementwiseOp, which also gives the op its name. Each entry is
// X(identity, row). A row declares its ElementwiseRule with its identity and takes its name from
// it, so a row without an entry does not compile; the elementwise and arithmetic families
// register their rows from their lists here, so an entry of theirs without a row does not
// compile either (the other families' entries are checked when the ops are registered, at
// start-up); the GPU's per-element rules (gpu/element_rules.h) are a table in this order, which
// the compiler checks against it, in every build (the tests compile the table too).
//
// Within a family the order is its rows' order of registration (an op's id seeds the cases its
// tests draw), and the lists follow the families' order in op_families.h.

// clang-format off
// The elementwise family (ops/elementwise.cc): unary maps, some with op data.
#define DYBATCH_UNARY_ELEMENTWISE_OPS(X)                                                          \
  X(negate, NegateOp) X(tanh, TanhOp) X(logistic, LogisticOp) X(rectify, RectifyOp) X(elu, EluOp) \
  X(selu, SeluOp) X(silu, SiluOp) X(softsign, SoftsignOp) X(exp, ExpOp) X(log, LogOp)             \
  X(log_sigmoid, LogSigmoidOp) X(square, SquareOp) X(cube, CubeOp) X(sqrt, SqrtOp) X(abs, AbsOp)  \
  X(sin, SinOp) X(cos, CosOp) X(erf, ErfOp) X(tan, TanOp) X(asin, AsinOp) X(acos, AcosOp)         \
  X(atan, AtanOp) X(sinh, SinhOp) X(cosh, CoshOp) X(asinh, AsinhOp) X(acosh, AcoshOp)             \
  X(atanh, AtanhOp) X(lgamma, LgammaOp) X(round, RoundOp) X(ceil, CeilOp) X(floor, FloorOp)       \
  X(add_constant, AddConstOp) X(constant_minus, ConstMinusOp) X(multiply_constant, MulConstOp)

// The arithmetic family (ops/arithmetic.cc): binary maps with broadcasting, and n-ary sums.
#define DYBATCH_ARITHMETIC_ELEMENTWISE_OPS(X)                                                      \
  X(add, AddOp) X(subtract, SubtractOp) X(cmult, MultiplyOp) X(cdiv, DivideOp) X(min, MinOp)      \
  X(max, MaxOp) X(pow, PowOp) X(sum, SumOp)

// Rows of families with other ops too, which register their rows themselves: logsumexp
// (ops/reductions.cc), nobackprop and scale_gradient (ops/gradient_control.cc).
#define DYBATCH_OTHER_ELEMENTWISE_OPS(X) \
  X(logsumexp, LogSumExpOp) X(nobackprop, NoBackpropOp) X(scale_gradient, ScaleGradientOp)

#define DYBATCH_ELEMENTWISE_OPS(X) \
  DYBATCH_UNARY_ELEMENTWISE_OPS(X) DYBATCH_ARITHMETIC_ELEMENTWISE_OPS(X) DYBATCH_OTHER_ELEMENTWISE_OPS(X)
// clang-format on

namespace dynet {

enum class ElementwiseOp : unsigned {
#define DYBATCH_ELEMENTWISE_IDENTITY(op, row) op,
  DYBATCH_ELEMENTWISE_OPS(DYBATCH_ELEMENTWISE_IDENTITY)
#undef DYBATCH_ELEMENTWISE_IDENTITY
      none  ///< not an elementwise op; also the count of those that are
};

constexpr unsigned kElementwiseOpCount = static_cast<unsigned>(ElementwiseOp::none);

/// The op's name, as its row and every message give it.
constexpr const char* elementwise_op_name(ElementwiseOp op) {
  constexpr const char* names[] = {
#define DYBATCH_ELEMENTWISE_NAME(op, row) #op,
      DYBATCH_ELEMENTWISE_OPS(DYBATCH_ELEMENTWISE_NAME)
#undef DYBATCH_ELEMENTWISE_NAME
  };
  return names[static_cast<unsigned>(op)];
}

}  // namespace dynet
