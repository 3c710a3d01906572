// Atomic saves: the file under the real name is always complete, failures name the path and the
// step, and no temporary file is left behind.

#include <catch2/catch.hpp>

#include <filesystem>
#include <stdexcept>

#include "dynet_core/io/whole_file.h"
#include "scratch_folder.h"

using namespace dynet;

namespace {

std::size_t files_in(const std::filesystem::path& folder) {
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) n += entry.is_regular_file();
  return n;
}

}  // namespace

TEST_CASE("write_file_atomically replaces the file and leaves nothing else", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("data");
  write_file_atomically(path, "first");
  write_file_atomically(path, std::string("second\0with a zero", 18));
  CHECK(read_file(path) == std::string("second\0with a zero", 18));
  write_file_atomically(path, "");
  CHECK(read_file(path).empty());
  CHECK(files_in(folder.path()) == 1);
}

TEST_CASE("a save that fails names the path and keeps the folder clean", "[io][errors]") {
  ScratchFolder folder;
  CHECK_THROWS_WITH(write_file_atomically(folder.file("missing/data"), "x"),
                    Catch::Contains("cannot save '" + folder.file("missing/data") + "'") &&
                        Catch::Contains("No such file or directory"));
  // The rename fails when the name is taken by a folder: the temporary file must go.
  std::filesystem::create_directory(folder.file("taken"));
  std::filesystem::create_directory(folder.file("taken/inside"));
  CHECK_THROWS_WITH(write_file_atomically(folder.file("taken"), "x"), Catch::Contains("renaming"));
  CHECK(files_in(folder.path()) == 0);
  CHECK(std::filesystem::is_directory(folder.file("taken/inside")));
  CHECK_THROWS_WITH(read_file(folder.file("absent")), Catch::Contains("cannot open") && Catch::Contains("absent"));
  CHECK_THROWS_WITH(read_file(folder.file("taken")), Catch::Contains("cannot read"));
}
