#pragma once
// DyNet's <dynet/dynet.h>: the computation graph and what a program needs with it.

#include "dynet/init.h"
#include "dynet_core/dim.h"
#include "dynet_core/expression.h"
#include "dynet_core/graph.h"
#include "dynet_core/host_random.h"
#include "dynet_core/model.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor.h"
