#include "dynet_core/gradient_set.h"

#include <algorithm>

#include "dynet_core/ops/accumulate.h"

namespace dynet {

namespace {
thread_local GradientSet* active_set = nullptr;
}  // namespace

GradientSet* GradientSet::active() { return active_set; }

GradientSet::Scope::Scope(GradientSet* set) : previous_(active_set) { active_set = set; }
GradientSet::Scope::~Scope() { active_set = previous_; }

float* GradientSet::gradient(const ParameterStorage& p) {
  Dense& d = params_[&p];
  if (!d.used) {
    d.g.assign(p.size(), 0.f);
    d.used = true;
  }
  return d.g.data();
}

GradientSet::Table& GradientSet::table(LookupParameterStorage& t) {
  Table& s = tables_[&t];
  if (s.g.empty()) {
    s.g.assign(std::size_t(t.n) * t.row_size(), 0.f);
    s.mask.assign(t.n, 0);
  }
  return s;
}

float* GradientSet::table_gradient(LookupParameterStorage& t) {
  Table& s = table(t);
  s.all = true;
  return s.g.data();
}

float* GradientSet::row_gradient(LookupParameterStorage& t, unsigned i) {
  Table& s = table(t);
  if (!s.mask[i]) {
    s.mask[i] = 1;
    s.touched.push_back(i);
  }
  return s.g.data() + std::size_t(i) * t.row_size();
}

void GradientSet::add_to_parameters() {
  for (auto& [p, d] : params_)
    if (d.used) accumulate(p->g.v, d.g.data(), d.g.size());
  for (auto& [t, s] : tables_) {
    LookupParameterStorage& table = *t;
    const std::size_t row = table.row_size();
    if (s.all) {
      accumulate(table.all_grads.v, s.g.data(), s.g.size());
      table.all_touched = true;
    } else {
      for (unsigned i : s.touched) {
        accumulate(table.grad_row(i), s.g.data() + std::size_t(i) * row, row);
        table.mark_touched(i);
      }
    }
  }
  clear();
}

void GradientSet::clear() {
  for (auto& entry : params_) entry.second.used = false;
  for (auto& entry : tables_) {
    Table& s = entry.second;
    const std::size_t row = entry.first->row_size();
    if (s.all) {
      std::fill(s.g.begin(), s.g.end(), 0.f);
    } else {
      for (unsigned i : s.touched) std::fill_n(s.g.begin() + std::size_t(i) * row, row, 0.f);
    }
    for (unsigned i : s.touched) s.mask[i] = 0;
    s.touched.clear();
    s.all = false;
  }
}

}  // namespace dynet
