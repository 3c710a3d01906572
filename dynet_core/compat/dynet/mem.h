#pragma once
// DyNet's <dynet/mem.h>: the memory pools.

#include "dynet_core/device/aligned_memory_pool.h"
