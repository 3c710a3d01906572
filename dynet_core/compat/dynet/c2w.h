#pragma once
// DyNet's <dynet/c2w.h>: C2WBuilder.

// As DyNet's: the graph and every operator, and the LSTM builders.
#include "dynet/dynet.h"
#include "dynet/expr.h"
#include "dynet/lstm.h"

#include "builders/c2w_builder.h"
