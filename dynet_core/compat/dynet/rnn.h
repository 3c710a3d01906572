#pragma once
// DyNet's <dynet/rnn.h>: the recurrent builders.

#include "builders/rnn_builder.h"
#include "builders/simple_rnn_builder.h"
