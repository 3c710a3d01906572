#pragma once
// DyNet's <dynet/rnn-state-machine.h>: the recurrent builders.

#include "builders/rnn_builder.h"
