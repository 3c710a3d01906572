#pragma once
// DyNet's <dynet/nodes-macros.h>: node classes; in dybatch an op is a row of its family (dynet_core/ops/), reached through its expression.

#include "dynet_core/node.h"
#include "dynet_core/op_def.h"
#include "dynet_core/ops/all_ops.h"
