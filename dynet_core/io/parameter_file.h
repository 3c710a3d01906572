#pragma once
// What a model file holds: named parameter records, in one of two formats.
// dybatch's own: a Boost archive inside the checked envelope (envelope.h). Payload layout,
// format version 1:
//   record count
//   per record: kind (0 parameter, 1 lookup table), name, number of dims, the dims,
//               number of rows (lookup tables only), then the values in storage order.
// DyNet 2's text records (dynet_text_format.h), which also carry gradients. A reader tells the two
// apart by the file's first bytes.

#include <cstdint>
#include <string>
#include <vector>

#include "dynet_core/dim.h"
#include "dynet_core/io/archive.h"

namespace dynet {

struct SavedParameter {
  enum class Kind : std::uint8_t { Parameter = 0, Lookup = 1 };

  Kind kind = Kind::Parameter;
  std::string name;
  Dim dim;            ///< of the parameter, or of one row of a lookup table
  unsigned rows = 1;  ///< rows of a lookup table; 1 for a parameter
  std::vector<float> values;
  /// The accumulated gradient, in DyNet's format only (FULL_GRAD); empty: none (ZERO_GRAD).
  std::vector<float> gradients;
};

/// The layout of a model file.
enum class ModelFileFormat : std::uint8_t {
  Dybatch,  ///< dybatch's checked envelope (header, checksum) around a text or binary archive
  DyNet,    ///< DyNet 2's text records, which a DyNet 2.1 build reads
};

/// A model file as read: its layout and its records.
struct ParameterFile {
  ModelFileFormat format = ModelFileFormat::Dybatch;
  std::vector<SavedParameter> records;
};

/// "parameter" or "lookup parameter".
const char* kind_name(SavedParameter::Kind kind);

/// The bytes of a file holding `records`: in dybatch's format, envelope included, an archive of
/// `archive`; in DyNet's, its text (`archive` unused).
std::string parameter_file_bytes(ModelFileFormat format, ArchiveFormat archive,
                                 const std::vector<SavedParameter>& records);

/// Atomically replaces `path` by a file holding `records`.
void write_parameter_file(const std::string& path, ModelFileFormat format, ArchiveFormat archive,
                          const std::vector<SavedParameter>& records);

/// The file at `path`, fully checked before anything is returned. A file in DyNet's format is
/// read whatever `archive` says; any other must be dybatch's, with an archive of `archive`:
/// envelope, checksum, payload layout, dims, value counts and unique names. Throws
/// std::runtime_error naming the file, the record and the problem.
ParameterFile read_parameter_file(const std::string& path, ArchiveFormat archive);

}  // namespace dynet
