#pragma once
// The engine interface is the core's (dynet_core/execution_engine.h, which graph.h includes);
// this header is kept so that programs and tests that include it here still build.

#include "dynet_core/execution_engine.h"
