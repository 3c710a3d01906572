#pragma once
// DyNet's <dynet/devices.h>: devices.

#include "dynet_core/device/device.h"
