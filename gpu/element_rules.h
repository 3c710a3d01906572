#pragma once
// The scalar rule of every row that declares an ElementwiseRule, one element at a time, by op name:
// what a kernel running a whole fused chain (element_chain.h) computes at each step. Each entry
// wraps the rule of dynet_core/ops that the op's own kernels run, so that a fused and an unfused op
// compute one formula; the unary and binary ops' own CUDA kernels are registered from this list
// too (ops/elementwise.cu, ops/arithmetic.cu). Host and device code: g++ compiles it for the
// tests, which run a chain element by element on the host exactly as the kernel does.

#include <cstddef>
#include <tuple>
#include <type_traits>

#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/elementwise.h"
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
  const char* op;
};

// clang-format off
inline constexpr auto kRules = std::make_tuple(
    Entry<Unary<rules::Negate>>{"negate"}, Entry<Unary<rules::Tanh>>{"tanh"},
    Entry<Unary<rules::Logistic>>{"logistic"}, Entry<Unary<rules::Rectify>>{"rectify"},
    Entry<Unary<rules::Elu>>{"elu"}, Entry<Unary<rules::Selu>>{"selu"}, Entry<Unary<rules::Silu>>{"silu"},
    Entry<Unary<rules::Softsign>>{"softsign"}, Entry<Unary<rules::Exp>>{"exp"}, Entry<Unary<rules::Log>>{"log"},
    Entry<Unary<rules::LogSigmoid>>{"log_sigmoid"}, Entry<Unary<rules::Square>>{"square"},
    Entry<Unary<rules::Cube>>{"cube"}, Entry<Unary<rules::Sqrt>>{"sqrt"}, Entry<Unary<rules::Abs>>{"abs"},
    Entry<Unary<rules::Sin>>{"sin"}, Entry<Unary<rules::Cos>>{"cos"}, Entry<Unary<rules::Erf>>{"erf"},
    Entry<Unary<rules::Tan>>{"tan"}, Entry<Unary<rules::Asin>>{"asin"}, Entry<Unary<rules::Acos>>{"acos"},
    Entry<Unary<rules::Atan>>{"atan"}, Entry<Unary<rules::Sinh>>{"sinh"}, Entry<Unary<rules::Cosh>>{"cosh"},
    Entry<Unary<rules::Asinh>>{"asinh"}, Entry<Unary<rules::Acosh>>{"acosh"},
    Entry<Unary<rules::Atanh>>{"atanh"}, Entry<Unary<rules::Lgamma>>{"lgamma"},
    Entry<Unary<rules::Rounding>>{"round"}, Entry<Unary<rules::Rounding>>{"ceil"},
    Entry<Unary<rules::Rounding>>{"floor"}, Entry<Unary<rules::AddConst>>{"add_constant"},
    Entry<Unary<rules::ConstMinus>>{"constant_minus"}, Entry<Unary<rules::MulConst>>{"multiply_constant"},
    Entry<Binary<rules::Add>>{"add"}, Entry<Binary<rules::Subtract>>{"subtract"},
    Entry<Binary<rules::Multiply>>{"cmult"}, Entry<Binary<rules::Divide>>{"cdiv"},
    Entry<Binary<rules::Min>>{"min"}, Entry<Binary<rules::Max>>{"max"}, Entry<Binary<rules::Pow>>{"pow"},
    Entry<Sum>{"sum"}, Entry<LogSumExp>{"logsumexp"}, Entry<Copy>{"nobackprop"},
    Entry<ScaledCopy>{"scale_gradient"});
// clang-format on

using Rules = std::decay_t<decltype(kRules)>;
constexpr unsigned kRuleCount = std::tuple_size<Rules>::value;
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
