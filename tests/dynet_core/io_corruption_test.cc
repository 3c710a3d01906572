// A damaged or foreign model file is refused with an error naming the file and the problem, and
// the live model keeps every bit: every truncation, random byte changes, other versions, crafted
// payloads that pass the checksum, and models of another architecture.

#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>

#include "dynet_core/io/envelope.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/io/whole_file.h"
#include "dynet_core/load_refusal.h"
#include "dynet_core/model_of_every_kind.h"
#include "scratch_folder.h"

using namespace dynet;

namespace {

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

std::unique_ptr<Loader> loader_for(ArchiveFormat format, const std::string& path) {
  if (format == ArchiveFormat::Text) return std::make_unique<TextFileLoader>(path);
  return std::make_unique<BinaryFileLoader>(path);
}

std::string refusal(ArchiveFormat format, const std::string& path, ParameterCollection& model) {
  return load_refusal(model, [&] { loader_for(format, path)->populate(model); });
}

struct SavedModel {
  ScratchFolder folder;
  ModelOfEveryKind model{ParameterInitNormal()};
  std::string path;
  std::string bytes;

  explicit SavedModel(ArchiveFormat format) : path(folder.file("model")) {
    if (format == ArchiveFormat::Text)
      TextFileSaver(path).save(model.model);
    else
      BinaryFileSaver(path).save(model.model);
    bytes = read_file(path);
  }
};

const ArchiveFormat kFormats[] = {ArchiveFormat::Text, ArchiveFormat::Binary};

}  // namespace

TEST_CASE("every truncation of a model file is refused", "[io][errors]") {
  for (ArchiveFormat format : kFormats) {
    INFO(archive_format_name(format));
    SavedModel saved(format);
    ModelOfEveryKind target(ParameterInitConst(0.5f));
    for (std::size_t length = 0; length < saved.bytes.size(); ++length) {
      write_bytes(saved.path, saved.bytes.substr(0, length));
      const std::string message = refusal(format, saved.path, target.model);
      INFO("length " << length << " of " << saved.bytes.size() << ": " << message);
      REQUIRE(message.find(saved.path) != std::string::npos);
      REQUIRE(message.find("truncated") != std::string::npos);
    }
    write_bytes(saved.path, saved.bytes);
    loader_for(format, saved.path)->populate(target.model);
    CHECK(same_bits(snapshot(target.model), snapshot(saved.model.model)));
  }
}

TEST_CASE("a model file with any one byte changed is refused", "[io][errors]") {
  for (ArchiveFormat format : kFormats) {
    INFO(archive_format_name(format));
    SavedModel saved(format);
    ModelOfEveryKind target(ParameterInitConst(0.5f));
    for (unsigned seed = 0; seed < 300; ++seed) {
      std::mt19937 rng(seed);
      std::string damaged = saved.bytes;
      const std::size_t at = std::uniform_int_distribution<std::size_t>(0, damaged.size() - 1)(rng);
      damaged[at] = static_cast<char>(damaged[at] ^ std::uniform_int_distribution<int>(1, 255)(rng));
      write_bytes(saved.path, damaged);
      const std::string message = refusal(format, saved.path, target.model);
      INFO("seed " << seed << ", byte " << at << ": " << message);
      REQUIRE(message.find(saved.path) != std::string::npos);
    }
  }
}

TEST_CASE("foreign files, other versions and trailing data are refused with the reason", "[io][errors]") {
  SavedModel saved(ArchiveFormat::Text);
  ModelOfEveryKind target(ParameterInitConst(0.5f));
  auto refusal_of = [&](const std::string& bytes) {
    write_bytes(saved.path, bytes);
    return refusal(ArchiveFormat::Text, saved.path, target.model);
  };
  std::string v2 = saved.bytes;
  v2.replace(v2.find(" v1 "), 4, " v2 ");
  CHECK_THAT(refusal_of(v2), Catch::Contains("format version 2; this build of dybatch reads version 1"));
  CHECK_THAT(refusal_of("W 1 2 3\n"), Catch::Contains("is not a dybatch file"));
  CHECK_THAT(refusal_of(saved.bytes + "\n"), Catch::Contains("1 unexpected bytes after its payload"));
  std::string upper_hex = saved.bytes;
  const std::size_t crc = upper_hex.find("crc32=") + 6;
  for (std::size_t k = crc; k < crc + 8; ++k) upper_hex[k] = static_cast<char>(std::toupper(upper_hex[k]));
  if (upper_hex != saved.bytes) CHECK_THAT(refusal_of(upper_hex), Catch::Contains("malformed header"));
  CHECK_THAT(refusal_of(seal(FileContent::TrainerState, ArchiveFormat::Text, "")),
             Catch::Contains("holds trainer state, not model parameters"));
}

