#pragma once
// DyNet's <dynet/cfsm-builder.h>: the softmax builders.

#include "builders/class_factored_softmax_builder.h"
#include "builders/standard_softmax_builder.h"
