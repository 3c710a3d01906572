#pragma once
// The whole public API of dybatch: #include <dybatch.h>. Individual headers can be included on
// their own. Like DyNet's header names beside it, it is the public facade above every layer (the
// library's own files never include it), so it may include them all.

#include "builders/bi_rnn_builder.h"
#include "builders/child_sum_tree_lstm_builder.h"
#include "builders/class_factored_softmax_builder.h"
#include "builders/coupled_lstm_builder.h"
#include "builders/fast_lstm_builder.h"
#include "builders/gru_builder.h"
#include "builders/nary_tree_lstm_builder.h"
#include "builders/simple_rnn_builder.h"
#include "builders/standard_softmax_builder.h"
#include "builders/vanilla_lstm_builder.h"
#include "dynet_core/device.h"
#include "dynet_core/dict.h"
#include "dynet_core/dim.h"
#include "dynet_core/expr.h"
#include "dynet_core/gradient_set.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/io.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/param_init.h"
#include "dynet_core/parameters.h"
#include "dynet_core/profiler.h"
#include "dynet_core/tensor.h"
#include "trainers/training.h"
