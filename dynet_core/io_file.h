#pragma once
// Whole-file reads and atomic whole-file writes.

#include <string>

namespace dynet {

/// The bytes of the file at `path`; throws std::runtime_error naming it when it cannot be read.
std::string read_file(const std::string& path);

/// Replaces the file at `path` by `bytes` so that a crash at any moment leaves either the old
/// file or the complete new one under that name: the bytes go to a new file in the same folder,
/// are flushed to the disk (fsync), and that file is then renamed over `path`. Throws
/// std::runtime_error naming `path` and the step that failed; the temporary file is removed.
void write_file_atomically(const std::string& path, const std::string& bytes);

}  // namespace dynet
