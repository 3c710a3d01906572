#pragma once
// DyNet's <dynet/dim.h>: shapes.

#include "dynet_core/dim.h"
