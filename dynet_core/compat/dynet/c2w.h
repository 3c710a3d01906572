#pragma once
// DyNet's <dynet/c2w.h>: C2WBuilder.

#include "builders/c2w_builder.h"
