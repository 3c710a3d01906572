#pragma once
// DyNet's <dynet/dict.h>: the vocabulary.

// DyNet's header brought in <sstream>, and programs read lines with std::istringstream through it.
#include <sstream>

#include "dynet_core/io/dict.h"
