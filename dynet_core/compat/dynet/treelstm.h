#pragma once
// DyNet's <dynet/treelstm.h>: the tree LSTM builders.

#include "builders/child_sum_tree_lstm_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "builders/sequence_tree_lstm_builders.h"
#include "builders/tree_lstm_builder.h"
