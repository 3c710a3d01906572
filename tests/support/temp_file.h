#pragma once
// A file in the system's temporary directory, unique to this process, removed when it goes out of scope.

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace test_support {

class TempFile {
 public:
  /// Creates the file `<tmp>/dybatch-<pid>-<name>` holding `contents`.
  TempFile(const std::string& name, const std::string& contents)
      : path_((std::filesystem::temp_directory_path() / ("dybatch-" + std::to_string(::getpid()) + "-" + name))
                  .string()) {
    std::ofstream(path_) << contents;
  }
  ~TempFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace test_support
