#pragma once
// DyNet's <dynet/io.h>: saving and loading.

#include "dynet_core/io/savers_and_loaders.h"
