#pragma once
// DyNet's <dynet/dict.h>: the vocabulary.

// DyNet's header brought in <cassert> and <sstream>, and programs call assert and read lines with
// std::istringstream through it.
#include <cassert>
#include <sstream>

#include "dynet_core/io/dict.h"
