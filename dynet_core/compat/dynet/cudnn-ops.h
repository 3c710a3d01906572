#pragma once
// DyNet's <dynet/cudnn-ops.h>: devices; dybatch has no cuDNN path.

#include "dynet_core/device/device.h"
