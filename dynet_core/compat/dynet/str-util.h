#pragma once
// DyNet's <dynet/str-util.h>: startswith, endswith, str_split.

#include "dynet_core/string_util.h"
