#pragma once
// DyNet's <dynet/gru.h>: the GRU builder.

// As DyNet's, through rnn.h: the graph, every operator and the state machine.
#include "dynet/rnn.h"

#include "builders/gru_builder.h"
