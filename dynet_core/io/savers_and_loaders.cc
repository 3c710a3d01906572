#include "dynet_core/io/savers_and_loaders.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "dynet_core/io/envelope.h"
#include "dynet_core/io/whole_file.h"

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

// DyNet's writer stores what expressions read, the stored values times the weight-decay factor
// of the parameter's root collection, and the gradient when one was accumulated (FULL_GRAD).
void add_dynet_fields(SavedParameter& r, const ParameterStorageBase& p, const Tensor& gradient) {
  const float factor = p.current_weight_decay();
  for (float& v : r.values) v *= factor;
  if (p.has_grad()) r.gradients = as_vector(gradient);
}

SavedParameter record_of(const ParameterStorage& p, std::string name, ModelFileFormat format) {
  SavedParameter r;
  r.kind = Kind::Parameter;
  r.name = std::move(name);
  r.dim = p.dim;
  r.values = as_vector(p.values);
  if (format == ModelFileFormat::DyNet) add_dynet_fields(r, p, p.g);
  return r;
}

SavedParameter record_of(const LookupParameterStorage& p, std::string name, ModelFileFormat format) {
  SavedParameter r;
  r.kind = Kind::Lookup;
  r.name = std::move(name);
  r.dim = p.dim;
  r.rows = p.n;
  r.values = as_vector(p.all_values);
  if (format == ModelFileFormat::DyNet) add_dynet_fields(r, p, p.all_grads);
  return r;
}

// DyNet's loader takes the gradient of a FULL_GRAD record and zeroes the gradient for ZERO_GRAD.
void load_gradient(ParameterStorage& p, const std::vector<float>& gradient) {
  p.zero_grad();
  if (gradient.empty()) return;
  set_from_host(p.g, gradient.data());
  p.nonzero_grad = true;
}

void load_gradient(LookupParameterStorage& p, const std::vector<float>& gradient) {
  p.zero_grad();
  if (gradient.empty()) return;
  set_from_host(p.all_grads, gradient.data());
  p.all_updated = true;  // every row holds the file's gradient
  p.nonzero_grad = true;
}

// Where a loaded record goes: a live parameter or lookup table.
struct Target {
  Kind kind;
  const std::string& name;
  Dim dim;
  unsigned rows;
  Tensor values;
  float weight_decay;  ///< the factor expressions read the stored values times
  std::function<void(const std::vector<float>&)> load_gradient;
};

Target target_of(ParameterStorage& p) {
  return {Kind::Parameter, p.name, p.dim, 1, p.values, p.current_weight_decay(), [&p](const std::vector<float>& g) {
            load_gradient(p, g);
          }};
}

Target target_of(LookupParameterStorage& p) {
  return {Kind::Lookup, p.name, p.dim, p.n, p.all_values, p.current_weight_decay(), [&p](const std::vector<float>& g) {
            load_gradient(p, g);
          }};
}

// The model's parameters, then its lookup parameters, each in creation order.
std::vector<Target> targets_of(ParameterCollection& model) {
  std::vector<Target> targets;
  for (const auto& p : model.parameters_list()) targets.push_back(target_of(*p));
  for (const auto& p : model.lookup_parameters_list()) targets.push_back(target_of(*p));
  return targets;
}

std::string shape_of(Kind kind, const Dim& dim, unsigned rows) {
  if (kind == Kind::Parameter) return "parameter of dim " + to_string(dim);
  return "lookup parameter of " + std::to_string(rows) + " rows of dim " + to_string(dim);
}

void check_match(const SavedParameter& r, const Target& t, const std::string& file) {
  if (r.kind != t.kind || r.dim != t.dim || r.rows != t.rows)
    throw std::runtime_error(file + " holds '" + r.name + "' as a " + shape_of(r.kind, r.dim, r.rows) +
                             ", but the model's '" + t.name + "' is a " + shape_of(t.kind, t.dim, t.rows));
}

// Copies a checked record into its target. A DyNet file holds what expressions read, and the
// gradient; dybatch's holds the stored values.
void copy_values(const SavedParameter& r, const Target& t, ModelFileFormat format) {
  if (format == ModelFileFormat::Dybatch) {
    set_from_host(t.values, r.values.data());
    return;
  }
  std::vector<float> stored = r.values;
  for (float& v : stored) v /= t.weight_decay;
  set_from_host(t.values, stored.data());
  t.load_gradient(r.gradients);
}

std::string basename_of(const std::string& key) { return key.substr(key.rfind('/') + 1); }

