#pragma once
// A handle to one node of a ComputationGraph. Cheap to copy; tied to the graph (and its
// epoch) it was made in, so that a handle of a cleared, reverted or destroyed-and-replaced
// graph is reported instead of silently reading another node.

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "dynet_core/node.h"
#include "dynet_core/tensor.h"

namespace dynet {

class ComputationGraph;

struct Expression {
  ComputationGraph* pg = nullptr;
  VariableIndex i = 0;
  std::uint32_t epoch = 0;
  std::uint64_t graph_id = 0;

  Expression() = default;
  Expression(ComputationGraph* g, VariableIndex index);

  const Dim& dim() const;
  /// Computes (incrementally) and returns the value.
  Tensor value() const;
  /// The gradient from the last backward.
  Tensor gradient() const;
  /// True when the graph was cleared, reverted past this node, or replaced.
  bool is_stale() const;
};

/// What a message says of an Expression that was never given a node.
inline constexpr char kEmptyExpressionUsed[] = "an empty Expression (default-constructed, never assigned) was used";

/// Several expressions, for the n-ary ops: a std::vector or a braced list, without copying.
class ExpressionSpan {
 public:
  ExpressionSpan(const std::vector<Expression>& v) : p_(v.data()), n_(v.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  // Safe: a span is only a parameter, and the braced list lives until the call returns.
  ExpressionSpan(std::initializer_list<Expression> l) : p_(l.begin()), n_(l.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  ExpressionSpan(const Expression* p, std::size_t n) : p_(p), n_(n) {}
  const Expression* begin() const { return p_; }
  const Expression* end() const { return p_ + n_; }
  const Expression* data() const { return p_; }
  std::size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const Expression& operator[](std::size_t i) const { return p_[i]; }

 private:
  const Expression* p_;
  std::size_t n_;
};

}  // namespace dynet
