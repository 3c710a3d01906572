#pragma once
// DyNet's <dynet/tensor.h>: tensors and host access to their elements.

#include "dynet_core/index_tensor.h"
#include "dynet_core/tensor.h"
#include "dynet_core/tensor_tools.h"
