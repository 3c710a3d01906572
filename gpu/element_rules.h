#pragma once
// The scalar rule of every row that declares an ElementwiseRule, one element at a time, in the
// order of its identity (dynet_core/ops/elementwise_op_list.h), which the compiler checks: what a
// kernel running a whole fused chain (element_chain.h) computes at each step. Each entry
// wraps the rule of dynet_core/ops that the op's own kernels run, so that a fused and an unfused op
// compute one formula; the unary and binary ops' own CUDA kernels are registered from this list
// too (ops/elementwise.cu, ops/arithmetic.cu). Host and device code: g++ compiles it for the
// tests, which run a chain element by element on the host exactly as the kernel does.

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
#include "dynet_core/ops/elementwise_op_list.h"
#include "dynet_core/ops/host_device.h"
#include "dynet_core/ops/reductions.h"

namespace dynet {
namespace gpu {
namespace element {

// Each rule: f(data, xs, nargs) is y at one element from the arguments' values there, and
// df(data, i, xs, nargs, y) is dy/dxs[i]. data_bytes: how much of the node's op data f and df read.

/// y = R(x); a rule with fields is the op data.
template <class R>
struct Unary {
  static constexpr std::size_t data_bytes = std::is_empty<R>::value ? 0 : sizeof(R);
  static DYBATCH_HD float f(const void* data, const float* xs, unsigned) { return rules::rule_of<R>(data).f(xs[0]); }
  static DYBATCH_HD float df(const void* data, unsigned, const float* xs, unsigned, float y) {
    return rules::rule_of<R>(data).df(xs[0], y);
  }
};

/// y = R(a, b).
template <class R>
struct Binary {
  static constexpr std::size_t data_bytes = 0;
  static DYBATCH_HD float f(const void*, const float* xs, unsigned) { return R{}.f(xs[0], xs[1]); }
  static DYBATCH_HD float df(const void*, unsigned i, const float* xs, unsigned, float y) {
    return i == 0 ? R{}.da(xs[0], xs[1], y) : R{}.db(xs[0], xs[1], y);
  }
};

/// y = x_0 + x_1 + ..., added in argument order as the CPU rule adds them.
struct Sum {
  static constexpr std::size_t data_bytes = 0;
  static DYBATCH_HD float f(const void*, const float* xs, unsigned nargs) {
    float y = xs[0];
    for (unsigned k = 1; k < nargs; ++k) y += xs[k];
    return y;
  }
  static DYBATCH_HD float df(const void*, unsigned, const float*, unsigned, float) { return 1.f; }
};

/// y = log(sum exp(x_k)), logsumexp's own rule.
struct LogSumExp {
  static constexpr std::size_t data_bytes = 0;
  static DYBATCH_HD float f(const void*, const float* xs, unsigned nargs) {
    return logsumexp_of(nargs, [xs](unsigned k) { return xs[k]; });
  }
  static DYBATCH_HD float df(const void*, unsigned i, const float* xs, unsigned, float y) { return expf(xs[i] - y); }
};

/// nobackprop's y = x: its row has no backward, so no chain asks for df.
struct Copy {
  static constexpr std::size_t data_bytes = 0;
  static DYBATCH_HD float f(const void*, const float* xs, unsigned) { return xs[0]; }
  static DYBATCH_HD float df(const void*, unsigned, const float*, unsigned, float) { return 0.f; }
};
/// scale_gradient's y = x, with dy/dx the op data.
struct ScaledCopy {
  static constexpr std::size_t data_bytes = sizeof(float);
  static DYBATCH_HD float f(const void*, const float* xs, unsigned) { return xs[0]; }
  static DYBATCH_HD float df(const void* data, unsigned, const float*, unsigned, float) {
    return *static_cast<const float*>(data);
  }
};

template <class Rule>
struct Entry {
  using rule = Rule;
  ElementwiseOp op;
};

using E = ElementwiseOp;
// clang-format off
inline constexpr auto kRules = std::make_tuple(
    Entry<Unary<rules::Negate>>{E::negate}, Entry<Unary<rules::Tanh>>{E::tanh},
    Entry<Unary<rules::Logistic>>{E::logistic}, Entry<Unary<rules::Rectify>>{E::rectify},
    Entry<Unary<rules::Elu>>{E::elu}, Entry<Unary<rules::Selu>>{E::selu}, Entry<Unary<rules::Silu>>{E::silu},
    Entry<Unary<rules::Softsign>>{E::softsign}, Entry<Unary<rules::Exp>>{E::exp}, Entry<Unary<rules::Log>>{E::log},
    Entry<Unary<rules::LogSigmoid>>{E::log_sigmoid}, Entry<Unary<rules::Square>>{E::square},
    Entry<Unary<rules::Cube>>{E::cube}, Entry<Unary<rules::Sqrt>>{E::sqrt}, Entry<Unary<rules::Abs>>{E::abs},
    Entry<Unary<rules::Sin>>{E::sin}, Entry<Unary<rules::Cos>>{E::cos}, Entry<Unary<rules::Erf>>{E::erf},
    Entry<Unary<rules::Tan>>{E::tan}, Entry<Unary<rules::Asin>>{E::asin}, Entry<Unary<rules::Acos>>{E::acos},
    Entry<Unary<rules::Atan>>{E::atan}, Entry<Unary<rules::Sinh>>{E::sinh}, Entry<Unary<rules::Cosh>>{E::cosh},
    Entry<Unary<rules::Asinh>>{E::asinh}, Entry<Unary<rules::Acosh>>{E::acosh},
    Entry<Unary<rules::Atanh>>{E::atanh}, Entry<Unary<rules::Lgamma>>{E::lgamma},
    Entry<Unary<rules::Rounding>>{E::round}, Entry<Unary<rules::Rounding>>{E::ceil},
    Entry<Unary<rules::Rounding>>{E::floor}, Entry<Unary<rules::AddConst>>{E::add_constant},
    Entry<Unary<rules::ConstMinus>>{E::constant_minus}, Entry<Unary<rules::MulConst>>{E::multiply_constant},
    Entry<Binary<rules::Add>>{E::add}, Entry<Binary<rules::Subtract>>{E::subtract},
    Entry<Binary<rules::Multiply>>{E::cmult}, Entry<Binary<rules::Divide>>{E::cdiv},
    Entry<Binary<rules::Min>>{E::min}, Entry<Binary<rules::Max>>{E::max}, Entry<Binary<rules::Pow>>{E::pow},
    Entry<Sum>{E::sum}, Entry<LogSumExp>{E::logsumexp}, Entry<Copy>{E::nobackprop},
    Entry<ScaledCopy>{E::scale_gradient});
// clang-format on

using Rules = std::decay_t<decltype(kRules)>;
constexpr unsigned kRuleCount = std::tuple_size<Rules>::value;

template <std::size_t... c>
constexpr bool in_identity_order(std::index_sequence<c...>) {
  return ((std::get<c>(kRules).op == static_cast<ElementwiseOp>(c)) && ...);
}
static_assert(kRuleCount == kElementwiseOpCount,
              "gpu/element_rules.h: one rule for every op of dynet_core/ops/elementwise_op_list.h, no more");
static_assert(in_identity_order(std::make_index_sequence<kRuleCount>{}),
              "gpu/element_rules.h: the rules are out of the order of dynet_core/ops/elementwise_op_list.h");
/// The rule of code c: its index in kRules.
template <unsigned c>
using RuleAt = typename std::tuple_element_t<c, Rules>::rule;

/// y at one element by the rule of `code` (< kRuleCount). A compare per entry: every thread of a
/// chain's kernel takes the same branch at each step.
template <unsigned c = 0>
DYBATCH_HD float value(unsigned code, const void* data, const float* xs, unsigned nargs) {
  if constexpr (c + 1 == kRuleCount)
    return RuleAt<c>::f(data, xs, nargs);
  else
    return code == c ? RuleAt<c>::f(data, xs, nargs) : value<c + 1>(code, data, xs, nargs);
}

/// dy/dxs[i] at one element by the rule of `code`.
template <unsigned c = 0>
DYBATCH_HD float derivative(unsigned code, const void* data, unsigned i, const float* xs, unsigned nargs, float y) {
  if constexpr (c + 1 == kRuleCount)
    return RuleAt<c>::df(data, i, xs, nargs, y);
  else
    return code == c ? RuleAt<c>::df(data, i, xs, nargs, y) : derivative<c + 1>(code, data, i, xs, nargs, y);
}

}  // namespace element
}  // namespace gpu
}  // namespace dynet
