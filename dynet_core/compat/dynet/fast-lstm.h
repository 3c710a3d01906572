#pragma once
// DyNet's <dynet/fast-lstm.h>: FastLSTMBuilder.

#include "builders/fast_lstm_builder.h"
