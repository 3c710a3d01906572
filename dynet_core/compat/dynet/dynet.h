#pragma once
// DyNet's <dynet/dynet.h>: the computation graph and what a program needs with it, with what
// DyNet's header brings along.

#include <initializer_list>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

// DyNet's header includes Boost's strong_typedef, whose configuration brings in <unistd.h> on
// POSIX systems; programs call getpid through it.
#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include "dynet/aligned-mem-pool.h"
#include "dynet/devices.h"
#include "dynet/dim.h"
#include "dynet/init.h"
#include "dynet/model.h"
#include "dynet/tensor.h"
#include "dynet_core/expression.h"
#include "dynet_core/graph.h"
#include "dynet_core/host_random.h"
#include "dynet_core/param_collection.h"
