#pragma once
// DyNet's <dynet/init.h>: initialization and the --dynet-* flags.

#include "dynet_core/init.h"
