#pragma once
// DyNet's <dynet/fast-lstm.h>: the LSTM builders; dybatch has no FastLSTMBuilder.

#include "builders/coupled_lstm_builder.h"
#include "builders/vanilla_lstm_builder.h"
