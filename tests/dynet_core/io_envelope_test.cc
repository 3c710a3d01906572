// The header every dybatch file starts with.

#include <catch2/catch.hpp>

#include <stdexcept>

#include "dynet_core/io/envelope.h"

using namespace dynet;

TEST_CASE("a sealed payload opens again, and only as what it is", "[io]") {
  const std::string payload("any\0bytes\n", 10);
  const std::string file = seal(FileContent::TrainerState, ArchiveFormat::Binary, payload);
  CHECK(file.rfind("dybatch-file trainer-state v1 binary 10 crc32=", 0) == 0);
  CHECK(open_envelope(file, "f", FileContent::TrainerState, ArchiveFormat::Binary) == payload);
  CHECK_THROWS_WITH(open_envelope(file, "f", FileContent::Parameters, ArchiveFormat::Binary),
                    Catch::Contains("model file 'f' holds trainer state, not model parameters"));
  CHECK_THROWS_WITH(open_envelope(file, "f", FileContent::TrainerState, ArchiveFormat::Text),
                    Catch::Contains("trainer state file 'f' holds a binary archive, not a text one"));
}

TEST_CASE("headers that are not exactly as written are refused", "[io][errors]") {
  const std::string file = seal(FileContent::Parameters, ArchiveFormat::Text, "payload");
  auto open = [](const std::string& bytes) {
    return open_envelope(bytes, "m", FileContent::Parameters, ArchiveFormat::Text);
  };
  std::string extra_space = file;
  extra_space.insert(extra_space.find(" text"), " ");
  CHECK_THROWS_WITH(open(extra_space), Catch::Contains("malformed header"));
  std::string leading_zero = file;
  leading_zero.insert(leading_zero.find(" 7 ") + 1, "0");
  CHECK_THROWS_WITH(open(leading_zero), Catch::Contains("malformed header (not in canonical form)"));
  std::string other_crc = file;
  char& digit = other_crc[other_crc.find("crc32=") + 6];
  digit = digit == '0' ? '1' : '0';
  CHECK_THROWS_WITH(open(other_crc), Catch::Contains("is corrupt"));
  CHECK_THROWS_WITH(open("dybatch-file " + std::string(200, 'x')), Catch::Contains("no line end"));
  CHECK_THROWS_WITH(open("dybatch-file parameters v1 text"), Catch::Contains("truncated"));
  CHECK_THROWS_WITH(open("dybatch-file parameters vx text 7 crc32=00000000\npayload"),
                    Catch::Contains("format version"));
  CHECK_THROWS_WITH(open("dybatch-file weights v1 text 7 crc32=00000000\npayload"), Catch::Contains("(content)"));
}
