#pragma once
// DyNet's <dynet/except.h>: exceptions; dybatch throws the standard exception types.

#include "dynet_core/init.h"
