#pragma once
// DyNet's <dynet/simd-functors.h>: elementwise functions; in dybatch they are op rows.

#include "dynet_core/ops/all_ops.h"
