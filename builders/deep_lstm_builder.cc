#include "builders/deep_lstm_builder.h"

#include "dynet_core/ops/shape.h"

namespace dynet {

Expression DeepLSTMBuilder::step_output(const std::vector<CellState>& layers) const {
  return layers.size() == 1 ? layers[0].h : concatenate(outputs_of(layers));
}

}  // namespace dynet
