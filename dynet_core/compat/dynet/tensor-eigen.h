#pragma once
// DyNet's <dynet/tensor-eigen.h>: Eigen views of tensors.

#include "dynet_core/tensor_eigen.h"
