#pragma once
// The envelope of every file dybatch writes: one header line, then the payload (a Boost archive).
//
//   dybatch-file <content> v<format version> <text|binary> <payload bytes> crc32=<8 hex digits>\n
//
// Opening a file checks every header field, the payload size and the payload's CRC-32 before
// anything is decoded, so a foreign, truncated or corrupted file is refused with the reason.
// A header must also be in the exact form seal() writes: no byte of it can change unnoticed.

#include <cstdint>
#include <string>
#include <string_view>

#include "dynet_core/io/archive.h"

namespace dynet {

/// The version of the payload layouts this build writes and reads.
constexpr unsigned kFileFormatVersion = 1;

enum class FileContent : std::uint8_t { Parameters, TrainerState };

/// How errors name a file: "model file 'path'" or "trainer state file 'path'".
std::string describe_file(FileContent content, const std::string& source);

/// The complete file around `payload`.
std::string seal(FileContent content, ArchiveFormat format, std::string_view payload);

/// The payload of the file `bytes` (a view into them), after checking that it holds `content` in
/// `format`, at this format version, complete and intact. Throws std::runtime_error naming
/// `source` and the first problem found otherwise.
std::string_view open_envelope(std::string_view bytes, const std::string& source, FileContent content,
                               ArchiveFormat format);

}  // namespace dynet
