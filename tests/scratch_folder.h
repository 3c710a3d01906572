#pragma once
// A fresh folder for the files one test writes, removed with everything in it at the end. Each
// test process gets its own, so test cases run in parallel without sharing files.

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "dybatch-test-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("ScratchFolder: mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  /// The path of `name` inside the folder.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};
