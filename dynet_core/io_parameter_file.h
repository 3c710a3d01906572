#pragma once
// What a model file holds: named parameter records, as a Boost archive inside the checked envelope
// (io_envelope.h). Payload layout, format version 1:
//   record count
//   per record: kind (0 parameter, 1 lookup table), name, number of dims, the dims,
//               number of rows (lookup tables only), then the values in storage order.

#include <cstdint>
#include <string>
#include <vector>

#include "dynet_core/dim.h"
#include "dynet_core/io_archive.h"

namespace dynet {

struct SavedParameter {
  enum class Kind : std::uint8_t { Parameter = 0, Lookup = 1 };

  Kind kind = Kind::Parameter;
  std::string name;
  Dim dim;            ///< of the parameter, or of one row of a lookup table
  unsigned rows = 1;  ///< rows of a lookup table; 1 for a parameter
  std::vector<float> values;
};

/// "parameter" or "lookup parameter".
const char* kind_name(SavedParameter::Kind kind);

/// The bytes of a file holding `records`, envelope included.
std::string parameter_file_bytes(ArchiveFormat format, const std::vector<SavedParameter>& records);

/// Atomically replaces `path` by a file holding `records`.
void write_parameter_file(const std::string& path, ArchiveFormat format, const std::vector<SavedParameter>& records);

/// The records of the file at `path`, fully checked: envelope, checksum, payload layout, dims,
/// value counts and unique names. Throws std::runtime_error naming the file and the problem.
std::vector<SavedParameter> read_parameter_file(const std::string& path, ArchiveFormat format);

}  // namespace dynet
