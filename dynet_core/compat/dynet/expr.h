#pragma once
// DyNet's <dynet/expr.h>: every operator, and (as DyNet's includes it through dynet.h) the graph
// and initialization.

#include "dynet/dynet.h"
#include "dynet_core/ops/all_ops.h"
