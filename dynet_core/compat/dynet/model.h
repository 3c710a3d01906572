#pragma once
// DyNet's <dynet/model.h>: parameters and their collections, with what DyNet's header brings
// along (weight-decay.h, tensor.h, globals.h), and its two file helpers.

#include <string>

#include "dynet/globals.h"
#include "dynet/tensor.h"
#include "dynet/weight-decay.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/model.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/param_init.h"
#include "dynet_core/parameters.h"

namespace dynet {

/// DyNet's: the whole model saved to / read from `filename` under the key "/model". Saved in
/// dybatch's checked format unless `format` asks for DyNet's; loaded from either.
inline void save_dynet_model(std::string filename, ParameterCollection* model,
                             ModelFileFormat format = ModelFileFormat::Dybatch) {
  TextFileSaver(filename, false, format).save(*model, "/model");
}
inline void load_dynet_model(std::string filename, ParameterCollection* model) {
  TextFileLoader(filename).populate(*model, "/model");
}

}  // namespace dynet
