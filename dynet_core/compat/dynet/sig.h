#pragma once
// DyNet's <dynet/sig.h>: batching signatures.

#include "dynet_core/signature.h"
