#pragma once
// DyNet's <dynet/cuda.h>: devices; the CUDA backend is not part of this build.

#include "dynet_core/device/device.h"
