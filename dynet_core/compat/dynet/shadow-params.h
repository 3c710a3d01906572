#pragma once
// DyNet's <dynet/shadow-params.h>: per-parameter optimizer state.

#include "trainers/shadow_params.h"
