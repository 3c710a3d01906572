#pragma once
// DyNet's <dynet/dynet-helper.h>: helpers.

#include "dynet_core/dybatch.h"
