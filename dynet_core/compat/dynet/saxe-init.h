#pragma once
// DyNet's <dynet/saxe-init.h>: the orthogonal initializer.

#include "dynet_core/param_init.h"
