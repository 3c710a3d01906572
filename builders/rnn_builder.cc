#include "builders/rnn_builder.h"

#include <stdexcept>
#include <string>

#include "dynet_core/graph.h"
#include "dynet_core/ops/arithmetic.h"
#include "dynet_core/ops/leaves.h"
#include "dynet_core/ops/random.h"
#include "dynet_core/ops/shape.h"
#include "dynet_core/vertex_scope.h"

namespace dynet {

RNNBuilder::RNNBuilder(ParameterCollection& model, const std::string& name, const std::string& collection,
                       unsigned layers, unsigned input_dim, unsigned hidden_dim, bool has_cell, UpperLayerInput upper)
    : BuilderParameters(model, name, collection, layers, input_dim, hidden_dim, upper), has_cell_(has_cell) {}

void RNNBuilder::new_graph(ComputationGraph& cg, bool update) {
  bind_graph(cg, update);
  initial_.clear();
  states_.clear();
  head_.clear();
  forget_dropout_masks();
  cur_ = -1;
}

void RNNBuilder::start_new_sequence(const std::vector<Expression>& h_0) {
  graph("start_new_sequence");
  std::vector<CellState> initial;
  if (!h_0.empty()) {
    if (h_0.size() != num_h0_components())
      throw std::invalid_argument(
          name() + "::start_new_sequence: h_0 holds " + std::to_string(h_0.size()) + " expressions, expected " +
          std::to_string(num_h0_components()) +
          (has_cell_ ? " (the cell of every layer, then the output of every layer)" : " (the output of every layer)"));
    for (const Expression& e : h_0) check_vector(e, hidden_dim(), "start_new_sequence", "an h_0 vector");
    const unsigned n = layers();
    for (unsigned l = 0; l < n; ++l)
      initial.push_back(has_cell_ ? CellState{h_0[n + l], h_0[l]} : CellState{h_0[l], Expression()});
  }
  initial_ = std::move(initial);
  states_.clear();
  head_.clear();
  forget_dropout_masks();
  cur_ = -1;
}

void RNNBuilder::set_dropout(float d, float d_h, float d_c) {
  for (float rate : {d, d_h, d_c})
    if (!(rate >= 0.f && rate < 1.f))
      throw std::invalid_argument(name() + "::set_dropout: a dropout rate must be in [0, 1), got " +
                                  std::to_string(rate));
  if (d_c > 0.f && !gates_read_cells())
    throw std::invalid_argument(name() + "::set_dropout: it has no cell dropout (as DyNet's, only CoupledLSTMBuilder " +
                                "drops the cells its gates read); a cell rate of " + std::to_string(d_c) +
                                " was given");
  dropout_x_ = d;
  dropout_h_ = d_h;
  dropout_c_ = d_c;
  forget_dropout_masks();
}

void RNNBuilder::set_dropout_masks(unsigned batch_size) {
  ComputationGraph& cg = graph("set_dropout_masks");
  if (batch_size == 0) throw std::invalid_argument(name() + "::set_dropout_masks: the batch size must be positive");
  // A fused op takes both masks or none, as DyNet's: a rate of 0 then draws a mask of ones.
  const bool both = fuses_dropout() && (dropout_x_ > 0.f || dropout_h_ > 0.f);
  auto mask = [&](float rate, unsigned rows) {
    return rate > 0.f || both ? random_bernoulli(cg, Dim({rows}, batch_size), 1.f - rate, 1.f / (1.f - rate))
                              : Expression();
  };
  forget_dropout_masks();
  masks_batch_ = batch_size;
  for (unsigned l = 0; l < layers(); ++l) {
    masks_x_.push_back(mask(dropout_x_, layer_input_dim(l)));
    masks_h_.push_back(mask(dropout_h_, hidden_dim()));
    if (dropout_c_ > 0.f) masks_c_.push_back(mask(dropout_c_, hidden_dim()));
  }
}

std::pair<Expression, Expression> RNNBuilder::dropout_masks(unsigned layer) const {
  if (masks_x_.empty()) return {};
  return {masks_x_[layer], masks_h_[layer]};
}

void RNNBuilder::forget_dropout_masks() {
  masks_x_.clear();
  masks_h_.clear();
  masks_c_.clear();
  masks_batch_ = 0;
}

RNNPointer RNNBuilder::check_prev(RNNPointer prev, const char* who) const {
  if (prev < -1 || prev >= static_cast<RNNPointer>(states_.size()))
    throw std::invalid_argument(name() + "::" + who + ": position " + std::to_string(prev) +
                                " does not exist (the sequence has positions -1.." +
                                std::to_string(static_cast<int>(states_.size()) - 1) + ")");
  return prev;
}

Expression RNNBuilder::add_input(const Expression& x) { return add_input(cur_, x); }

Expression RNNBuilder::add_input(RNNPointer prev, const Expression& x) {
  return add_step(prev, x, nullptr, "add_input");
}

Expression RNNBuilder::add_step(RNNPointer prev, const Expression& x, const LayerCell* cell, const char* who) {
  check_prev(prev, who);
  check_vector(x, input_dim(), who, "the input");
  const unsigned batch = x.dim().bd;
  const bool dropping = dropout_x_ > 0.f || dropout_h_ > 0.f || dropout_c_ > 0.f;
  if (dropping && masks_batch_ == 0) set_dropout_masks(batch);
  // An input of one batch element meets masks drawn for more as DyNet's cmult does: the step
  // broadcasts it over the masks' batch.
  if (dropping && masks_batch_ > 1 && batch != 1 && masks_batch_ != batch)
    throw std::invalid_argument(name() + "::" + who + ": the input has batch size " + std::to_string(batch) +
                                " but this sequence's dropout masks were drawn for batch size " +
                                std::to_string(masks_batch_));

  const std::vector<CellState>* before =
      prev >= 0 ? &states_[static_cast<unsigned>(prev)] : (initial_.empty() ? nullptr : &initial_);
  if (before) check_state_batch(*before, prev, batch, who);
  std::vector<CellState> now(layers());
  const bool fused = fuses_dropout();
  const VertexScope scope(graph(who), name());
  for (unsigned l = 0; l < layers(); ++l) {
    Expression in = l == 0                                                    ? x
                    : upper_layer_input() == UpperLayerInput::below_and_input ? concatenate({now[l - 1].h, x})
                                                                              : now[l - 1].h;
    if (dropout_x_ > 0.f && !fused) in = cmult(in, masks_x_[l]);
    const CellState* p = before ? &(*before)[l] : nullptr;
    Expression h_rec;
    if (p) h_rec = dropout_h_ > 0.f && !fused ? cmult(p->h, masks_h_[l]) : p->h;
    now[l] = cell ? (*cell)(l, in, p, h_rec) : step(l, in, p, h_rec);
  }
  append_position(prev, std::move(now));
  return step_output(states_.back());
}

void RNNBuilder::check_state_batch(const std::vector<CellState>& state, RNNPointer prev, unsigned batch,
                                   const char* who) const {
  const bool from_input = batch != 1;
  for (const CellState& s : state)
    for (const Expression* e : {&s.h, &s.c}) {
      const unsigned b = e->pg ? e->dim().bd : 1;
      if (b == 1 || b == batch) continue;
      if (batch == 1) {
        batch = b;
        continue;
      }
      const std::string where =
          prev < 0 ? "the initial state given to start_new_sequence" : "the state at position " + std::to_string(prev);
      throw std::invalid_argument(
          name() + "::" + who + ": " +
          (from_input ? "the input has batch size " + std::to_string(batch) + ", but " + where + " has batch size " +
                            std::to_string(b)
                      : where + " mixes batch sizes " + std::to_string(batch) + " and " + std::to_string(b)) +
          " (batch sizes must agree, or be 1)");
    }
}

void RNNBuilder::rewind_one_step() {
  if (cur_ < 0) throw std::invalid_argument(name() + "::rewind_one_step: the sequence is at its initial state");
  cur_ = head_[static_cast<unsigned>(cur_)];
}

RNNPointer RNNBuilder::get_head(RNNPointer p) const {
  if (p < 0 || p >= static_cast<RNNPointer>(states_.size()))
    throw std::invalid_argument(name() + "::get_head: position " + std::to_string(p) + " does not exist");
  return head_[static_cast<unsigned>(p)];
}

Expression RNNBuilder::zeros_like_state(unsigned batch) const {
  return zeros(graph("zeros"), Dim({hidden_dim()}, batch));
}

Expression RNNBuilder::set_h(RNNPointer prev, const std::vector<Expression>& h_new) {
  check_prev(prev, "set_h");
  if (h_new.size() != layers())
    throw std::invalid_argument(name() + "::set_h: got " + std::to_string(h_new.size()) +
                                " outputs, expected one per layer (" + std::to_string(layers()) + ")");
  for (const Expression& e : h_new) check_vector(e, hidden_dim(), "set_h", "an output");
  const std::vector<CellState>& before = states_at(prev, "set_h");
  std::vector<CellState> now(layers());
  for (unsigned l = 0; l < layers(); ++l) {
    now[l].h = h_new[l];
    if (has_cell_) now[l].c = before.empty() ? zeros_like_state(h_new[l].dim().bd) : before[l].c;
  }
  return append_position(prev, std::move(now));
}

Expression RNNBuilder::set_s(RNNPointer prev, const std::vector<Expression>& s_new) {
  check_prev(prev, "set_s");
  const unsigned n = layers();
  const bool cells_only = has_cell_ && s_new.size() == n;
  if (s_new.size() != num_h0_components() && !cells_only)
    throw std::invalid_argument(name() + "::set_s: got " + std::to_string(s_new.size()) + " vectors, expected " +
                                std::to_string(num_h0_components()) +
                                (has_cell_ ? " (cells, then outputs) or " + std::to_string(n) + " (cells only)" : ""));
  for (const Expression& e : s_new) check_vector(e, hidden_dim(), "set_s", "a state vector");
  const std::vector<CellState>& before = states_at(prev, "set_s");
  std::vector<CellState> now(n);
  for (unsigned l = 0; l < n; ++l) {
    if (!has_cell_) {
      now[l].h = s_new[l];
      continue;
    }
    now[l].c = s_new[l];
    if (!cells_only)
      now[l].h = s_new[n + l];
    else
      now[l].h = before.empty() ? zeros_like_state(s_new[l].dim().bd) : before[l].h;
  }
  return append_position(prev, std::move(now));
}

Expression RNNBuilder::append_position(RNNPointer prev, std::vector<CellState> states) {
  states_.push_back(std::move(states));
  head_.push_back(prev);
  cur_ = static_cast<RNNPointer>(states_.size()) - 1;
  return states_.back().back().h;
}

const std::vector<CellState>& RNNBuilder::states_at(RNNPointer i, const char* who) const {
  check_prev(i, who);
  return i < 0 ? initial_ : states_[static_cast<unsigned>(i)];
}

Expression RNNBuilder::back() const {
  const std::vector<CellState>& s = states_at(cur_, "back");
  if (s.empty()) throw std::invalid_argument(name() + "::back: no input was added and the initial state is zero");
  return s.back().h;
}

std::vector<Expression> RNNBuilder::get_h(RNNPointer i) const { return outputs_of(states_at(i, "get_h")); }

std::vector<Expression> RNNBuilder::get_s(RNNPointer i) const {
  return full_state_of(states_at(i, "get_s"), has_cell_);
}

}  // namespace dynet
