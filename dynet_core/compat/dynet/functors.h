#pragma once
// DyNet's <dynet/functors.h>: elementwise functions; in dybatch they are op rows. Programs still
// use its constant DYNET_DEVICE_MIN, the smallest normal float (a floor against log(0)), as DyNet
// defines it.

#include <limits>

#include "dynet_core/ops/all_ops.h"

#ifndef DYNET_DEVICE_MIN
#define DYNET_DEVICE_MIN std::numeric_limits<float>::min()
#endif
