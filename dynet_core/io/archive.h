#pragma once
// The Boost.Serialization archives behind every file dybatch writes, text or binary, over an
// in-memory payload. Boost stays inside archive.cc; writers and readers see a few typed calls.
// A reader checks every count and length against the payload size before it allocates anything,
// so even a payload crafted to pass the checksum cannot make it ask for unbounded memory.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dynet {

enum class ArchiveFormat : std::uint8_t {
  Text,    ///< Boost text archive: portable between machines, floats printed with 9 digits (exact)
  Binary,  ///< Boost binary archive: smaller and faster, for machines with the same float layout
};

/// "text" or "binary", as the file header spells it.
const char* archive_format_name(ArchiveFormat format);

class ArchiveWriter {
 public:
  virtual ~ArchiveWriter() = default;
  virtual void integer(std::uint64_t v) = 0;
  virtual void real(float v) = 0;
  virtual void reals(const float* v, std::size_t n) = 0;
  virtual void string(const std::string& s) = 0;
};

/// Reads what an ArchiveWriter wrote, in the same order. Every method throws std::runtime_error
/// when the payload ends early or holds something else.
class ArchiveReader {
 public:
  virtual ~ArchiveReader() = default;
  virtual std::uint64_t integer() = 0;
  /// An integer that counts things stored in the payload: it cannot exceed the payload's size.
  std::uint64_t count(const char* what);
  virtual float real() = 0;
  /// n values; n must not exceed the payload's size.
  virtual void reals(float* v, std::size_t n) = 0;
  /// A string of at most the payload's size, checked before it is allocated.
  virtual std::string string(const char* what) = 0;
  /// Whether the whole payload has been read (a later format's field may be absent from an
  /// earlier file).
  virtual bool at_end() = 0;
  /// Throws unless the whole payload has been read.
  void finish() {
    if (!at_end()) throw std::runtime_error("data follows the end of the archive");
  }

  std::size_t payload_size() const { return payload_size_; }

 protected:
  explicit ArchiveReader(std::size_t payload_size) : payload_size_(payload_size) {}

 private:
  std::size_t payload_size_;
};

/// The payload that `write` produces through an archive of `format`.
std::string write_archive(ArchiveFormat format, const std::function<void(ArchiveWriter&)>& write);
/// Runs `read` over `payload`; any Boost or stream error becomes a std::runtime_error.
void read_archive(std::string_view payload, ArchiveFormat format, const std::function<void(ArchiveReader&)>& read);

}  // namespace dynet
