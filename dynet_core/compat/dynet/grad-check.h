#pragma once
// DyNet's <dynet/grad-check.h>: check_grad.

#include "dynet_core/grad_check.h"
#include "dynet_core/ops/all_ops.h"
