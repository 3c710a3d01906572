#pragma once
// DyNet's <dynet/deep-lstm.h>: DeepLSTMBuilder.

// As DyNet's, through rnn.h: the graph, every operator and the state machine.
#include "dynet/rnn.h"

#include "builders/deep_lstm_builder.h"
