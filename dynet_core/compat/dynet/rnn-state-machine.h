#pragma once
// DyNet's <dynet/rnn-state-machine.h>: the recurrent builders and DyNet's RNNStateMachine.

#include "builders/rnn_builder.h"
#include "builders/rnn_state_machine.h"
