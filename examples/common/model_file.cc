#include "examples/common/model_file.h"

#include "dynet_core/io.h"

namespace examples {

void save_model(const std::string& path, const dynet::ParameterCollection& model,
                const std::vector<NamedDict>& vocabularies) {
  if (!vocabularies.empty()) save_vocabularies(path + ".vocab", vocabularies);
  dynet::TextFileSaver(path).save(model);
}

void load_model_vocabularies(const std::string& path, const std::vector<NamedDict>& vocabularies) {
  load_vocabularies(path + ".vocab", vocabularies);
}

void load_model_parameters(const std::string& path, dynet::ParameterCollection& model) {
  dynet::TextFileLoader(path).populate(model);
}

}  // namespace examples
