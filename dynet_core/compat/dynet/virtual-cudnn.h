#pragma once
// DyNet's <dynet/virtual-cudnn.h>: devices; dybatch has no cuDNN path.

#include "dynet_core/device/device.h"