// The first record named `key` of `kind`: a DyNet file may hold a parameter and a lookup
// parameter under one name, and DyNet's loader looks for the kind it is asked for.
const SavedParameter& find_record(const ParameterFile& f, const std::string& file, const std::string& key, Kind kind) {
  const SavedParameter* other_kind = nullptr;
  for (const SavedParameter& r : f.records)
    if (r.name == key) {
      if (r.kind == kind) return r;
      other_kind = &r;
    }
  if (other_kind)
    throw std::runtime_error(file + " holds '" + key + "' as a " + kind_name(other_kind->kind) + ", not a " +
                             kind_name(kind));
  throw std::runtime_error(file + " has no record named '" + key + "'");
}

void populate_target(const std::string& path, ArchiveFormat archive, const Target& t, const std::string& key) {
  const ParameterFile f = read_parameter_file(path, archive);
  const std::string file = describe_file(FileContent::Parameters, path);
  const SavedParameter& r = find_record(f, file, parameter_key(t.name, key, "populate"), t.kind);
  check_match(r, t, file);
  copy_values(r, t, f.format);
}

// The records of every parameter of `model`, named under the collection key `prefix`.
std::vector<SavedParameter> records_of(const ParameterCollection& model, const std::string& prefix,
                                       ModelFileFormat format) {
  std::vector<SavedParameter> records;
  for (const auto& p : model.parameters_list())
    records.push_back(record_of(*p, prefix + relative_name(p->name, model), format));
  for (const auto& p : model.lookup_parameters_list())
    records.push_back(record_of(*p, prefix + relative_name(p->name, model), format));
  return records;
}

using Plan = std::vector<std::pair<const SavedParameter*, Target>>;

bool starts_with(const std::string& name, const std::string& prefix) {
  return name.compare(0, prefix.size(), prefix) == 0;
}

// dybatch's rule: every parameter of the model has the record of its own name under the key (by
// default the model's name), and the file holds nothing else under that key.
Plan plan_by_name(const std::vector<SavedParameter>& records, ParameterCollection& model, const std::string& key,
                  const std::string& file) {
  const std::string prefix = collection_key(model, key);
  std::map<std::string, const SavedParameter*> by_name;
  for (const SavedParameter& r : records)
    if (starts_with(r.name, prefix)) by_name[r.name] = &r;

  Plan plan;
  for (const Target& t : targets_of(model)) {
    const std::string name = prefix + relative_name(t.name, model);
    const auto it = by_name.find(name);
    if (it == by_name.end())
      throw std::runtime_error(
          file + " has no record '" + name + "' for the model's " + shape_of(t.kind, t.dim, t.rows) + " '" + t.name +
          "'" + (by_name.empty() && plan.empty() ? " (it holds nothing under the key '" + prefix + "')" : ""));
    check_match(*it->second, t, file);
    plan.emplace_back(it->second, t);
    by_name.erase(it);
  }
  for (const SavedParameter& r : records)
    if (by_name.count(r.name))
      throw std::runtime_error(file + " holds the " + kind_name(r.kind) + " '" + r.name + "' under the key '" + prefix +
                               "', which the model (" + model.get_fullname() + ") does not have");
  return plan;
}

std::string counted(std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

// DyNet's rule: the records whose names start with the key (all records without one) go to the
// model's parameters in order, the n-th #Parameter# record to the n-th parameter and the n-th
// #LookupParameter# record to the n-th lookup parameter; their names are not compared.
Plan plan_in_order(const std::vector<SavedParameter>& records, ParameterCollection& model, const std::string& key,
                   const std::string& file, const char* rule) {
  const std::string prefix = key.empty() || key.back() == '/' ? key : key + '/';
  std::vector<const SavedParameter*> in_file[2];
  for (const SavedParameter& r : records)
    if (starts_with(r.name, prefix)) in_file[static_cast<int>(r.kind)].push_back(&r);
  const std::vector<Target> targets = targets_of(model);
  const std::size_t lookups = model.lookup_parameters_list().size(), params = targets.size() - lookups;
  if (in_file[0].size() != params || in_file[1].size() != lookups)
    throw std::runtime_error(file + " holds " + counted(in_file[0].size(), "parameter") + " and " +
                             counted(in_file[1].size(), "lookup parameter") +
                             (prefix.empty() ? "" : " under the key '" + prefix + "'") + ", the model (" +
                             model.get_fullname() + ") has " + counted(params, "parameter") + " and " +
                             counted(lookups, "lookup parameter") + "; " + rule);
  Plan plan;
  std::size_t next[2] = {0, 0};
  for (const Target& t : targets) {
    const int kind = static_cast<int>(t.kind);
    const SavedParameter* r = in_file[kind][next[kind]++];
    check_match(*r, t, file);
    plan.emplace_back(r, t);
  }
  return plan;
}

const char* format_name(ModelFileFormat format) {
  return format == ModelFileFormat::DyNet ? "DyNet's text format" : "dybatch's format";
}

// Whether an append must keep what `path` holds: a file of 0 bytes holds nothing, and appending to
// it starts it, as in DyNet (whose dy.save empties the data file, then appends each object).
bool holds_something(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0) return st.st_size > 0;
  return errno != ENOENT;  // anything else: let reading it report the problem
}

}  // namespace

