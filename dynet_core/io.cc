#include "dynet_core/io.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>
#include <stdexcept>

#include "dynet_core/io_envelope.h"
#include "dynet_core/io_file.h"

namespace dynet {

namespace {

using Kind = SavedParameter::Kind;

// "/enc" and "/enc/" name the same collection; no key means the collection's own name.
std::string collection_key(const ParameterCollection& model, const std::string& key) {
  if (key.empty()) return model.get_fullname();
  return key.back() == '/' ? key : key + '/';
}

std::string parameter_key(const std::string& own_name, const std::string& key, const char* where) {
  if (key.empty()) return own_name;
  if (key.back() == '/')
    throw std::invalid_argument(std::string(where) + ": the key '" + key +
                                "' ends with '/', so it names a collection, not a parameter");
  return key;
}

std::string required_key(const std::string& key, const char* where) {
  if (key.empty()) throw std::invalid_argument(std::string(where) + ": the key must name a record of the file");
  return parameter_key(key, key, where);
}

std::string relative_name(const std::string& full_name, const ParameterCollection& model) {
  return full_name.substr(model.get_fullname().size());
}

SavedParameter record_of(const ParameterStorage& p, std::string name) {
  SavedParameter r;
  r.kind = Kind::Parameter;
  r.name = std::move(name);
  r.dim = p.dim;
  r.values = as_vector(p.values);
  return r;
}

SavedParameter record_of(const LookupParameterStorage& p, std::string name) {
  SavedParameter r;
  r.kind = Kind::Lookup;
  r.name = std::move(name);
  r.dim = p.dim;
  r.rows = p.n;
  r.values = as_vector(p.all_values);
  return r;
}

// Where a loaded record goes: a live parameter or lookup table.
struct Target {
  Kind kind;
  const std::string& name;
  Dim dim;
  unsigned rows;
  Tensor values;
};

Target target_of(ParameterStorage& p) { return {Kind::Parameter, p.name, p.dim, 1, p.values}; }
Target target_of(LookupParameterStorage& p) { return {Kind::Lookup, p.name, p.dim, p.n, p.all_values}; }

std::string shape_of(Kind kind, const Dim& dim, unsigned rows) {
  if (kind == Kind::Parameter) return "parameter of dim " + to_string(dim);
  return "lookup parameter of " + std::to_string(rows) + " rows of dim " + to_string(dim);
}

void check_match(const SavedParameter& r, const Target& t, const std::string& file) {
  if (r.kind != t.kind || r.dim != t.dim || r.rows != t.rows)
    throw std::runtime_error(file + " holds '" + r.name + "' as a " + shape_of(r.kind, r.dim, r.rows) +
                             ", but the model's '" + t.name + "' is a " + shape_of(t.kind, t.dim, t.rows));
}

void copy_values(const SavedParameter& r, const Target& t) {
  set_from_host(t.values, r.values.data());
}

std::string basename_of(const std::string& key) { return key.substr(key.rfind('/') + 1); }

// The record named `key` of the file, which must be of `kind`.
SavedParameter find_record(const std::string& path, ArchiveFormat format, const std::string& key, Kind kind) {
  std::vector<SavedParameter> records = read_parameter_file(path, format);
  const std::string file = describe_file(FileContent::Parameters, path);
  for (SavedParameter& r : records)
    if (r.name == key) {
      if (r.kind != kind)
        throw std::runtime_error(file + " holds '" + key + "' as a " + kind_name(r.kind) + ", not a " + kind_name(kind));
      return std::move(r);
    }
  throw std::runtime_error(file + " has no record named '" + key + "'");
}

void populate_target(const std::string& path, ArchiveFormat format, const Target& t, const std::string& key) {
  const SavedParameter r = find_record(path, format, parameter_key(t.name, key, "populate"), t.kind);
  check_match(r, t, describe_file(FileContent::Parameters, path));
  copy_values(r, t);
}

// The records of every parameter of `model`, named under the collection key `prefix`.
std::vector<SavedParameter> records_of(const ParameterCollection& model, const std::string& prefix) {
  std::vector<SavedParameter> records;
  for (const auto& p : model.parameters_list()) records.push_back(record_of(*p, prefix + relative_name(p->name, model)));
  for (const auto& p : model.lookup_parameters_list())
    records.push_back(record_of(*p, prefix + relative_name(p->name, model)));
  return records;
}

bool file_exists(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return true;
  return errno != ENOENT;  // anything else: let reading it report the problem
}

}  // namespace

FileSaver::FileSaver(std::string path, ArchiveFormat format, bool append)
    : path_(std::move(path)), format_(format) {
  if (append && file_exists(path_)) records_ = read_parameter_file(path_, format_);
}

void FileSaver::save(const ParameterCollection& model, const std::string& key) {
  commit(records_of(model, collection_key(model, key)));
}

void FileSaver::save(const Parameter& param, const std::string& key) {
  const ParameterStorage& p = param.get_storage();
  commit({record_of(p, parameter_key(p.name, key, "save"))});
}

void FileSaver::save(const LookupParameter& param, const std::string& key) {
  const LookupParameterStorage& p = param.get_storage();
  commit({record_of(p, parameter_key(p.name, key, "save"))});
}

void FileSaver::commit(std::vector<SavedParameter> added) {
  std::set<std::string> names;
  for (const SavedParameter& r : records_) names.insert(r.name);
  for (const SavedParameter& r : added)
    if (!names.insert(r.name).second)
      throw std::invalid_argument("save: '" + path_ + "' would hold two records named '" + r.name +
                                  "'; save each parameter once, or under another key");
  std::vector<SavedParameter> all = records_;
  for (SavedParameter& r : added) all.push_back(std::move(r));
  write_parameter_file(path_, format_, all);
  records_ = std::move(all);
}

FileLoader::FileLoader(std::string path, ArchiveFormat format) : path_(std::move(path)), format_(format) {}

void FileLoader::populate(ParameterCollection& model, const std::string& key) {
  const std::vector<SavedParameter> records = read_parameter_file(path_, format_);
  const std::string file = describe_file(FileContent::Parameters, path_);
  const std::string prefix = collection_key(model, key);
  std::map<std::string, const SavedParameter*> by_name;
  for (const SavedParameter& r : records)
    if (r.name.compare(0, prefix.size(), prefix) == 0) by_name[r.name] = &r;

  std::vector<std::pair<const SavedParameter*, Target>> plan;
  auto bind = [&](const Target& t) {
    const std::string name = prefix + relative_name(t.name, model);
    const auto it = by_name.find(name);
    if (it == by_name.end())
      throw std::runtime_error(file + " has no record '" + name + "' for the model's " +
                               shape_of(t.kind, t.dim, t.rows) + " '" + t.name + "'" +
                               (by_name.empty() && plan.empty() ? " (it holds nothing under the key '" + prefix + "')"
                                                                : ""));
    check_match(*it->second, t, file);
    plan.emplace_back(it->second, t);
    by_name.erase(it);
  };
  for (const auto& p : model.parameters_list()) bind(target_of(*p));
  for (const auto& p : model.lookup_parameters_list()) bind(target_of(*p));
  for (const SavedParameter& r : records)
    if (by_name.count(r.name))
      throw std::runtime_error(file + " holds the " + kind_name(r.kind) + " '" + r.name + "' under the key '" + prefix +
                               "', which the model (" + model.get_fullname() + ") does not have");

  for (const auto& [record, target] : plan) copy_values(*record, target);
}

void FileLoader::populate(Parameter& param, const std::string& key) {
  populate_target(path_, format_, target_of(param.get_storage()), key);
}

void FileLoader::populate(LookupParameter& param, const std::string& key) {
  populate_target(path_, format_, target_of(param.get_storage()), key);
}

Parameter FileLoader::load_param(ParameterCollection& model, const std::string& key) {
  SavedParameter r = find_record(path_, format_, required_key(key, "load_param"), Kind::Parameter);
  return model.add_parameters(r.dim, ParameterInitFromVector(std::move(r.values)), basename_of(key));
}

LookupParameter FileLoader::load_lookup_param(ParameterCollection& model, const std::string& key) {
  SavedParameter r = find_record(path_, format_, required_key(key, "load_lookup_param"), Kind::Lookup);
  return model.add_lookup_parameters(r.rows, r.dim, ParameterInitFromVector(std::move(r.values)), basename_of(key));
}

void save_model_and_dicts(const std::string& path, const ParameterCollection& model, const std::string& dicts_path,
                          const std::vector<NamedDict>& dicts) {
  const std::string model_bytes = parameter_file_bytes(ArchiveFormat::Text, records_of(model, model.get_fullname()));
  const std::string dicts_text = dicts_file_text(dicts);
  write_files_atomically({{path, model_bytes}, {dicts_path, dicts_text}});
}

}  // namespace dynet
