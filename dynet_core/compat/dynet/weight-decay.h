#pragma once
// DyNet's <dynet/weight-decay.h>: L2WeightDecay, and weight decay as a setting of the parameter
// collection.

#include "dynet_core/param_collection.h"
#include "dynet_core/weight_decay.h"