TEST_CASE("payloads that pass the checksum but break the layout are refused", "[io][errors]") {
  ScratchFolder folder;
  const std::string path = folder.file("crafted.model");
  ModelOfEveryKind target(ParameterInitConst(0.5f));
  auto refusal_of = [&](ArchiveFormat format, const std::function<void(ArchiveWriter&)>& write) {
    write_bytes(path, seal(FileContent::Parameters, format, write_archive(format, write)));
    return refusal(format, path, target.model);
  };
  for (ArchiveFormat format : kFormats) {
    INFO(archive_format_name(format));
    CHECK_THAT(refusal_of(format, [](ArchiveWriter& w) { w.integer(1ull << 40); }),
               Catch::Contains("malformed") && Catch::Contains("record count"));
    CHECK_THAT(refusal_of(format,
                          [](ArchiveWriter& w) {
                            w.integer(1);
                            w.integer(0);
                            w.string("/huge");
                            w.integer(2);
                            w.integer(100000);
                            w.integer(100000);
                          }),
               Catch::Contains("'/huge' announces more values than its payload can hold"));
    CHECK_THAT(refusal_of(format,
                          [](ArchiveWriter& w) {
                            w.integer(2);
                            for (int k = 0; k < 2; ++k) {
                              w.integer(0);
                              w.string("/twice");
                              w.integer(0);
                              w.real(1.f);
                            }
                          }),
               Catch::Contains("'/twice' appears twice"));
    CHECK_THAT(refusal_of(format,
                          [](ArchiveWriter& w) {
                            w.integer(1);
                            w.integer(7);
                          }),
               Catch::Contains("unknown kind 7"));
    CHECK_THAT(refusal_of(format,
                          [](ArchiveWriter& w) {
                            w.integer(0);
                            w.integer(0);
                          }),
               Catch::Contains("data follows the end of the archive"));
  }
  std::string swapped = write_archive(ArchiveFormat::Binary, [](ArchiveWriter& w) { w.integer(0); });
  std::reverse(swapped.begin(), swapped.begin() + 8);
  write_bytes(path, seal(FileContent::Parameters, ArchiveFormat::Binary, swapped));
  CHECK_THAT(refusal(ArchiveFormat::Binary, path, target.model), Catch::Contains("another byte order"));
  write_bytes(path, seal(FileContent::Parameters, ArchiveFormat::Text, "1 0 x"));
  CHECK_THAT(refusal(ArchiveFormat::Text, path, target.model), Catch::Contains("text archive cannot be read"));
}

TEST_CASE("a model of another architecture is refused, naming the first mismatch", "[io][errors]") {
  SavedModel saved(ArchiveFormat::Binary);
  auto refusal_by = [&](ParameterCollection& m) { return refusal(ArchiveFormat::Binary, saved.path, m); };

  SECTION("other dims, in the last table") {
    ParameterCollection m;
    m.add_parameters(Dim(), 0.f, "scalar");
    m.add_parameters({7}, 0.f, "vector");
    m.add_parameters({3, 4}, 0.f, "matrix");
    m.add_parameters({2, 3, 2}, 0.f, "tensor");
    m.add_lookup_parameters(5, {3}, "embeddings");
    ParameterCollection enc = m.add_subcollection("encoder");
    enc.add_parameters({2, 2}, 0.f, "W");
    enc.add_lookup_parameters(4, {2, 2}, "table");
    CHECK_THAT(refusal_by(m), Catch::Contains("holds '/encoder/table' as a lookup parameter of 3 rows of dim {2,2}") &&
                                  Catch::Contains("model's '/encoder/table' is a lookup parameter of 4 rows"));
  }
  SECTION("a transposed matrix") {
    ParameterCollection other;
    other.add_parameters({4, 3}, 0.f, "matrix");
    CHECK_THAT(refusal_by(other),
               Catch::Contains("parameter of dim {3,4}") && Catch::Contains("parameter of dim {4,3}"));
  }
  SECTION("a parameter the file does not have") {
    ModelOfEveryKind m(ParameterInitConst(0.f));
    m.encoder.add_parameters({2}, 0.f, "extra");
    CHECK_THAT(refusal_by(m.model), Catch::Contains("has no record '/encoder/extra'"));
  }
  SECTION("a model lacking a parameter the file has") {
    ParameterCollection m;
    m.add_parameters(Dim(), 0.f, "scalar");
    CHECK_THAT(refusal_by(m),
               Catch::Contains("holds the parameter '/vector' under the key '/'") && Catch::Contains("does not have"));
  }
  SECTION("a parameter where the file has a lookup table") {
    ParameterCollection m;
    m.add_parameters({3, 5}, 0.f, "embeddings");
    CHECK_THAT(refusal_by(m), Catch::Contains("holds '/embeddings' as a lookup parameter") &&
                                  Catch::Contains("model's '/embeddings' is a parameter"));
  }
}
