#pragma once
// DyNet's SparseLSTMBuilder: the LSTM of VanillaLSTMBuilder with its weight matrices pruned by
// magnitude (Narang et al., 2017, "Exploring sparsity in recurrent neural networks"). The gates
// read W_x and W_h multiplied elementwise by 0/1 masks; set_sparsity(s) sets the masks so that in
// each of these matrices the floor(s n) weights of smallest magnitude, as the gates read them, are
// zero. A weight already pruned reads as zero, so raising s step by step during training (the
// paper's schedule) keeps every weight pruned once pruned. A pruned weight gets no gradient.
// Parameters: those of VanillaLSTMBuilder, in the same order, in the subcollection
// "sparse-lstm-builder"; after them the masks, per layer W_x's then W_h's, which trainers leave
// unchanged and which are saved and loaded with the model (all ones until set_sparsity).

#include <array>

#include "builders/vanilla_lstm_builder.h"

namespace dynet {

class SparseLSTMBuilder : public VanillaLSTMBuilder {
 public:
  /// Without parameters until assigned a builder made with a model.
  SparseLSTMBuilder() : VanillaLSTMBuilder(std::string("SparseLSTMBuilder")) {}
  SparseLSTMBuilder(unsigned layers, unsigned input_dim, unsigned hidden_dim, ParameterCollection& model,
                    bool ln_lstm = false, float forget_bias = 1.f);
  std::unique_ptr<RNNBuilder> clone() const override { return std::make_unique<SparseLSTMBuilder>(*this); }

  /// Prunes the fraction `sparsity` (0 <= sparsity <= 1) of each weight matrix; throws
  /// std::invalid_argument outside that range. Values computed afterwards read the new masks.
  void set_sparsity(float sparsity);
  /// The masks of each layer: W_x's, then W_h's.
  const std::vector<std::array<Parameter, 2>>& masks() const { return masks_; }

 protected:
  void derive_graph_expressions(ComputationGraph& cg, bool update) override;

 private:
  std::vector<std::array<Parameter, 2>> masks_;
};

}  // namespace dynet
