#include "dynet_core/gradient_set.h"

#include <algorithm>

#include "dynet_core/device/device.h"

namespace dynet {

namespace {

thread_local GradientSet* active_set = nullptr;

/// Held by whoever adds into parameters' own gradients: a direct backward pass, or a set's sum.
std::mutex parameter_gradients;

/// Sets of passes that found the parameters' gradients held, kept for later passes: a finished
/// graph's parameter nodes may still point into one, so they are never freed.
struct SpareSets {
  std::mutex mutex;
  std::vector<std::unique_ptr<GradientSet>> free;

  std::unique_ptr<GradientSet> take() {
    std::lock_guard<std::mutex> lock(mutex);
    if (free.empty()) return std::make_unique<GradientSet>();
    std::unique_ptr<GradientSet> s = std::move(free.back());
    free.pop_back();
    return s;
  }
  void give_back(std::unique_ptr<GradientSet> s) {
    std::lock_guard<std::mutex> lock(mutex);
    free.push_back(std::move(s));
  }
};

SpareSets& spare_sets() {
  static SpareSets* sets = new SpareSets;  // outlives threads still in backward at exit
  return *sets;
}

}  // namespace

GradientSet* GradientSet::active() { return active_set; }

GradientSet::Scope::Scope(GradientSet* set) : previous_(active_set) { active_set = set; }
GradientSet::Scope::~Scope() { active_set = previous_; }

float* GradientSet::gradient(ParameterStorage& p) {
  Dense& d = params_[&p];
  if (!d.used) {
    // A set outlives the parameters it served, so a new one may come at a freed one's address,
    // with another size or on another device.
    if (d.size != p.size() || d.device != p.device) {
      d.g = p.device->allocate_parameter_floats(p.size());
      d.size = p.size();
      d.device = p.device;
    }
    p.device->zero(d.g, d.size);
    d.used = true;
  }
  return d.g;
}

GradientSet::Table& GradientSet::table(LookupParameterStorage& t) {
  Table& s = tables_[&t];
  // A set outlives the tables it served, so a new table may come at a freed one's address, with
  // another size or on another device.
  const std::size_t size = std::size_t(t.n) * t.row_size();
  if (s.size != size || s.device != t.device) {
    s.g = t.device->allocate_parameter_floats(size);
    s.size = size;
    s.device = t.device;
    t.device->zero(s.g, size);
    s.mask.assign(t.n, 0);
  }
  return s;
}

float* GradientSet::table_gradient(LookupParameterStorage& t) {
  Table& s = table(t);
  s.all = true;
  return s.g;
}

float* GradientSet::row_gradient(LookupParameterStorage& t, unsigned i) {
  Table& s = table(t);
  if (!s.mask[i]) {
    s.mask[i] = 1;
    s.touched.push_back(i);
  }
  return s.g + std::size_t(i) * t.row_size();
}

void GradientSet::row_runs(const Table& s, std::size_t row, float* to) {
  runs_.clear();
  for (unsigned i : s.touched)
    runs_.push_back({to ? to + std::size_t(i) * row : s.g + std::size_t(i) * row, s.g + std::size_t(i) * row, row});
}

void GradientSet::add_to_parameters() {
  const std::lock_guard<std::mutex> lock(parameter_gradients);
  for (auto& [p, d] : params_) {
    if (!d.used) continue;
    p->device->accumulate(p->g.v, d.g, d.size);
    p->nonzero_grad = true;
  }
  for (auto& [t, s] : tables_) {
    if (!s.written()) continue;
    LookupParameterStorage& table = *t;
    if (s.all) {
      table.device->accumulate(table.all_grads.v, s.g, s.size);
      table.all_updated = true;
    } else {
      row_runs(s, table.row_size(), table.all_grads.v);
      table.device->apply_runs(RunOp::Accumulate, runs_.data(), runs_.size());
      for (unsigned i : s.touched) table.non_zero_grads.insert(i);
    }
    table.nonzero_grad = true;
  }
  clear();
}

void GradientSet::clear() {
  for (auto& entry : params_) entry.second.used = false;
  for (auto& entry : tables_) {
    Table& s = entry.second;
    if (!s.written()) continue;
    Device& device = *entry.first->device;
    if (s.all) {
      device.zero(s.g, s.size);
    } else {
      row_runs(s, entry.first->row_size(), nullptr);
      device.apply_runs(RunOp::Zero, runs_.data(), runs_.size());
    }
    for (unsigned i : s.touched) s.mask[i] = 0;
    s.touched.clear();
    s.all = false;
  }
}

BackwardGradients::BackwardGradients() {
  if (GradientSet::active()) return;
  direct_ = std::unique_lock<std::mutex>(parameter_gradients, std::try_to_lock);
  if (direct_.owns_lock()) return;
  own_ = spare_sets().take();
  scope_.emplace(own_.get());
}

BackwardGradients::~BackwardGradients() {
  if (!own_) return;
  scope_.reset();
  own_->add_to_parameters();
  spare_sets().give_back(std::move(own_));
}

}  // namespace dynet
