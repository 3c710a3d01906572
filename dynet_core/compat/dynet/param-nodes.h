#pragma once
// DyNet's <dynet/param-nodes.h>: parameter and lookup expressions.

#include "dynet_core/ops/all_ops.h"
