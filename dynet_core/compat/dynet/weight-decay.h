#pragma once
// DyNet's <dynet/weight-decay.h>: weight decay, a setting of the parameter collection.

#include "dynet_core/param_collection.h"
