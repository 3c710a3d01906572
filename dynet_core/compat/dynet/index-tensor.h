#pragma once
// DyNet's <dynet/index-tensor.h>: index tensors.

#include "dynet_core/index_tensor.h"
