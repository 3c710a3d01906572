// libFuzzer target for everything dybatch reads from files: model files in both archive formats
// and in DyNet's text format (a whole file starting with '#'), and trainer checkpoints. The first
// input byte says what the rest is:
//   bit 0: a text (0) or binary (1) archive;
//   bit 1: a whole file (0), or a payload that is sealed into a valid header first (1), so that
//          inputs reach the archive decoder behind the checksum;
//   bit 2: a model file (0) or a trainer checkpoint (1).
// Besides the sanitizers' checks, the oracle is the loaders' contract: a load succeeds or throws
// std::runtime_error, and when it throws, the model (values and gradients) and the trainer keep
// every bit.

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dynet_core/init.h"
#include "dynet_core/io/envelope.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/model_of_every_kind.h"
#include "trainers/adam_trainer.h"

using namespace dynet;

namespace {

struct Target {
  ModelOfEveryKind model{ParameterInitNormal()};
  AdamTrainer trainer{model.model};
  std::string path = "/tmp/dybatch-loader-fuzz-" + std::to_string(::getpid()) + ".model";
};

Target& target() {
  static Target t;
  return t;
}

std::string checkpoint_of(Trainer& t) {
  std::ostringstream os;
  t.save(os);
  return os.str();
}

[[noreturn]] void contract_broken(const char* what, const std::runtime_error& e) {
  std::fprintf(stderr, "loader_fuzzer: %s after refusing the input (%s)\n", what, e.what());
  std::abort();
}

void load_model(Target& t, ArchiveFormat format, const std::string& file) {
  std::ofstream(t.path, std::ios::binary | std::ios::trunc) << file;
  const auto before = snapshot_with_gradients(t.model.model);
  try {
    if (format == ArchiveFormat::Text)
      TextFileLoader(t.path).populate(t.model.model);
    else
      BinaryFileLoader(t.path).populate(t.model.model);
  } catch (const std::runtime_error& e) {
    if (!same_bits(snapshot_with_gradients(t.model.model), before)) contract_broken("the model changed", e);
  }
}

void load_checkpoint(Target& t, const std::string& file) {
  const std::string before = checkpoint_of(t.trainer);
  try {
    std::istringstream is(file);
    t.trainer.populate(is);
  } catch (const std::runtime_error& e) {
    if (checkpoint_of(t.trainer) != before) contract_broken("the trainer state changed", e);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  DynetParams params;
  params.random_seed = 1;
  initialize(params);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const unsigned mode = data[0];
  const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const ArchiveFormat format = (mode & 1) ? ArchiveFormat::Binary : ArchiveFormat::Text;
  const bool checkpoint = mode & 4;
  const FileContent content = checkpoint ? FileContent::TrainerState : FileContent::Parameters;
  const std::string file = (mode & 2) ? seal(content, format, rest) : rest;
  if (checkpoint)
    load_checkpoint(target(), file);
  else
    load_model(target(), format, file);
  return 0;
}
