#pragma once
// Saving and loading an example's model: its parameters go to the file itself, its vocabularies
// (when it has any) to the same path with ".vocab" appended.

#include <string>
#include <vector>

#include "dynet_core/param_collection.h"
#include "examples/common/vocabulary_file.h"

namespace examples {

/// Writes the parameters to `path` and the vocabularies, if any, to path + ".vocab".
void save_model(const std::string& path, const dynet::ParameterCollection& model,
                const std::vector<NamedDict>& vocabularies = {});
/// Reads the vocabularies from path + ".vocab" (before the model is built: its sizes depend on them).
void load_model_vocabularies(const std::string& path, const std::vector<NamedDict>& vocabularies);
/// Reads the parameters from `path` into the model, which must have exactly the saved shape.
void load_model_parameters(const std::string& path, dynet::ParameterCollection& model);

}  // namespace examples
