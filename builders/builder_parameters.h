#pragma once
// What every builder shares: its parameters, grouped per layer in a subcollection of the model,
// and their expressions in the graph the builder currently builds into. The expressions are made
// once per graph (new_graph), so every step of every sequence or tree refers to the same weight
// nodes: an autobatcher sees one shared weight per gate block and can run all the steps that are
// ready as one matrix product.

#include <cstdint>
#include <string>
#include <vector>

#include "dynet_core/expression.h"
#include "dynet_core/param_collection.h"

namespace dynet {

class ComputationGraph;

/// What the layers above the first read: the output of the layer below (a plain stack), or that
/// output and the step's input joined, {hidden + input} (DyNet's DeepLSTMBuilder).
enum class UpperLayerInput { below, below_and_input };

class BuilderParameters {
 public:
  virtual ~BuilderParameters() = default;

  /// The builder's own subcollection of the model (save or load it to keep the builder alone).
  ParameterCollection& get_parameter_collection() { return local_model_; }
  /// The parameters per layer, in the order the builder's header documents.
  const std::vector<std::vector<Parameter>>& layer_parameters() const { return params_; }
  unsigned layers() const { return layers_; }
  unsigned input_dim() const { return input_dim_; }
  unsigned hidden_dim() const { return hidden_dim_; }

  /// The parameters per layer as DyNet's builder of the same kind lists them (DyNet's public
  /// member): layer_parameters(), except where a builder's header says otherwise.
  std::vector<std::vector<Parameter>> params;
  /// The expressions of `params` in the graph of the last new_graph, per layer and in the same
  /// order (DyNet's `param_vars`): the nodes the builder's steps read. Empty before new_graph.
  std::vector<std::vector<Expression>> parameter_expressions() const;

 protected:
  /// Checks the sizes (all > 0) and creates the subcollection `collection` of `model` (DyNet's
  /// name for it); `name` is the builder's class, as messages name it.
  BuilderParameters(ParameterCollection& model, const std::string& name, const std::string& collection, unsigned layers,
                    unsigned input_dim, unsigned hidden_dim, UpperLayerInput upper = UpperLayerInput::below);
  /// A builder without parameters (DyNet's default constructors), to be assigned a real one;
  /// new_graph on it throws std::invalid_argument.
  explicit BuilderParameters(const std::string& name) : name_(name), layers_(0), input_dim_(0), hidden_dim_(0) {}

  /// The input size of layer `layer`: input_dim for the first, hidden_dim above (plus input_dim
  /// when the upper layers also read the input).
  unsigned layer_input_dim(unsigned layer) const {
    return layer == 0 ? input_dim_ : hidden_dim_ + (upper_ == UpperLayerInput::below_and_input ? input_dim_ : 0);
  }
  UpperLayerInput upper_layer_input() const { return upper_; }
  /// Adds a parameter of layer `layer` (layers are filled in order, starting with layer 0).
  Parameter add_layer_parameter(unsigned layer, const Dim& d, float init_constant);
  Parameter add_layer_parameter(unsigned layer, const Dim& d);
  /// The same in `collection` instead of the builder's subcollection, where DyNet's builder puts
  /// it there (VanillaLSTMBuilder's layer-norm gains and biases go to the model it was given).
  Parameter add_layer_parameter(unsigned layer, const Dim& d, float init_constant, ParameterCollection& collection);

  /// Makes the expressions of every parameter in `cg` (constants when `update` is false), then
  /// those derived from them (derive_graph_expressions).
  void bind_graph(ComputationGraph& cg, bool update);
  /// Called by bind_graph once the parameter expressions exist, for expressions a builder derives
  /// from them once per graph (its fused weights) and the graph state of builders it is made of.
  virtual void derive_graph_expressions(ComputationGraph&, bool) {}
  /// The expression of parameter `k` of layer `layer` in the bound graph.
  const Expression& var(unsigned layer, unsigned k) const { return vars_[layer][k]; }
  /// Makes var(layer, k) an expression derived from the parameter, for a builder whose steps read
  /// the parameter through it (SparseLSTMBuilder's masked weights); from derive_graph_expressions.
  void set_var(unsigned layer, unsigned k, const Expression& e) { vars_[layer][k] = e; }
  /// The graph of the last new_graph(); throws std::invalid_argument naming `who` when there is none.
  ComputationGraph& graph(const char* who) const;
  /// Throws std::invalid_argument unless x is a live expression of the bound graph holding one
  /// column vector of `rows` rows per batch element. `what` names x in the message.
  void check_vector(const Expression& x, unsigned rows, const char* who, const char* what) const;
  /// The builder's class name, as messages name it.
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  unsigned layers_, input_dim_, hidden_dim_;
  UpperLayerInput upper_ = UpperLayerInput::below;
  ParameterCollection local_model_;
  std::vector<std::vector<Parameter>> params_;
  std::vector<std::vector<Expression>> vars_;
  ComputationGraph* cg_ = nullptr;
  std::uint64_t graph_id_ = 0;
};

}  // namespace dynet
