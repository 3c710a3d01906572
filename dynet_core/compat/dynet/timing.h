#pragma once
// DyNet's <dynet/timing.h>: timers.

#include "dynet_core/timing.h"
