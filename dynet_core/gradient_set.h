#pragma once
// Private parameter gradients for one thread. Backward adds parameter gradients into the shared
// storage; graphs that run backward on several threads at once (data parallelism, or a pass that
// starts while another adds into the storage) each collect theirs in a GradientSet instead, and
// the sets are summed into the storage afterwards.

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "dynet_core/device/device.h"
#include "dynet_core/parameters.h"

namespace dynet {

class GradientSet {
 public:
  /// The set that backward on this thread writes to, or null for the parameters' own gradients.
  static GradientSet* active();

  /// Makes `set` the active one on this thread while alive.
  class Scope {
   public:
    explicit Scope(GradientSet* set);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    GradientSet* previous_;
  };

  /// The gradient of p in this set, zero until backward adds to it.
  float* gradient(ParameterStorage& p);
  /// The gradient of every row of t (the whole table was used at once).
  float* table_gradient(LookupParameterStorage& t);
  /// The gradient of row i of t, marked as touched.
  float* row_gradient(LookupParameterStorage& t, unsigned i);

  /// Adds every gradient of this set into its parameter's (rows of tables as touched there), and
  /// empties the set. Waits for a backward pass that adds into the parameters directly.
  void add_to_parameters();
  /// Empties the set without touching the parameters.
  void clear();

 private:
  // Gradients are device memory from the parameter's device; what was touched is host memory.
  struct Dense {
    float* g = nullptr;
    std::size_t size = 0;
    Device* device = nullptr;  ///< whose memory g is
    bool used = false;
  };
  struct Table {
    float* g = nullptr;
    std::size_t size = 0;
    Device* device = nullptr;  ///< whose memory g is
    std::vector<unsigned> touched;
    std::vector<std::uint8_t> mask;
    bool all = false;
    /// Whether the pass since the last clear wrote to it: sets outlive passes, so an entry may
    /// name a table freed since, and only a written one may be read through its pointer.
    bool written() const { return all || !touched.empty(); }
  };
  Table& table(LookupParameterStorage& t);
  /// runs_ := one run per touched row of s (of `row` floats), from s to the same row of `to`
  /// (to null: to s itself).
  void row_runs(const Table& s, std::size_t row, float* to);

  std::unordered_map<ParameterStorage*, Dense> params_;
  std::unordered_map<LookupParameterStorage*, Table> tables_;
  std::vector<MemoryRun> runs_;
};

/// Where one backward pass adds its parameter gradients, for the pass's lifetime, so that passes
/// on several threads over the same parameters each count once. The first adds into the
/// parameters' gradients directly, excluding the others from them; a pass that starts meanwhile
/// collects into a GradientSet of its own and adds it in when it ends. Where a set is active
/// already (data parallelism), that set is used.
class BackwardGradients {
 public:
  BackwardGradients();
  ~BackwardGradients();
  BackwardGradients(const BackwardGradients&) = delete;
  BackwardGradients& operator=(const BackwardGradients&) = delete;

 private:
  std::unique_lock<std::mutex> direct_;
  std::unique_ptr<GradientSet> own_;
  std::optional<GradientSet::Scope> scope_;
};

/// The gradient backward adds to for a parameter, a table or a table row on this thread. Asking
/// for the parameter's own marks that it has a gradient (has_grad), once per node and pass.
inline float* gradient_target(ParameterStorage& p) {
  GradientSet* s = GradientSet::active();
  if (s) return s->gradient(p);
  p.nonzero_grad = true;
  return p.g.v;
}
inline float* table_gradient_target(LookupParameterStorage& t) {
  GradientSet* s = GradientSet::active();
  if (s) return s->table_gradient(t);
  t.all_updated = true;
  t.nonzero_grad = true;
  return t.all_grads.v;
}
inline float* row_gradient_target(LookupParameterStorage& t, unsigned i) {
  GradientSet* s = GradientSet::active();
  if (s) return s->row_gradient(t, i);
  t.non_zero_grads.insert(i);
  t.nonzero_grad = true;
  return t.grad_row(i);
}

}  // namespace dynet
