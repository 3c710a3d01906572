#pragma once
// DyNet's <dynet/rnn.h>: the recurrent builders.

// As DyNet's: the graph, every operator and the state machine.
#include "dynet/dynet.h"
#include "dynet/expr.h"
#include "dynet/rnn-state-machine.h"

#include "builders/rnn_builder.h"
#include "builders/simple_rnn_builder.h"
