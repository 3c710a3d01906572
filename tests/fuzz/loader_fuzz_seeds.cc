// Writes the starting corpus of loader_fuzzer into a folder: valid model files in both archive
// formats and in DyNet's text format (with gradients) and a valid trainer checkpoint, each whole
// and as a bare payload, behind the mode byte loader_fuzzer.cc reads.

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "dynet_core/init.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/io/whole_file.h"
#include "dynet_core/model_of_every_kind.h"
#include "trainers/adam_trainer.h"

using namespace dynet;

namespace {

void write_seed(const std::string& folder, const std::string& name, std::uint8_t mode, const std::string& file) {
  std::ofstream(folder + "/" + name, std::ios::binary) << static_cast<char>(mode) << file;
  std::ofstream(folder + "/" + name + "-payload", std::ios::binary)
      << static_cast<char>(mode | 2) << file.substr(file.find('\n') + 1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: loader_fuzz_seeds FOLDER\n";
    return 2;
  }
  const std::string folder = argv[1];
  DynetParams params;
  params.random_seed = 1;
  initialize(params);
  ModelOfEveryKind m{ParameterInitNormal()};
  m.set_extreme_values();
  TextFileSaver(folder + "/model.txt").save(m.model);
  BinaryFileSaver(folder + "/model.bin").save(m.model);
  // DyNet's format holds finite values only, and gradients.
  ModelOfEveryKind finite{ParameterInitNormal()};
  for (const auto& p : finite.model.parameters_list()) p->accumulate_grad(p->values);
  TextFileSaver(folder + "/model.dynet", false, ModelFileFormat::DyNet).save(finite.model);
  AdamTrainer trainer(m.model);
  std::ostringstream checkpoint;
  trainer.save(checkpoint);
  write_seed(folder, "text-model", 0, read_file(folder + "/model.txt"));
  write_seed(folder, "binary-model", 1, read_file(folder + "/model.bin"));
  write_seed(folder, "dynet-model", 0, read_file(folder + "/model.dynet"));
  write_seed(folder, "checkpoint", 5, checkpoint.str());
  std::remove((folder + "/model.txt").c_str());
  std::remove((folder + "/model.bin").c_str());
  std::remove((folder + "/model.dynet").c_str());
  return 0;
}
