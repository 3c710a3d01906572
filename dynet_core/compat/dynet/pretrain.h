#pragma once
// DyNet's <dynet/pretrain.h>: embeddings read from files; dybatch has no reader of its own, the lookup tables are here.

#include "dynet_core/param_collection.h"
