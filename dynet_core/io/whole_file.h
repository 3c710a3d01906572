#pragma once
// Whole-file reads and atomic whole-file writes.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dynet {

/// The bytes of the file at `path`; throws std::runtime_error naming it when it cannot be read.
std::string read_file(const std::string& path);

/// Replaces the file at `path` by `bytes` so that a crash at any moment leaves either the old
/// file or the complete new one under that name: the bytes go to a new file in the same folder,
/// are flushed to the disk (fsync), and that file is then renamed over `path`. Throws
/// std::runtime_error naming `path` and the step that failed; the temporary file is removed.
void write_file_atomically(const std::string& path, const std::string& bytes);

/// Writes several files (path, bytes) all or nothing: every file's bytes go to its temporary file
/// first, and the renames start only once all of them are written and flushed. A failure before
/// the renames (a folder that is missing or full) leaves every old file untouched; only a failing
/// rename, after the others succeeded, can leave some files new and some old.
void write_files_atomically(const std::vector<std::pair<std::string, std::string_view>>& files);

}  // namespace dynet
