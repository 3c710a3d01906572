#include "autobatch/vertex/elementwise_chains.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace dynet {
namespace vertex {

namespace {

bool broadcasts_to(const Dim& x, const Dim& y) {
  if (x.bd != y.bd && x.bd != 1) return false;
  for (unsigned k = 0; k < Dim::kMaxDims; ++k)
    if (x[k] != y[k] && x[k] != 1) return false;
  return true;
}

/// Sets of ops as bit rows; the DAGs of one function are small, so plain bit loops suffice.
class OpSets {
 public:
  explicit OpSets(std::size_t n) : words_((n + 63) / 64), bits_(n * words_, 0) {}
  std::uint64_t* row(std::size_t i) { return bits_.data() + i * words_; }
  std::size_t words() const { return words_; }

 private:
  std::size_t words_;
  std::vector<std::uint64_t> bits_;
};

bool has(const std::uint64_t* set, std::size_t i) { return (set[i / 64] >> (i % 64)) & 1u; }
void add(std::uint64_t* set, std::size_t i) { set[i / 64] |= std::uint64_t(1) << (i % 64); }

class ChainFinder {
 public:
  explicit ChainFinder(const OpDag& dag)
      : dag_(dag), n_(dag.ops.size()), ancestors_(n_), parent_(n_), members_(n_), reads_(n_) {
    std::iota(parent_.begin(), parent_.end(), 0u);
    for (unsigned i = 0; i < n_; ++i) {
      members_[i] = {i};
      std::uint64_t* row = ancestors_.row(i);
      add(row, i);
      for (const DagRef& a : dag.ops[i].args) {
        if (std::find(reads_[i].begin(), reads_[i].end(), a) == reads_[i].end()) reads_[i].push_back(a);
        if (a.kind != DagRef::kOp) continue;
        const std::uint64_t* from = ancestors_.row(a.index);
        for (std::size_t w = 0; w < ancestors_.words(); ++w) row[w] |= from[w];
      }
    }
  }

  std::vector<std::vector<unsigned>> run() {
    std::vector<bool> fuses(n_);
    for (unsigned i = 0; i < n_; ++i) fuses[i] = fusible(dag_, i);
    for (unsigned v = 0; v < n_; ++v) {
      if (!fuses[v]) continue;
      for (const DagRef& a : dag_.ops[v].args)
        if (a.kind == DagRef::kOp && fuses[a.index] && dag_.ops[a.index].dim == dag_.ops[v].dim)
          try_union(find(a.index), find(v));
    }
    std::vector<std::vector<unsigned>> chains;
    for (unsigned i = 0; i < n_; ++i)
      if (parent_[i] == i && members_[i].size() > 1) {
        std::sort(members_[i].begin(), members_[i].end());
        chains.push_back(members_[i]);
      }
    std::sort(chains.begin(), chains.end());
    return chains;
  }

 private:
  unsigned find(unsigned i) {
    while (parent_[i] != i) i = parent_[i] = parent_[parent_[i]];
    return i;
  }

  void try_union(unsigned a, unsigned b) {
    if (a == b) return;
    std::vector<unsigned> merged = members_[a];
    merged.insert(merged.end(), members_[b].begin(), members_[b].end());
    if (!convex(merged) || values_read(merged) > kMaxChainValues) return;
    parent_[b] = a;
    members_[a] = std::move(merged);
    members_[b].clear();
  }

  /// No op outside `set` lies on a path between two of its members: an op outside that is an
  /// ancestor of a member must not descend from any member.
  bool convex(const std::vector<unsigned>& set) {
    std::vector<std::uint64_t> inside(ancestors_.words(), 0), above(ancestors_.words(), 0);
    for (unsigned m : set) {
      add(inside.data(), m);
      const std::uint64_t* row = ancestors_.row(m);
      for (std::size_t w = 0; w < above.size(); ++w) above[w] |= row[w];
    }
    for (unsigned w = 0; w < n_; ++w) {
      if (!has(above.data(), w) || has(inside.data(), w)) continue;
      const std::uint64_t* row = ancestors_.row(w);
      for (std::size_t k = 0; k < inside.size(); ++k)
        if (row[k] & inside[k]) return false;
    }
    return true;
  }

  /// The chain's ops plus the distinct values they read from outside it.
  std::size_t values_read(const std::vector<unsigned>& set) const {
    std::vector<DagRef> outside;
    for (unsigned m : set)
      for (const DagRef& a : reads_[m]) {
        const bool in_set = a.kind == DagRef::kOp && std::find(set.begin(), set.end(), a.index) != set.end();
        if (!in_set && std::find(outside.begin(), outside.end(), a) == outside.end()) outside.push_back(a);
      }
    return set.size() + outside.size();
  }

  const OpDag& dag_;
  unsigned n_;
  OpSets ancestors_;  // row i: the ops i depends on, i included
  std::vector<unsigned> parent_;
  std::vector<std::vector<unsigned>> members_;  // of each root
  std::vector<std::vector<DagRef>> reads_;      // distinct arguments of each op
};

}  // namespace

bool fusible(const OpDag& dag, unsigned op) {
  const DagOp& o = dag.ops[op];
  if (!o.op->elementwise.f || o.args.empty() || o.args.size() > kMaxChainArgs) return false;
  for (const DagRef& a : o.args)
    if (!broadcasts_to(dag.dim_of(a), o.dim)) return false;
  return true;
}

std::vector<std::vector<unsigned>> elementwise_chains(const OpDag& dag) { return ChainFinder(dag).run(); }

}  // namespace vertex
}  // namespace dynet
