#include "autobatch/group_scheduler.h"

#include <algorithm>

#include "dynet_core/graph.h"

namespace dynet {

void GroupScheduler::start(const ComputationGraph& cg, VariableIndex begin, VariableIndex end,
                           const ScheduleUnits* units) {
  begin_ = begin;
  units_ = units && !units->first.empty() ? units : nullptr;
  const std::uint32_t n = end - begin;
  key_of_.assign(n, kNotScheduled);
  pending_.assign(n, 0);
  consumer_start_.assign(n + 1, 0);
  keys_.clear();
  active_.clear();
  alone_.clear();
  group_.clear();
  leaves_.clear();
  if (units_)
    plan<true>(cg);
  else
    plan<false>(cg);
  for (std::uint32_t j = 0; j < n; ++j)
    if (key_of_[j] != kNotScheduled && key_of_[j] != kInUnit && pending_[j] == 0) make_ready(begin + j);
}

void GroupScheduler::start_key(std::uint32_t k) {
  if (ready_.size() <= k) {
    ready_.resize(k + 1);
    remaining_.resize(k + 1);
    key_nodes_.resize(k + 1);
    key_depth_sum_.resize(k + 1);
    ready_height_.resize(k + 1);
  }
  ready_[k].clear();
  remaining_[k] = 0;
  key_nodes_[k] = 0;
  key_depth_sum_[k] = 0;
  ready_height_[k] = 0;
}

template <bool kUnits>
void GroupScheduler::plan(const ComputationGraph& cg) {
  count_dependencies<kUnits>(cg);
  list_consumers<kUnits>(cg);
  if (policy_ == Policy::Agenda) rank_by_height<kUnits>();
}

template <bool kUnits>
void GroupScheduler::count_dependencies(const ComputationGraph& cg) {
  const std::uint32_t n = static_cast<std::uint32_t>(key_of_.size());
  for (std::uint32_t j = 0; j < n; ++j) {
    const Node& nd = cg.node(begin_ + j);
    if (nd.op->value_alias) {
      leaves_.push_back(begin_ + j);
      continue;
    }
    const std::uint32_t unit = kUnits ? units_->unit_of[j] : ScheduleUnits::kNoUnit;
    const std::uint32_t self = scheduled_as<kUnits>(j);
    if (self != j) {
      key_of_[j] = kInUnit;
    } else if (nd.signature == 0 && unit == ScheduleUnits::kNoUnit) {
      key_of_[j] = kAlone;
    } else {
      const std::uint64_t signature = unit == ScheduleUnits::kNoUnit ? nd.signature : units_->key[unit];
      const std::uint32_t k = key_id(policy_ == Policy::Depth ? spread(signature ^ spread(nd.depth + 1)) : signature);
      key_of_[j] = k;
      ++remaining_[k];
      ++key_nodes_[k];
      if (policy_ == Policy::Depth) key_depth_sum_[k] += nd.depth;
    }
    const VariableIndex* args = nd.args();
    for (unsigned i = 0; i < nd.nargs; ++i) {
      const VariableIndex a = args[i];
      if (!waits_for<kUnits>(a, self)) continue;
      ++pending_[self];
      ++consumer_start_[a - begin_ + 1];
    }
  }
}

template <bool kUnits>
void GroupScheduler::list_consumers(const ComputationGraph& cg) {
  const std::uint32_t n = static_cast<std::uint32_t>(key_of_.size());
  for (std::uint32_t j = 0; j < n; ++j) consumer_start_[j + 1] += consumer_start_[j];
  consumers_.resize(consumer_start_[n]);
  for (std::uint32_t j = 0; j < n; ++j) {
    if (key_of_[j] == kNotScheduled) continue;
    const Node& nd = cg.node(begin_ + j);
    const VariableIndex* args = nd.args();
    const std::uint32_t self = scheduled_as<kUnits>(j);
    for (unsigned i = 0; i < nd.nargs; ++i) {
      const VariableIndex a = args[i];
      if (!waits_for<kUnits>(a, self)) continue;
      consumers_[consumer_start_[a - begin_]++] = begin_ + self;
    }
  }
  for (std::uint32_t j = n; j > 0; --j) consumer_start_[j] = consumer_start_[j - 1];
  consumer_start_[0] = 0;
}

template <bool kUnits>
void GroupScheduler::rank_by_height() {
  height_.assign(key_of_.size(), 0);
  for (std::uint32_t j = static_cast<std::uint32_t>(key_of_.size()); j-- > 0;) {
    if (key_of_[j] == kNotScheduled) continue;
    std::uint32_t h = height_[j];
    for (std::uint32_t c = consumer_start_[j]; c < consumer_start_[j + 1]; ++c)
      h = std::max(h, height_[consumers_[c] - begin_] + 1);
    // A unit is scheduled as its first node, which comes before its other nodes: it is as high as
    // the highest of them.
    const std::uint32_t self = scheduled_as<kUnits>(j);
    if (self != j) {
      height_[self] = std::max(height_[self], h);
      continue;
    }
    height_[j] = h;
  }
}

void GroupScheduler::make_ready(VariableIndex node) {
  const std::uint32_t k = key_of_[node - begin_];
  if (k == kAlone) {
    alone_.push_back(node);
    return;
  }
  std::vector<VariableIndex>& r = ready_[k];
  if (r.empty()) active_.push_back(k);
  r.push_back(node);
  if (policy_ == Policy::Agenda) ready_height_[k] = std::max(ready_height_[k], height_[node - begin_]);
}

bool GroupScheduler::runs_before(std::uint32_t a, std::uint32_t b) const {
  if (policy_ == Policy::Agenda) {
    const bool complete_a = ready_[a].size() == remaining_[a], complete_b = ready_[b].size() == remaining_[b];
    if (complete_a != complete_b) return complete_a;
    if (ready_height_[a] != ready_height_[b]) return ready_height_[a] > ready_height_[b];
  } else {
    const double depth_a = key_depth_sum_[a] / key_nodes_[a], depth_b = key_depth_sum_[b] / key_nodes_[b];
    if (depth_a != depth_b) return depth_a < depth_b;
  }
  return ready_[a].size() > ready_[b].size();
}

std::uint32_t GroupScheduler::pick_key() const {
  std::uint32_t best = active_[0];
  for (std::uint32_t k : active_)
    if (runs_before(k, best)) best = k;
  return best;
}

const std::vector<VariableIndex>& GroupScheduler::next() {
  group_.clear();
  if (!alone_.empty()) {
    group_.push_back(alone_.back());
    alone_.pop_back();
    return group_;
  }
  if (active_.empty()) return group_;
  const std::uint32_t k = pick_key();
  for (std::size_t a = 0; a < active_.size(); ++a)
    if (active_[a] == k) {
      active_[a] = active_.back();
      active_.pop_back();
      break;
    }
  group_.swap(ready_[k]);  // ready_[k] keeps group_'s cleared buffer
  remaining_[k] -= static_cast<std::uint32_t>(group_.size());
  ready_height_[k] = 0;
  return group_;
}

void GroupScheduler::computed(const VariableIndex* nodes, std::uint32_t count) {
  for (std::uint32_t b = 0; b < count; ++b) {
    const std::uint32_t local = nodes[b] - begin_;
    for (std::uint32_t c = consumer_start_[local]; c < consumer_start_[local + 1]; ++c) {
      const VariableIndex consumer = consumers_[c];
      if (--pending_[consumer - begin_] == 0) make_ready(consumer);
    }
  }
}

}  // namespace dynet
