#pragma once
// DyNet's <dynet/training.h>: every trainer.

#include "trainers/shadow_params.h"
#include "trainers/training.h"
