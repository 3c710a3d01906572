#include "dynet_core/io/parameter_file.h"

#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

#include "dynet_core/io/dynet_text_format.h"
#include "dynet_core/io/envelope.h"
#include "dynet_core/io/whole_file.h"

namespace dynet {

namespace {

using Kind = SavedParameter::Kind;

std::string encode(const std::vector<SavedParameter>& records, ArchiveFormat format) {
  return write_archive(format, [&](ArchiveWriter& w) {
    w.integer(records.size());
    for (const SavedParameter& p : records) {
      w.integer(static_cast<std::uint64_t>(p.kind));
      w.string(p.name);
      w.integer(p.dim.nd);
      for (unsigned i = 0; i < p.dim.nd; ++i) w.integer(p.dim.d[i]);
      if (p.kind == Kind::Lookup) w.integer(p.rows);
      w.reals(p.values.data(), p.values.size());
    }
  });
}

// A size read from the payload, multiplied into the running value count `n` of record `name`; a
// dimension may be 0 (Dim::of_parameter), a lookup table's row count may not.
void multiply_checked(std::uint64_t& n, std::uint64_t size, std::uint64_t limit, const std::string& name,
                      bool zero_allowed) {
  if (size == 0 && !zero_allowed) throw std::runtime_error("'" + name + "' has a dimension of size 0");
  if (size > Dim::kMaxElements)
    throw std::runtime_error("'" + name + "' has a dimension of size " + std::to_string(size) +
                             ", more than a tensor holds");
  if (n != 0 && size > limit / n)
    throw std::runtime_error("'" + name + "' announces more values than its payload can hold");
  n *= size;
}

SavedParameter decode_record(ArchiveReader& r) {
  SavedParameter p;
  const std::uint64_t kind = r.integer();
  if (kind > static_cast<std::uint64_t>(Kind::Lookup))
    throw std::runtime_error("a record has the unknown kind " + std::to_string(kind));
  p.kind = static_cast<Kind>(kind);
  p.name = r.string("name length");
  if (p.name.empty()) throw std::runtime_error("a record has an empty name");
  // A lookup table appends its row count as one more dimension.
  const unsigned max_dims = p.kind == Kind::Lookup ? Dim::kMaxDims - 1 : Dim::kMaxDims;
  const std::uint64_t nd = r.integer();
  if (nd > max_dims)
    throw std::runtime_error("'" + p.name + "' has " + std::to_string(nd) + " dimensions; a " + kind_name(p.kind) +
                             " has at most " + std::to_string(max_dims));
  // Dim counts values in an unsigned; the payload size bounds them as well.
  const std::uint64_t limit = std::min<std::uint64_t>(r.payload_size(), std::numeric_limits<unsigned>::max());
  std::uint64_t n = 1;
  std::vector<unsigned> dims;
  for (std::uint64_t i = 0; i < nd; ++i) {
    const std::uint64_t size = r.integer();
    multiply_checked(n, size, limit, p.name, true);
    dims.push_back(static_cast<unsigned>(size));
  }
  p.dim = Dim::of_parameter(dims);
  if (p.kind == Kind::Lookup) {
    const std::uint64_t rows = r.integer();
    multiply_checked(n, rows, limit, p.name, false);
    p.rows = static_cast<unsigned>(rows);
  }
  p.values.resize(n);
  r.reals(p.values.data(), n);
  return p;
}

std::vector<SavedParameter> decode(std::string_view payload, ArchiveFormat format) {
  std::vector<SavedParameter> records;
  read_archive(payload, format, [&](ArchiveReader& r) {
    const std::uint64_t n = r.count("record count");
    std::set<std::string> names;
    for (std::uint64_t k = 0; k < n; ++k) {
      records.push_back(decode_record(r));
      if (!names.insert(records.back().name).second)
        throw std::runtime_error("the name '" + records.back().name + "' appears twice");
    }
  });
  return records;
}

}  // namespace

const char* kind_name(SavedParameter::Kind kind) { return kind == Kind::Parameter ? "parameter" : "lookup parameter"; }

std::string parameter_file_bytes(ModelFileFormat format, ArchiveFormat archive,
                                 const std::vector<SavedParameter>& records) {
  if (format == ModelFileFormat::DyNet) return dynet_text_bytes(records);
  return seal(FileContent::Parameters, archive, encode(records, archive));
}

void write_parameter_file(const std::string& path, ModelFileFormat format, ArchiveFormat archive,
                          const std::vector<SavedParameter>& records) {
  write_file_atomically(path, parameter_file_bytes(format, archive, records));
}

ParameterFile read_parameter_file(const std::string& path, ArchiveFormat archive) {
  const std::string bytes = read_file(path);
  const std::string file = describe_file(FileContent::Parameters, path);
  ParameterFile f;
  if (is_dynet_text(bytes)) {
    f.format = ModelFileFormat::DyNet;
    try {
      f.records = parse_dynet_text(bytes);
    } catch (const std::runtime_error& e) {
      throw std::runtime_error(file + " is not a valid DyNet model file: " + e.what());
    }
    return f;
  }
  const std::string_view payload = open_envelope(bytes, path, FileContent::Parameters, archive);
  try {
    f.records = decode(payload, archive);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(file + " is malformed: " + e.what());
  }
  return f;
}

}  // namespace dynet
