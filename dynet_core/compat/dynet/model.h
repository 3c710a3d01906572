#pragma once
// DyNet's <dynet/model.h>: parameters and their collections, with what DyNet's header brings
// along (weight-decay.h, tensor.h, globals.h).

#include "dynet/globals.h"
#include "dynet/tensor.h"
#include "dynet/weight-decay.h"
#include "dynet_core/model.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/param_init.h"
#include "dynet_core/parameters.h"
