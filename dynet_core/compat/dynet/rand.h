#pragma once
// DyNet's <dynet/rand.h>: host random helpers.

#include "dynet_core/host_random.h"
