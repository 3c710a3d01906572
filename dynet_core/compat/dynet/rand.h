#pragma once
// DyNet's <dynet/rand.h>: host random helpers.

#include "dynet_core/rand.h"
