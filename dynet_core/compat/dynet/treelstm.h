#pragma once
// DyNet's <dynet/treelstm.h>: the tree LSTM builders.

// As DyNet's, through rnn.h: the graph, every operator and the state machine.
#include "dynet/rnn.h"

#include "builders/child_sum_tree_lstm_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "builders/sequence_tree_lstm_builders.h"
#include "builders/tree_lstm_builder.h"
