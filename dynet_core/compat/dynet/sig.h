#pragma once
// DyNet's <dynet/sig.h>: batching signatures.

#include "autobatch/signature.h"
