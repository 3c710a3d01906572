#pragma once
// DyNet's <dynet/except.h>: its exception types and error macros.

#include "dynet_core/except.h"
