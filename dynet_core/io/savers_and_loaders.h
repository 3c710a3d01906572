#pragma once
// Saving and loading parameters, with DyNet's API: TextFileSaver(path).save(model [, key]),
// TextFileLoader(path).populate(model [, key]), load_param / load_lookup_param, and the binary
// twins BinaryFileSaver / BinaryFileLoader (smaller, faster, same-platform).
//
// A file is a list of named records. A collection's parameters are stored under a key (by default
// the collection's own name, "/" for a root), each as key + its name relative to the collection:
// a collection "/enc/" saved with the key "/model/" stores "/enc/W" as "/model/W".
//
// Two formats. dybatch's own, the default, is checked: every save replaces the file atomically (a
// crash leaves the old file or the new one, never a mix); a load checks the whole file (header,
// format version, checksum, layout) and that it matches the target exactly (names, kinds, dims);
// populate(model) of a file holding nothing under the model's name loads it in order, as DyNet's.
// DyNet 2's text format (dynet_text_format.h) is written on request (TextFileSaver's `format`) and
// read by every loader when a file is in it, with DyNet's rules: populate(model, key) fills the
// model's parameters in order from the records whose names start with the key (all records
// without one), values are stored divided by the weight-decay factor that DyNet's writer
// multiplied them by, and a record's gradient is loaded (FULL_GRAD) or zeroed (ZERO_GRAD).
// Either way a load reads and checks the whole file and its match with the target before the first
// value is copied, and otherwise throws std::runtime_error naming the file, the record and the
// problem, leaving the live parameters unchanged. Usage errors (a bad key) are std::invalid_argument.

#include <string>
#include <vector>

#include "dynet_core/io/archive.h"
#include "dynet_core/io/dict.h"
#include "dynet_core/io/parameter_file.h"
#include "dynet_core/param_collection.h"

namespace dynet {

class Saver {
 public:
  virtual ~Saver() = default;
  /// Saves every parameter of `model` under `key` (by default the model's own name).
  virtual void save(const ParameterCollection& model, const std::string& key = "") = 0;
  /// Saves one parameter under the name `key` (by default its own full name).
  virtual void save(const Parameter& param, const std::string& key = "") = 0;
  virtual void save(const LookupParameter& param, const std::string& key = "") = 0;
};

class Loader {
 public:
  virtual ~Loader() = default;
  /// Copies into `model` the records stored under `key` (by default the model's own name); they
  /// must be exactly the model's parameters: same relative names, kinds and dims.
  virtual void populate(ParameterCollection& model, const std::string& key = "") = 0;
  /// Copies the record named `key` (by default the parameter's full name) into `param`.
  virtual void populate(Parameter& param, const std::string& key = "") = 0;
  virtual void populate(LookupParameter& param, const std::string& key = "") = 0;
  /// A new parameter of `model` holding the record named `key`; its name within `model` is the
  /// last component of `key`.
  virtual Parameter load_param(ParameterCollection& model, const std::string& key) = 0;
  virtual LookupParameter load_lookup_param(ParameterCollection& model, const std::string& key) = 0;
};

/// Writes one file. Each save() call rewrites the whole file atomically with everything this saver
/// has saved so far; with `append`, the records already in the file are kept too (the file must be
/// in `format`). DyNet's format has text only: with a binary `archive` it throws
/// std::invalid_argument.
class FileSaver : public Saver {
 public:
  FileSaver(std::string path, ArchiveFormat archive, bool append, ModelFileFormat format = ModelFileFormat::Dybatch);
  void save(const ParameterCollection& model, const std::string& key = "") override;
  void save(const Parameter& param, const std::string& key = "") override;
  void save(const LookupParameter& param, const std::string& key = "") override;

 private:
  void commit(std::vector<SavedParameter> added);

  std::string path_;
  ArchiveFormat archive_;
  ModelFileFormat format_;
  std::vector<SavedParameter> records_;
};

/// Reads one file, in dybatch's format with an archive of `archive` or in DyNet's; each call reads
/// and checks it afresh.
class FileLoader : public Loader {
 public:
  FileLoader(std::string path, ArchiveFormat archive);
  void populate(ParameterCollection& model, const std::string& key = "") override;
  void populate(Parameter& param, const std::string& key = "") override;
  void populate(LookupParameter& param, const std::string& key = "") override;
  Parameter load_param(ParameterCollection& model, const std::string& key) override;
  LookupParameter load_lookup_param(ParameterCollection& model, const std::string& key) override;

 private:
  std::string path_;
  ArchiveFormat archive_;
};

/// With `format` ModelFileFormat::DyNet, writes the text DyNet 2.1 writes and loads.
class TextFileSaver : public FileSaver {
 public:
  explicit TextFileSaver(const std::string& path, bool append = false,
                         ModelFileFormat format = ModelFileFormat::Dybatch)
      : FileSaver(path, ArchiveFormat::Text, append, format) {}
};

/// Reads dybatch's text archives and DyNet's text format.
class TextFileLoader : public FileLoader {
 public:
  explicit TextFileLoader(const std::string& path) : FileLoader(path, ArchiveFormat::Text) {}
};

class BinaryFileSaver : public FileSaver {
 public:
  explicit BinaryFileSaver(const std::string& path, bool append = false)
      : FileSaver(path, ArchiveFormat::Binary, append) {}
};

class BinaryFileLoader : public FileLoader {
 public:
  explicit BinaryFileLoader(const std::string& path) : FileLoader(path, ArchiveFormat::Binary) {}
};

/// Saves `model` to `path` as TextFileSaver(path).save(model) does and the vocabularies to
/// `dicts_path` as save_dicts does, all or nothing: both files are written to temporary files
/// first and neither is replaced unless both are written (write_files_atomically), so that a
/// model never sits beside vocabularies of another training run.
void save_model_and_dicts(const std::string& path, const ParameterCollection& model, const std::string& dicts_path,
                          const std::vector<NamedDict>& dicts);

}  // namespace dynet
