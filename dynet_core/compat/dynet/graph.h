#pragma once
// DyNet's <dynet/graph.h>: the computation graph.

#include "dynet_core/graph.h"
