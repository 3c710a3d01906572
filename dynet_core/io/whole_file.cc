#include "dynet_core/io/whole_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dynet {

namespace {

[[noreturn]] void throw_errno(const std::string& what, int err) {
  throw std::runtime_error(what + ": " + std::strerror(err));
}

// Closes on scope exit unless released; close errors only matter where checked explicitly.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

void write_all(int fd, std::string_view bytes, const std::string& what) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno(what, errno);
    }
    done += static_cast<std::size_t>(n);
  }
}

// A name next to `path` that no other writer (thread or process) uses at the same time.
std::string temporary_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

// Writes `bytes` to a new file next to `path`, flushed to the disk and closed; returns its name.
// Throws naming `path` and the step that failed, and leaves no temporary file behind then.
std::string write_temporary(const std::string& path, std::string_view bytes) {
  const std::string what = "cannot save '" + path + "'";
  std::string temp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    temp = temporary_name(path);
    fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt == 100)) throw_errno(what + ": creating '" + temp + "'", errno);
  }
  FileDescriptor file(fd);
  try {
    write_all(file.get(), bytes, what + ": writing '" + temp + "'");
    if (::fsync(file.get()) != 0) throw_errno(what + ": flushing '" + temp + "' to the disk", errno);
    if (::close(file.release()) != 0) throw_errno(what + ": closing '" + temp + "'", errno);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  return temp;
}

}  // namespace

std::string read_file(const std::string& path) {
  FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw_errno("cannot open '" + path + "'", errno);
  std::string bytes;
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd.get(), chunk, sizeof chunk);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw_errno("cannot read '" + path + "'", errno);
    }
    if (n == 0) return bytes;
    bytes.append(chunk, static_cast<std::size_t>(n));
  }
}

void write_file_atomically(const std::string& path, const std::string& bytes) {
  write_files_atomically({{path, bytes}});
}

void write_files_atomically(const std::vector<std::pair<std::string, std::string_view>>& files) {
  std::vector<std::string> temps;
  try {
    for (const auto& [path, bytes] : files) temps.push_back(write_temporary(path, bytes));
    for (std::size_t k = 0; k < files.size(); ++k) {
      const std::string& path = files[k].first;
      if (::rename(temps[k].c_str(), path.c_str()) != 0)
        throw_errno("cannot save '" + path + "': renaming '" + temps[k] + "' to it", errno);
      temps[k].clear();
    }
  } catch (...) {
    for (const std::string& temp : temps)
      if (!temp.empty()) ::unlink(temp.c_str());
    throw;
  }
  // A rename itself is durable only once the folder is flushed; the files are complete either way.
  for (const auto& file : files) {
    FileDescriptor folder(::open(folder_of(file.first).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (folder.get() >= 0) ::fsync(folder.get());
  }
}

}  // namespace dynet
