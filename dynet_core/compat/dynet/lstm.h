#pragma once
// DyNet's <dynet/lstm.h>: the LSTM builders.

#include "builders/compact_vanilla_lstm_builder.h"
#include "builders/coupled_lstm_builder.h"
#include "builders/vanilla_lstm_builder.h"
