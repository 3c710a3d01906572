#pragma once
// DyNet's <dynet/aligned-mem-pool.h>: the memory pools, with the allocators of <dynet/mem.h>, which
// DyNet's header includes.

#include "dynet/mem.h"
