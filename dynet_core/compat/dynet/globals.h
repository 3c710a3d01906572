#pragma once
// DyNet's <dynet/globals.h>: the random engine, the default device and the autobatching flag.

#include "dynet_core/host_random.h"
#include "dynet_core/init.h"
