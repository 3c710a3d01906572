#pragma once
// DyNet's <dynet/model.h>: parameters and their collections.

#include "dynet_core/model.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/param_init.h"
#include "dynet_core/parameters.h"
