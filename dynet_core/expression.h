#pragma once
// A handle to one node of a ComputationGraph. Cheap to copy; tied to the graph (and its
// epoch) it was made in, so that a handle of a cleared, reverted or destroyed-and-replaced
// graph is reported instead of silently reading another node.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
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
  /// Node `index` of g, made while g is at `graph_epoch` with id `id` (ComputationGraph::append).
  Expression(ComputationGraph* g, VariableIndex index, std::uint32_t graph_epoch, std::uint64_t id) noexcept
      : pg(g), graph_id(id) {
    set_index(index, graph_epoch);
  }
  // Copied word by word, with i and epoch written as one 8-byte word wherever an Expression is made:
  // each word a copy reads was then written whole. The aggregate copy reads 16 bytes across
  // separate writes, which the store buffer cannot forward: every Expression copied right after it
  // was returned (an op's argument list, `h = f(h)`) waited for the writes to drain, a stall as long
  // as the rest of the op's construction.
  Expression(const Expression& o) noexcept : pg(o.pg), graph_id(o.graph_id) { set_index_word(o.index_word()); }
  Expression& operator=(const Expression& o) noexcept {
    pg = o.pg;
    set_index_word(o.index_word());
    graph_id = o.graph_id;
    return *this;
  }

  const Dim& dim() const;
  /// Computes (incrementally) and returns the value.
  Tensor value() const;
  /// The gradient from the last backward.
  Tensor gradient() const;
  /// True when the graph was cleared, reverted past this node, or replaced.
  bool is_stale() const;
  /// DyNet's: the name of the device the node is computed on ("CPU", "GPU:0").
  std::string get_device_name() const;

 private:
  struct IndexPair {
    VariableIndex i;
    std::uint32_t epoch;
  };
  static constexpr std::size_t kIndexWord = sizeof(ComputationGraph*);
  std::uint64_t index_word() const {
    std::uint64_t w;
    std::memcpy(&w, reinterpret_cast<const unsigned char*>(this) + kIndexWord, sizeof w);
    return w;
  }
  void set_index_word(std::uint64_t w) {
    std::memcpy(reinterpret_cast<unsigned char*>(this) + kIndexWord, &w, sizeof w);
  }
  void set_index(VariableIndex index, std::uint32_t e) {
    const IndexPair p{index, e};
    std::uint64_t w;
    std::memcpy(&w, &p, sizeof w);
    set_index_word(w);
  }
};
static_assert(offsetof(Expression, i) == sizeof(ComputationGraph*) &&
                  offsetof(Expression, epoch) == offsetof(Expression, i) + sizeof(VariableIndex) &&
                  sizeof(VariableIndex) + sizeof(std::uint32_t) == sizeof(std::uint64_t),
              "Expression's i and epoch form the 8-byte word after pg");

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
