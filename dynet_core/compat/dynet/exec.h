#pragma once
// DyNet's <dynet/exec.h>: the execution engines.

#include "autobatch/batched_engine.h"
#include "autobatch/execution_engine.h"
#include "autobatch/simple_engine.h"
