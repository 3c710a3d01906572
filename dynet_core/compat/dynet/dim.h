#pragma once
// DyNet's <dynet/dim.h>: shapes.

// DyNet's header brought in <cassert>, and programs call assert through it.
#include <cassert>

#include "dynet_core/dim.h"
