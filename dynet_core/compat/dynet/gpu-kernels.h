#pragma once
// DyNet's <dynet/gpu-kernels.h>: devices; the CUDA backend is not part of this build.

#include "dynet_core/device/device.h"
