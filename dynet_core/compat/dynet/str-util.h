#pragma once
// DyNet's <dynet/str-util.h>: string helpers; dybatch has none of its own.

#include "dynet_core/dict.h"
