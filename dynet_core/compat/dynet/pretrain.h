#pragma once
// DyNet's <dynet/pretrain.h>: save_pretrained_embeddings, read_pretrained_embeddings.

#include "dynet_core/io/pretrained_embeddings.h"
