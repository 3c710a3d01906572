#pragma once
// DyNet's <dynet/cfsm-builder.h>: the softmax builders.

// As DyNet's: the graph and every operator, and the dictionary.
#include "dynet/dict.h"
#include "dynet/dynet.h"
#include "dynet/expr.h"

#include "builders/class_factored_softmax_builder.h"
#include "builders/standard_softmax_builder.h"
