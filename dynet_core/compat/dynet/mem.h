#pragma once
// DyNet's <dynet/mem.h>: the memory pools and the allocator interface.

#include "dynet_core/device/aligned_memory_pool.h"
#include "dynet_core/device/mem_allocator.h"
