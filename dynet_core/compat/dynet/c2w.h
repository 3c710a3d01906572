#pragma once
// DyNet's <dynet/c2w.h>: character-to-word builders; dybatch has no C2WBuilder, the recurrent builders it would compose are here.

#include "builders/bi_rnn_builder.h"
#include "builders/vanilla_lstm_builder.h"
