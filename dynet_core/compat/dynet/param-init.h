#pragma once
// DyNet's <dynet/param-init.h>: parameter initializers.

#include "dynet_core/param_init.h"
