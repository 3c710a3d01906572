#pragma once
// DyNet's <dynet/matrix-multiply.h>: matrix products.

#include "dynet_core/ops/all_ops.h"
