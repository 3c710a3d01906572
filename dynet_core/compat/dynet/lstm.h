#pragma once
// DyNet's <dynet/lstm.h>: the LSTM builders.

// As DyNet's, through rnn.h: the graph, every operator and the state machine.
#include "dynet/rnn.h"

#include "builders/compact_vanilla_lstm_builder.h"
#include "builders/coupled_lstm_builder.h"
#include "builders/sparse_lstm_builder.h"
#include "builders/vanilla_lstm_builder.h"
