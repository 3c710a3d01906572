#pragma once
// A bidirectional RNN over any RNNBuilder (as DyNet's Python BiRNNBuilder): each layer runs one
// builder left to right and one right to left, each with hidden_dim / 2 units, and the next
// layer reads their outputs concatenated. Inputs may be batched (all of one batch size).
//
//   BiRNNBuilder bi(1, 128, 100, model, builder_factory<VanillaLSTMBuilder>());
//   bi.new_graph(cg);
//   std::vector<Expression> hs = bi.transduce(xs);  // one {100} vector per position

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "builders/rnn_builder.h"

namespace dynet {

/// Makes one single-layer builder of the given sizes in the model.
using RNNBuilderFactory =
    std::function<std::unique_ptr<RNNBuilder>(unsigned input_dim, unsigned hidden_dim, ParameterCollection& model)>;

/// A factory for builders of type Builder (any RNNBuilder with DyNet's constructor).
template <class Builder>
RNNBuilderFactory builder_factory() {
  return [](unsigned input_dim, unsigned hidden_dim, ParameterCollection& model) -> std::unique_ptr<RNNBuilder> {
    return std::make_unique<Builder>(1, input_dim, hidden_dim, model);
  };
}

class BiRNNBuilder {
 public:
  /// hidden_dim must be even: each direction has hidden_dim / 2 units. The builders' parameters
  /// live in a subcollection of model named `name` (DyNet's Python BiRNNBuilder names it "birnn").
  BiRNNBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model,
               const RNNBuilderFactory& factory, const std::string& name = "bi-rnn-builder");
  /// A BiRNN over the same parameters with graph state of its own (see RNNBuilder::clone).
  BiRNNBuilder(const BiRNNBuilder& other);
  BiRNNBuilder& operator=(const BiRNNBuilder&) = delete;
  BiRNNBuilder(BiRNNBuilder&&) = default;

  void new_graph(ComputationGraph& cg, bool update = true);
  /// The top layer's output at every position: [forward; backward], {hidden_dim} each.
  std::vector<Expression> transduce(const std::vector<Expression>& xs);
  /// The top layer's (forward, backward) outputs at every position, {hidden_dim / 2} each. The
  /// forward output at the last position and the backward output at the first summarize the sequence.
  std::vector<std::pair<Expression, Expression>> add_inputs(const std::vector<Expression>& xs);

  void set_dropout(float d, float d_h);
  void disable_dropout();

  RNNBuilder& forward_builder(unsigned layer) { return *forward_.at(layer); }
  RNNBuilder& backward_builder(unsigned layer) { return *backward_.at(layer); }
  ParameterCollection& get_parameter_collection() { return local_model_; }
  unsigned layers() const { return static_cast<unsigned>(forward_.size()); }
  unsigned input_dim() const { return input_dim_; }
  unsigned hidden_dim() const { return hidden_dim_; }

 private:
  /// add_inputs, with messages naming the inner builders' calls.
  std::vector<std::pair<Expression, Expression>> run_layers(const std::vector<Expression>& xs);

  unsigned input_dim_, hidden_dim_;
  ParameterCollection local_model_;
  std::vector<std::unique_ptr<RNNBuilder>> forward_, backward_;
};

}  // namespace dynet
