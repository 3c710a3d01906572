#pragma once
// DyNet's <dynet/hsm-builder.h>: softmax builders; dybatch has no HierarchicalSoftmaxBuilder, the class-factored one is here.

#include "builders/class_factored_softmax_builder.h"
