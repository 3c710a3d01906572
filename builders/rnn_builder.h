#pragma once
// The interface of every recurrent builder, with DyNet's semantics. A builder turns a sequence
// of inputs into a sequence of states, one step per add_input(). Positions are numbered in the
// order they were added (RNNPointer); each remembers the position it continued from, so a
// builder can also grow trees of states (add_input(prev, x), beam search, rewind_one_step()).
//
//   builder.new_graph(cg);                  // once per graph: parameter expressions
//   builder.start_new_sequence();           // zero initial state (or give h_0)
//   for (x : xs) h = builder.add_input(x);  // x: {input_dim}, or a batch of them
//
// Inputs may be batched ({input_dim} with batch size B): every state then has batch size B.
// Dropout is variational (Gal and Ghahramani, 2016): one mask per layer for the inputs and one
// for the recurrent state, drawn once per sequence and reused at every step.

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "builders/builder_parameters.h"
#include "builders/cell_state.h"

namespace dynet {

/// A position in the builder's sequence; -1 is the initial state.
using RNNPointer = int;

class RNNBuilder : public BuilderParameters {
 public:
  /// Binds the builder to `cg`: parameter expressions are made here, once per graph (as
  /// constants when `update` is false). Starts a new, empty sequence.
  void new_graph(ComputationGraph& cg, bool update = true);
  /// A builder of the same kind over the same parameters, with graph and sequence state of its
  /// own: one per thread for graphs built at the same time (DataParallel).
  virtual std::unique_ptr<RNNBuilder> clone() const = 0;
  /// Starts a new sequence from h_0, or from zeros when h_0 is empty. h_0 holds
  /// num_h0_components() vectors of {hidden_dim}: for LSTMs the memory cells of every layer, then
  /// the outputs of every layer (DyNet's layout); otherwise the output of every layer.
  void start_new_sequence(const std::vector<Expression>& h_0 = {});
  /// Adds a step after the current position; returns the output of the top layer.
  Expression add_input(const Expression& x);
  /// Adds a step continuing from position `prev` (-1: the initial state).
  Expression add_input(RNNPointer prev, const Expression& x);
  /// Makes the position before the current one current again (the states stay in the graph).
  void rewind_one_step();

  /// The current position (-1 before the first step).
  RNNPointer state() const { return cur_; }
  /// The position `p` continued from.
  RNNPointer get_head(RNNPointer p) const;
  /// The position added last (-1 before the first step).
  RNNPointer last_added() const { return static_cast<RNNPointer>(states_.size()) - 1; }

  /// Adds a position after `prev` whose outputs are h_new (one per layer); LSTM cells are
  /// carried over from `prev`. Returns the top output.
  Expression set_h(RNNPointer prev, const std::vector<Expression>& h_new);
  /// Adds a position after `prev` with the full state s_new, laid out as get_s() returns it. An
  /// LSTM also accepts the cells alone (the outputs are carried over from `prev`).
  Expression set_s(RNNPointer prev, const std::vector<Expression>& s_new);

  /// The output of the top layer at the current position.
  Expression back() const;
  /// The outputs of every layer at the last position added (DyNet's h.back(): after
  /// rewind_one_step or a branch, not the current position, which back() and get_h(state()) read;
  /// before any step, the initial state).
  std::vector<Expression> final_h() const { return get_h(last_added()); }
  /// The full state at the last position added, in the layout of start_new_sequence's h_0.
  std::vector<Expression> final_s() const { return get_s(last_added()); }
  /// The outputs of every layer at position i (at -1: the initial state, empty when it is zero).
  std::vector<Expression> get_h(RNNPointer i) const;
  std::vector<Expression> get_s(RNNPointer i) const;
  /// How many vectors a full state holds: 2 * layers for LSTMs, layers otherwise.
  unsigned num_h0_components() const { return has_cell_ ? 2 * layers() : layers(); }

