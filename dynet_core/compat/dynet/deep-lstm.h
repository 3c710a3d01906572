#pragma once
// DyNet's <dynet/deep-lstm.h>: deep LSTMs; dybatch has no DeepLSTMBuilder, its stacked LSTMs are here.

#include "builders/vanilla_lstm_builder.h"
