#pragma once
// DyNet's <dynet/hsm-builder.h>: HierarchicalSoftmaxBuilder, with the softmax builders of cfsm-builder.h.

// As DyNet's: the graph and every operator, and the dictionary.
#include "dynet/dict.h"
#include "dynet/dynet.h"
#include "dynet/expr.h"

#include "builders/class_factored_softmax_builder.h"
#include "builders/hierarchical_softmax_builder.h"
#include "builders/standard_softmax_builder.h"