  /// Dropout rate d on the inputs of every layer and d_h on the recurrent state; 0 <= rate < 1.
  /// With one rate, a builder whose gates read the memory cell (CoupledLSTMBuilder, DyNet's
  /// LSTMBuilder) also drops the cells they read at that rate, as DyNet's does.
  void set_dropout(float d) { set_dropout(d, d, gates_read_cells() ? d : 0.f); }
  void set_dropout(float d, float d_h) { set_dropout(d, d_h, 0.f); }
  /// d_c: the rate on the cells the gates read (one mask a sequence and layer for both the
  /// previous and the new cell, as DyNet's); only for a builder whose gates read cells.
  void set_dropout(float d, float d_h, float d_c);
  void disable_dropout() { set_dropout(0.f, 0.f, 0.f); }
  /// Draws this sequence's masks for batch size `batch_size`. add_input draws them for the
  /// batch size of its first input when this was not called.
  void set_dropout_masks(unsigned batch_size = 1);

 protected:
  RNNBuilder(ParameterCollection& model, const std::string& name, const std::string& collection, unsigned layers,
             unsigned input_dim, unsigned hidden_dim, bool has_cell, UpperLayerInput upper = UpperLayerInput::below);
  RNNBuilder(const std::string& name, bool has_cell) : BuilderParameters(name), has_cell_(has_cell) {}

  /// One step of layer `layer`: x is the layer's input (dropout applied), prev its previous state
  /// (null for a zero state) and h_rec the previous output with the recurrent mask applied, which
  /// is what the recurrent matrices read. A builder that fuses dropout gets both without the masks.
  virtual CellState step(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec) = 0;
  /// A variant of step() for one call, such as a cell that also reads an auxiliary input.
  using LayerCell =
      std::function<CellState(unsigned layer, const Expression& x, const CellState* prev, const Expression& h_rec)>;
  /// add_input(prev, x) computing each layer with `cell` (step() when null); `who` is the method
  /// the user called, as messages name it.
  Expression add_step(RNNPointer prev, const Expression& x, const LayerCell* cell, const char* who);
  /// What add_input returns for a new position, given its state per layer: the top output.
  virtual Expression step_output(const std::vector<CellState>& layers) const { return layers.back().h; }
  /// True for a builder whose step() multiplies by the dropout masks itself, inside a fused op.
  virtual bool fuses_dropout() const { return false; }
  /// True for a builder whose gates read the memory cell, which a cell dropout rate then drops.
  virtual bool gates_read_cells() const { return false; }
  /// This sequence's mask of layer `layer` for the cells the gates read, {hidden}; empty without
  /// cell dropout.
  Expression cell_dropout_mask(unsigned layer) const { return masks_c_.empty() ? Expression() : masks_c_[layer]; }
  /// This sequence's dropout masks of layer `layer`, {its input} and {hidden}, for a step() that
  /// fuses dropout: both empty without dropout; with one rate 0 its mask is all ones.
  std::pair<Expression, Expression> dropout_masks(unsigned layer) const;

 private:
  void forget_dropout_masks();
  const std::vector<CellState>& states_at(RNNPointer i, const char* who) const;
  RNNPointer check_prev(RNNPointer prev, const char* who) const;
  /// Throws std::invalid_argument, naming what the user passed, unless the input's batch size and
  /// those of `state` (at position `prev`) agree or are 1: the cell would mix them.
  void check_state_batch(const std::vector<CellState>& state, RNNPointer prev, unsigned batch, const char* who) const;
  /// Makes `states` (per layer) the position after `prev` and the current one; returns its top output.
  Expression append_position(RNNPointer prev, std::vector<CellState> states);
  /// A state of `batch` zeros for a carried-over part that was never given.
  Expression zeros_like_state(unsigned batch) const;

  bool has_cell_;
  float dropout_x_ = 0.f, dropout_h_ = 0.f, dropout_c_ = 0.f;
  std::vector<Expression> masks_x_, masks_h_, masks_c_;  ///< per layer (empty expressions for a rate of 0)
  unsigned masks_batch_ = 0;                             ///< the batch size the masks were drawn for; 0: none yet
  std::vector<CellState> initial_;                       ///< per layer; empty for a zero initial state
  std::vector<std::vector<CellState>> states_;           ///< per position, then per layer
  std::vector<RNNPointer> head_;                         ///< the position each position continued from
  RNNPointer cur_ = -1;
};

}  // namespace dynet
