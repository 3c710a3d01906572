#pragma once
// DyNet's <dynet/deep-lstm.h>: DeepLSTMBuilder.

#include "builders/deep_lstm_builder.h"
