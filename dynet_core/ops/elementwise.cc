#include "dynet_core/ops/elementwise.h"

#include <type_traits>

#include "dynet_core/graph.h"
#include "dynet_core/ops/accumulate.h"
#include "dynet_core/ops/called_as.h"
#include "dynet_core/ops/check_case.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/ops/vector_logistic.h"
#include "dynet_core/tensor_eigen.h"

namespace dynet {

namespace {

// The scalar rule defines each op. On the CPU, rules whose scalar form calls a libm function get
// Eigen's vectorized version of the same function instead: tanh and logistic alone were a fifth
// of a TreeLSTM step in scalar form. The gradient check runs through these too.
template <class R>
struct VectorForm {
  static constexpr bool exists = false;
};
template <>
struct VectorForm<rules::Tanh> {
  static constexpr bool exists = true;
  static auto apply(const eig::Array& x) { return x.tanh(); }
};
template <>
struct VectorForm<rules::Logistic> {
  static constexpr bool exists = true;
  static auto apply(const eig::Array& x) { return vector_logistic(x); }
};
template <>
struct VectorForm<rules::Exp> {
  static constexpr bool exists = true;
  static auto apply(const eig::Array& x) { return x.exp(); }
};
template <>
struct VectorForm<rules::Log> {
  static constexpr bool exists = true;
  static auto apply(const eig::Array& x) { return x.log(); }
};

// The row's ElementwiseRule runs; the kernels below are these over the whole tensor.
template <class R>
void unary_run(const void* data, const float* const* xs, unsigned, float* y, std::size_t n) {
  if constexpr (VectorForm<R>::exists) {
    eig::Array(y, n) = VectorForm<R>::apply(eig::Array(const_cast<float*>(xs[0]), n));
  } else {
    const R r = rules::rule_of<R>(data);
    const float* __restrict x = xs[0];
    float* __restrict out = y;
    for (std::size_t i = 0; i < n; ++i) out[i] = r.f(x[i]);
  }
}

template <class R>
void unary_run_gradient(const void* data, unsigned, const float* const* xs, unsigned, const float* y, const float* dy,
                        float* dx, std::size_t n, bool overwrite) {
  const R r = rules::rule_of<R>(data);
  const float* __restrict x = xs[0];
  write_gradient(dx, n, overwrite, [&](std::size_t i) { return dy[i] * r.df(x[i], y[i]); });
}

template <class R>
void unary_forward(const OpCall& c) {
  unary_run<R>(c.data[0], &c.xs[0].v, 1, c.y.v, c.y.d.size());
}

template <class R>
void unary_backward(const OpCall& c, unsigned) {
  unary_run_gradient<R>(c.data[0], 0, &c.xs[0].v, 1, c.y.v, c.dy.v, c.dx.v, c.y.d.size(), c.overwrite);
}

/// One row per rule; a rule with fields is the op data and selects the kernel.
template <class R>
constexpr OpDef unary_op(ElementwiseOp op, Saves saves, Expression (*check)(CheckCase&)) {
  constexpr std::uint8_t data_bytes = std::is_empty<R>::value ? 0 : sizeof(R);
  return OpRow(elementwise_op_name(op))
      .arity(1)
      .infer(first_argument_shape)
      .forward(unary_forward<R>)
      .backward(unary_backward<R>)
      .saves(saves)
      .batch(ConcatBatch().sig_bytes(data_bytes))
      .check(check)
      .backward_overwrites()
      .elementwise(ElementwiseRule(op, unary_run<R>, unary_run_gradient<R>));
}

template <class R>
Expression unary(const OpDef& op, const Expression& x, const R& r = R{}) {
  ComputationGraph& g = graph_of(x, op.name);
  if constexpr (std::is_empty<R>::value)
    return g.append(op, {x});
  else
    return g.append(op, {x}, g.store(r));
}

Expression any_input(CheckCase& c, float lo = -1.5f, float hi = 1.5f) {
  return c.input(c.shape(0, 3, c.batch()), lo, hi);
}

OpDef NegateOp =
    unary_op<rules::Negate>(ElementwiseOp::negate, kSavesNothing, [](CheckCase& c) { return -any_input(c); });
OpDef TanhOp =
    unary_op<rules::Tanh>(ElementwiseOp::tanh, kSavesOutput, [](CheckCase& c) { return tanh(any_input(c)); });
OpDef LogisticOp = unary_op<rules::Logistic>(ElementwiseOp::logistic, kSavesOutput,
                                             [](CheckCase& c) { return logistic(any_input(c, -3, 3)); });
OpDef RectifyOp =
    unary_op<rules::Rectify>(ElementwiseOp::rectify, kSavesInputs, [](CheckCase& c) { return rectify(any_input(c)); });
OpDef EluOp = unary_op<rules::Elu>(ElementwiseOp::elu, kSavesBoth,
                                   [](CheckCase& c) { return elu(any_input(c), c.real(0.5f, 2.f)); });
OpDef SeluOp = unary_op<rules::Selu>(ElementwiseOp::selu, kSavesBoth, [](CheckCase& c) { return selu(any_input(c)); });
OpDef SiluOp = unary_op<rules::Silu>(ElementwiseOp::silu, kSavesInputs,
                                     [](CheckCase& c) { return silu(any_input(c), c.real(0.5f, 2.f)); });
OpDef SoftsignOp = unary_op<rules::Softsign>(ElementwiseOp::softsign, kSavesInputs,
                                             [](CheckCase& c) { return softsign(any_input(c)); });
OpDef ExpOp = unary_op<rules::Exp>(ElementwiseOp::exp, kSavesOutput, [](CheckCase& c) { return exp(any_input(c)); });
OpDef LogOp =
    unary_op<rules::Log>(ElementwiseOp::log, kSavesInputs, [](CheckCase& c) { return log(any_input(c, 0.3f, 2.f)); });
OpDef LogSigmoidOp = unary_op<rules::LogSigmoid>(ElementwiseOp::log_sigmoid, kSavesOutput,
                                                 [](CheckCase& c) { return log_sigmoid(any_input(c, -3, 3)); });
OpDef SquareOp =
    unary_op<rules::Square>(ElementwiseOp::square, kSavesInputs, [](CheckCase& c) { return square(any_input(c)); });
OpDef CubeOp =
    unary_op<rules::Cube>(ElementwiseOp::cube, kSavesInputs, [](CheckCase& c) { return cube(any_input(c)); });
OpDef SqrtOp = unary_op<rules::Sqrt>(ElementwiseOp::sqrt, kSavesOutput,
                                     [](CheckCase& c) { return sqrt(any_input(c, 0.3f, 2.f)); });
OpDef AbsOp = unary_op<rules::Abs>(ElementwiseOp::abs, kSavesInputs, [](CheckCase& c) { return abs(any_input(c)); });
OpDef SinOp = unary_op<rules::Sin>(ElementwiseOp::sin, kSavesInputs, [](CheckCase& c) { return sin(any_input(c)); });
OpDef CosOp = unary_op<rules::Cos>(ElementwiseOp::cos, kSavesInputs, [](CheckCase& c) { return cos(any_input(c)); });
OpDef ErfOp = unary_op<rules::Erf>(ElementwiseOp::erf, kSavesInputs, [](CheckCase& c) { return erf(any_input(c)); });
OpDef TanOp =
    unary_op<rules::Tan>(ElementwiseOp::tan, kSavesOutput, [](CheckCase& c) { return tan(any_input(c, -1.2f, 1.2f)); });
OpDef AsinOp = unary_op<rules::Asin>(ElementwiseOp::asin, kSavesInputs,
                                     [](CheckCase& c) { return asin(any_input(c, -0.9f, 0.9f)); });
OpDef AcosOp = unary_op<rules::Acos>(ElementwiseOp::acos, kSavesInputs,
                                     [](CheckCase& c) { return acos(any_input(c, -0.9f, 0.9f)); });
OpDef AtanOp =
    unary_op<rules::Atan>(ElementwiseOp::atan, kSavesInputs, [](CheckCase& c) { return atan(any_input(c, -3, 3)); });
OpDef SinhOp =
    unary_op<rules::Sinh>(ElementwiseOp::sinh, kSavesInputs, [](CheckCase& c) { return sinh(any_input(c)); });
OpDef CoshOp =
    unary_op<rules::Cosh>(ElementwiseOp::cosh, kSavesInputs, [](CheckCase& c) { return cosh(any_input(c)); });
OpDef AsinhOp =
    unary_op<rules::Asinh>(ElementwiseOp::asinh, kSavesInputs, [](CheckCase& c) { return asinh(any_input(c, -3, 3)); });
OpDef AcoshOp = unary_op<rules::Acosh>(ElementwiseOp::acosh, kSavesInputs,
                                       [](CheckCase& c) { return acosh(any_input(c, 1.7f, 3.f)); });
OpDef AtanhOp = unary_op<rules::Atanh>(ElementwiseOp::atanh, kSavesInputs,
                                       [](CheckCase& c) { return atanh(any_input(c, -0.9f, 0.9f)); });
OpDef LgammaOp = unary_op<rules::Lgamma>(ElementwiseOp::lgamma, kSavesInputs, [](CheckCase& c) {
  return lgamma(c.uniform(0, 1) ? any_input(c, 0.3f, 4.f) : any_input(c, -0.9f, -0.1f));
});
// Rounding is flat between jumps, so only the zero gradient matches central differences, on
// inputs away from the jumps; values and the straight-through case have their own test.
OpDef RoundOp = unary_op<rules::Rounding>(ElementwiseOp::round, kSavesNothing,
                                          [](CheckCase& c) { return round(any_input(c, 0.6f, 1.4f), zero_gradient); });
OpDef CeilOp = unary_op<rules::Rounding>(ElementwiseOp::ceil, kSavesNothing,
                                         [](CheckCase& c) { return ceil(any_input(c, 0.1f, 0.9f), zero_gradient); });
OpDef FloorOp = unary_op<rules::Rounding>(ElementwiseOp::floor, kSavesNothing,
                                          [](CheckCase& c) { return floor(any_input(c, 0.1f, 0.9f), zero_gradient); });
OpDef AddConstOp = unary_op<rules::AddConst>(ElementwiseOp::add_constant, kSavesNothing,
                                             [](CheckCase& c) { return any_input(c) + c.real(-2, 2); });
OpDef ConstMinusOp = unary_op<rules::ConstMinus>(ElementwiseOp::constant_minus, kSavesNothing,
                                                 [](CheckCase& c) { return c.real(-2, 2) - any_input(c); });
OpDef MulConstOp = unary_op<rules::MulConst>(ElementwiseOp::multiply_constant, kSavesNothing,
                                             [](CheckCase& c) { return any_input(c) * c.real(-2, 2); });

}  // namespace

Expression operator-(const Expression& x) {
  return called_as("operator-", [&] { return unary<rules::Negate>(NegateOp, x); });
}
Expression tanh(const Expression& x) { return unary<rules::Tanh>(TanhOp, x); }
Expression logistic(const Expression& x) { return unary<rules::Logistic>(LogisticOp, x); }
Expression rectify(const Expression& x) { return unary<rules::Rectify>(RectifyOp, x); }
Expression elu(const Expression& x, float alpha) { return unary(EluOp, x, rules::Elu{alpha}); }
Expression selu(const Expression& x) { return unary<rules::Selu>(SeluOp, x); }
Expression silu(const Expression& x, float beta) { return unary(SiluOp, x, rules::Silu{beta}); }
Expression softsign(const Expression& x) { return unary<rules::Softsign>(SoftsignOp, x); }
Expression exp(const Expression& x) { return unary<rules::Exp>(ExpOp, x); }
Expression log(const Expression& x) { return unary<rules::Log>(LogOp, x); }
Expression log_sigmoid(const Expression& x) { return unary<rules::LogSigmoid>(LogSigmoidOp, x); }
Expression square(const Expression& x) { return unary<rules::Square>(SquareOp, x); }
Expression cube(const Expression& x) { return unary<rules::Cube>(CubeOp, x); }
Expression sqrt(const Expression& x) { return unary<rules::Sqrt>(SqrtOp, x); }
Expression abs(const Expression& x) { return unary<rules::Abs>(AbsOp, x); }
Expression sin(const Expression& x) { return unary<rules::Sin>(SinOp, x); }
Expression cos(const Expression& x) { return unary<rules::Cos>(CosOp, x); }
Expression erf(const Expression& x) { return unary<rules::Erf>(ErfOp, x); }

Expression tan(const Expression& x) { return unary<rules::Tan>(TanOp, x); }
Expression asin(const Expression& x) { return unary<rules::Asin>(AsinOp, x); }
Expression acos(const Expression& x) { return unary<rules::Acos>(AcosOp, x); }
Expression atan(const Expression& x) { return unary<rules::Atan>(AtanOp, x); }
Expression sinh(const Expression& x) { return unary<rules::Sinh>(SinhOp, x); }
Expression cosh(const Expression& x) { return unary<rules::Cosh>(CoshOp, x); }
Expression asinh(const Expression& x) { return unary<rules::Asinh>(AsinhOp, x); }
Expression acosh(const Expression& x) { return unary<rules::Acosh>(AcoshOp, x); }
Expression atanh(const Expression& x) { return unary<rules::Atanh>(AtanhOp, x); }
Expression lgamma(const Expression& x) { return unary<rules::Lgamma>(LgammaOp, x); }
namespace {
rules::Rounding rounding(rules::Rounding::Kind kind, GradientMode m) {
  return {kind, m == straight_through_gradient ? 1.f : 0.f};
}
}  // namespace
Expression round(const Expression& x, GradientMode m) {
  return unary(RoundOp, x, rounding(rules::Rounding::kRound, m));
}
Expression ceil(const Expression& x, GradientMode m) { return unary(CeilOp, x, rounding(rules::Rounding::kCeil, m)); }
Expression floor(const Expression& x, GradientMode m) {
  return unary(FloorOp, x, rounding(rules::Rounding::kFloor, m));
}

Expression operator+(const Expression& x, float c) {
  return called_as("operator+", [&] { return unary(AddConstOp, x, rules::AddConst{c}); });
}
Expression operator+(float c, const Expression& x) { return x + c; }
Expression operator-(const Expression& x, float c) {
  return called_as("operator-", [&] { return x + (-c); });
}
Expression operator-(float c, const Expression& x) {
  return called_as("operator-", [&] { return unary(ConstMinusOp, x, rules::ConstMinus{c}); });
}
Expression operator*(const Expression& x, float c) {
  return called_as("operator*", [&] { return unary(MulConstOp, x, rules::MulConst{c}); });
}
Expression operator*(float c, const Expression& x) { return x * c; }
Expression operator/(const Expression& x, float c) {
  if (c == 0.f) throw std::invalid_argument("operator/: division of an expression by the constant 0");
  return called_as("operator/", [&] { return x * (1.f / c); });
}

void register_elementwise_ops() {
#define DYBATCH_ROW(op, row) &row,
  register_ops({DYBATCH_UNARY_ELEMENTWISE_OPS(DYBATCH_ROW)});
#undef DYBATCH_ROW
}

}  // namespace dynet
