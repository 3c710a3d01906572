#pragma once
// DyNet's <dynet/dict.h>: the vocabulary.

#include "dynet_core/dict.h"
