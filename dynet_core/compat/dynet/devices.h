#pragma once
// DyNet's <dynet/devices.h>: devices and the device manager.

#include "dynet_core/device/device.h"
#include "dynet_core/device/device_manager.h"
