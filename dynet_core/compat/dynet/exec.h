#pragma once
// DyNet's <dynet/exec.h>: the execution engines.

#include "autobatch/batched_engine.h"
#include "autobatch/simple_engine.h"
#include "dynet_core/execution_engine.h"
