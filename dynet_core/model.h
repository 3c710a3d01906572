#pragma once
// DyNet's older name of a parameter collection, which DyNet 2 keeps. Only DyNet's header names
// (dynet/model.h, dynet/dynet.h) bring it, so that programs written for dybatch keep the name
// Model for themselves.

#include <iostream>

#include "dynet_core/param_collection.h"

namespace dynet {

class Model : public ParameterCollection {
 public:
  /// A new root collection; says on std::cerr, in DyNet's words, that the name is deprecated.
  Model() {
    std::cerr << "The name dynet::Model has been deprecated and replaced by dynet::ParameterCollection.\n"
                 "Please replace references to dynet::Model with references to dynet::ParameterCollection."
              << std::endl;
  }
};

}  // namespace dynet
