#pragma once
// The whole public API of dybatch. Individual headers can be included on their own.

#include "dynet_core/device.h"
#include "dynet_core/dim.h"
#include "dynet_core/expr.h"
#include "dynet_core/graph.h"
#include "dynet_core/init.h"
#include "dynet_core/io.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/param_init.h"
#include "dynet_core/parameters.h"
#include "dynet_core/profiler.h"
#include "dynet_core/tensor.h"
#include "trainers/training.h"
