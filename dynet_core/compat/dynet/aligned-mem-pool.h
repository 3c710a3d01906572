#pragma once
// DyNet's <dynet/aligned-mem-pool.h>: the memory pools.

#include "dynet_core/device/aligned_memory_pool.h"
