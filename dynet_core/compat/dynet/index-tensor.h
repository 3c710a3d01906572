#pragma once
// DyNet's <dynet/index-tensor.h>: index tensors.

#include <Eigen/Core>  // DyNet's header brings Eigen in, and its users name Eigen::DenseIndex

#include "dynet_core/index_tensor.h"
