#pragma once
// DyNet's <dynet/init.h>: initialization and the --dynet-* flags, with DyNet's globals for two of
// them (defined in dynet_core/init.cc).

#include "dynet_core/init.h"

namespace dynet {

/// The weight decay lambda new parameter collections start with (--dynet-weight-decay).
extern float& weight_decay_lambda;
/// --dynet-profiling.
extern int& profiling_flag;

}  // namespace dynet
