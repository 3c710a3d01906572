#pragma once
// DyNet's <dynet/hsm-builder.h>: HierarchicalSoftmaxBuilder, with the softmax builders of cfsm-builder.h.

#include "builders/class_factored_softmax_builder.h"
#include "builders/hierarchical_softmax_builder.h"
#include "builders/standard_softmax_builder.h"
