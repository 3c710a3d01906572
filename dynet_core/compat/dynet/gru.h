#pragma once
// DyNet's <dynet/gru.h>: the GRU builder.

#include "builders/gru_builder.h"
