#pragma once
// DyNet's older name of a parameter collection, which DyNet 2 keeps. Only DyNet's header names
// (dynet/model.h, dynet/dynet.h) bring it, so that programs written for dybatch keep the name
// Model for themselves.

#include "dynet_core/param_collection.h"

namespace dynet {

class Model : public ParameterCollection {};

}  // namespace dynet