FileSaver::FileSaver(std::string path, ArchiveFormat archive, bool append, ModelFileFormat format)
    : path_(std::move(path)), archive_(archive), format_(format) {
  if (format_ == ModelFileFormat::DyNet && archive_ != ArchiveFormat::Text)
    throw std::invalid_argument("FileSaver: DyNet's format is text; it has no binary archive");
  if (!append || !holds_something(path_)) return;
  ParameterFile existing = read_parameter_file(path_, archive_);
  // The two formats hold different values (stored, or times the weight-decay factor) and only
  // DyNet's holds gradients: records of one cannot be rewritten in the other.
  if (existing.format != format_)
    throw std::runtime_error("FileSaver: cannot append to '" + path_ + "': it is in " + format_name(existing.format) +
                             ", and this saver writes " + format_name(format_));
  records_ = std::move(existing.records);
}

void FileSaver::save(const ParameterCollection& model, const std::string& key) {
  commit(records_of(model, collection_key(model, key), format_));
}

void FileSaver::save(const Parameter& param, const std::string& key) {
  const ParameterStorage& p = param.get_storage();
  commit({record_of(p, parameter_key(p.name, key, "save"), format_)});
}

void FileSaver::save(const LookupParameter& param, const std::string& key) {
  const LookupParameterStorage& p = param.get_storage();
  commit({record_of(p, parameter_key(p.name, key, "save"), format_)});
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
  write_parameter_file(path_, format_, archive_, all);
  records_ = std::move(all);
}

FileLoader::FileLoader(std::string path, ArchiveFormat archive) : path_(std::move(path)), archive_(archive) {}

void FileLoader::populate(ParameterCollection& model, const std::string& key) {
  const ParameterFile f = read_parameter_file(path_, archive_);
  const std::string file = describe_file(FileContent::Parameters, path_);
  // Without a key, a file of dybatch's format that holds nothing under the model's own name (saved
  // from another collection, e.g. a root, into a subcollection of the same parameters) loads as
  // DyNet's populate loads any file: in order.
  const std::string own = collection_key(model, key);
  const auto under_own = [&](const SavedParameter& r) { return starts_with(r.name, own); };
  Plan plan;
  if (f.format == ModelFileFormat::DyNet)
    plan =
        plan_in_order(f.records, model, key, file, "a file in DyNet's format loads in order, one record a parameter");
  else if (key.empty() && std::none_of(f.records.begin(), f.records.end(), under_own))
    plan = plan_in_order(f.records, model, key, file,
                         "holding nothing under the model's own name, the file loads in order, one record a "
                         "parameter, as DyNet's populate loads it");
  else
    plan = plan_by_name(f.records, model, key, file);
  for (const auto& [record, target] : plan) copy_values(*record, target, f.format);
}

void FileLoader::populate(Parameter& param, const std::string& key) {
  populate_target(path_, archive_, target_of(param.get_storage()), key);
}

void FileLoader::populate(LookupParameter& param, const std::string& key) {
  populate_target(path_, archive_, target_of(param.get_storage()), key);
}

Parameter FileLoader::load_param(ParameterCollection& model, const std::string& key) {
  const ParameterFile f = read_parameter_file(path_, archive_);
  const SavedParameter& r =
      find_record(f, describe_file(FileContent::Parameters, path_), required_key(key, "load_param"), Kind::Parameter);
  Parameter p = model.add_parameters(r.dim, ParameterInitConst(0.f), basename_of(key));
  copy_values(r, target_of(p.get_storage()), f.format);
  return p;
}

LookupParameter FileLoader::load_lookup_param(ParameterCollection& model, const std::string& key) {
  const ParameterFile f = read_parameter_file(path_, archive_);
  const SavedParameter& r = find_record(f, describe_file(FileContent::Parameters, path_),
                                        required_key(key, "load_lookup_param"), Kind::Lookup);
  LookupParameter p = model.add_lookup_parameters(r.rows, r.dim, ParameterInitConst(0.f), basename_of(key));
  copy_values(r, target_of(p.get_storage()), f.format);
  return p;
}

void save_model_and_dicts(const std::string& path, const ParameterCollection& model, const std::string& dicts_path,
                          const std::vector<NamedDict>& dicts) {
  const std::string model_bytes = parameter_file_bytes(
      ModelFileFormat::Dybatch, ArchiveFormat::Text, records_of(model, model.get_fullname(), ModelFileFormat::Dybatch));
  const std::string dicts_text = dicts_file_text(dicts);
  write_files_atomically({{path, model_bytes}, {dicts_path, dicts_text}});
}

}  // namespace dynet
