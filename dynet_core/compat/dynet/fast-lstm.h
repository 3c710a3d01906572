#pragma once
// DyNet's <dynet/fast-lstm.h>: FastLSTMBuilder.

// As DyNet's, through rnn.h: the graph, every operator and the state machine.
#include "dynet/rnn.h"

#include "builders/fast_lstm_builder.h"
