#include "dynet_core/param_collection.h"

#include <cmath>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "dynet_core/device/device.h"
#include "dynet_core/init.h"

namespace dynet {

ParameterCollectionStorage::ParameterCollectionStorage() : weight_decay(current_params().weight_decay) {}

namespace {

/// Sum of squares over spans of parameter memory, each device's spans in one pass and one wait.
class SquaredNorms {
 public:
  /// This thread's, emptied: its tables keep what they have grown to, so the gradient norm that
  /// clipping takes at every update allocates nothing.
  static SquaredNorms& emptied() {
    thread_local SquaredNorms norms;
    norms.devices_.clear();
    for (std::vector<MemoryRun>& r : norms.runs_) r.clear();
    return norms;
  }
  void add(Device* device, const float* x, std::size_t n) {
    std::size_t k = 0;
    while (k < devices_.size() && devices_[k] != device) ++k;
    if (k == devices_.size()) {
      devices_.push_back(device);
      if (runs_.size() < devices_.size()) runs_.emplace_back();
    }
    runs_[k].push_back({nullptr, x, n});
  }
  double total() const {
    double sq = 0;
    for (std::size_t k = 0; k < devices_.size(); ++k) sq += devices_[k]->squared_norm(runs_[k].data(), runs_[k].size());
    return sq;
  }

 private:
  std::vector<Device*> devices_;
  std::vector<std::vector<MemoryRun>> runs_;  // runs_[k]: devices_[k]'s; more are kept from earlier norms
};

}  // namespace

void ParameterCollectionStorage::project_weights(float) {
  SquaredNorms& sq = SquaredNorms::emptied();
  for (const auto& p : params) sq.add(p->device, p->values.v, p->size());
  for (const auto& p : lookup_params) sq.add(p->device, p->all_values.v, p->size());
  std::cerr << "NORM: " << std::sqrt(sq.total()) << std::endl;
}

float ParameterCollectionStorage::gradient_l2_norm() const {
  SquaredNorms& sq = SquaredNorms::emptied();
  for (const auto& p : params) sq.add(p->device, p->g.v, p->size());
  // Only touched rows of a lookup table have a gradient: a sparse table costs its touched rows.
  for (const auto& p : lookup_params) {
    if (p->all_updated)
      sq.add(p->device, p->all_grads.v, p->size());
    else
      for (unsigned r : p->non_zero_grads) sq.add(p->device, p->grad_row(r), p->row_size());
  }
  return static_cast<float>(std::sqrt(sq.total()));
}

struct ParameterCollection::State : std::enable_shared_from_this<State> {
  std::string name;
  std::shared_ptr<State> parent;
  ParameterCollectionStorage storage;
  // Uses of each requested name, as DyNet counts them: parameters and lookup parameters in one
  // table, subcollections in another; and every name given out (a subcollection's with its '/').
  std::map<std::string, unsigned> parameter_names, collection_names;
  std::set<std::string> taken;
  // The `owner` of a root's parameters: a handle that does not keep the root alive (it lives in
  // it), whose copies do.
  ParameterCollection self{std::shared_ptr<State>()};

  // Parameters may outlive their root: they forget it, and read no weight-decay factor after it.
  ~State() {
    if (parent) return;
    for (const auto& p : storage.params) forget(*p);
    for (const auto& p : storage.lookup_params) forget(*p);
  }
  template <class Storage>
  static void forget(Storage& s) {
    s.owner = nullptr;
    s.decay = nullptr;
  }
  const State& root() const { return parent ? parent->root() : *this; }
};

ParameterCollection::ParameterCollection() : state_(std::make_shared<State>()) {
  state_->name = "/";
  state_->self.state_ = std::shared_ptr<State>(std::shared_ptr<State>(), state_.get());
}

ParameterCollection::ParameterCollection(const ParameterCollection& other)
    : state_(other.state_ ? other.state_->shared_from_this() : nullptr) {}

ParameterCollection& ParameterCollection::operator=(const ParameterCollection& other) {
  state_ = other.state_ ? other.state_->shared_from_this() : nullptr;
  return *this;
}

ParameterCollectionStorage& ParameterCollection::get_storage() { return state_->storage; }
const ParameterCollectionStorage& ParameterCollection::get_storage() const { return state_->storage; }

std::string ParameterCollection::unique_name(const std::string& requested, const char* what, bool collection) {
  if (requested.find('/') != std::string::npos)
    throw std::invalid_argument(std::string(what) + ": the name '" + requested +
                                "' contains '/', which separates collection levels");
  // DyNet's rule: the k-th use of a name takes "_k" from k = 1 on, and an unnamed one "_k" from 0, so
  // that files DyNet saved have the keys a program's collection gives. DyNet refuses names with
  // '_'; such a name could meet a suffixed one, and then takes the next count.
  std::map<std::string, unsigned>& uses = collection ? state_->collection_names : state_->parameter_names;
  std::string name;
  do {
    const unsigned k = uses[requested]++;
    name = k > 0 || requested.empty() ? requested + "_" + std::to_string(k) : requested;
  } while (!state_->taken.insert(collection ? name + "/" : name).second);
  return state_->name + name;
}

void ParameterCollection::check_room(const Dim& d, const char* what) const {
  if (d.bd != 1)
    throw std::invalid_argument(std::string(what) + ": parameters have no batch dimension, got " + to_string(d));
  if (!d.fits()) reject_size(d, std::string(what) + ": the shape");
}

Parameter ParameterCollection::add_parameters(const Dim& d, float scale, const std::string& name, Device* device) {
  if (scale == 0.f) return add_parameters(d, ParameterInitGlorot(), name, device);
  return add_parameters(d, ParameterInitUniform(scale), name, device);
}

Parameter ParameterCollection::add_parameters(const Dim& d, const ParameterInit& init, const std::string& name,
                                              Device* device) {
  check_room(d, "add_parameters");
  if (!device) device = default_device();
  auto s = std::make_shared<ParameterStorage>();
  s->dim = d;
  s->device = device;
  s->values = Tensor(d, device->allocate_parameter_floats(d.size()), device);
  s->g = Tensor(d, device->allocate_parameter_floats(d.size()), device);
  init.initialize_params(s->values);
  s->zero_grad();
  s->name = unique_name(name, "add_parameters", false);
  adopt(s);
  for (State* c = state_.get(); c; c = c->parent.get()) {
    c->storage.params.push_back(s);
    c->storage.all_params.push_back(s);
  }
  return Parameter(s);
}

Parameter ParameterCollection::add_parameters(const Dim& d, const std::string& name, Device* device) {
  return add_parameters(d, ParameterInitGlorot(), name, device);
}

Parameter ParameterCollection::add_parameters(const Dim& d, Device* device) {
  return add_parameters(d, ParameterInitGlorot(), "", device);
}

LookupParameter ParameterCollection::add_lookup_parameters(unsigned n, const Dim& d, const std::string& name,
                                                           Device* device) {
  return add_lookup_parameters(n, d, ParameterInitGlorot(true), name, device);
}

LookupParameter ParameterCollection::add_lookup_parameters(unsigned n, const Dim& d, const ParameterInit& init,
                                                           const std::string& name, Device* device) {
  check_room(d, "add_lookup_parameters");
  if (n == 0) throw std::invalid_argument("add_lookup_parameters: a table needs at least one row");
  if (d.ndims() >= Dim::kMaxDims)
    throw std::invalid_argument("add_lookup_parameters: rows may have at most " + std::to_string(Dim::kMaxDims - 1) +
                                " dimensions, got " + to_string(d));
  if (!device) device = default_device();
  Dim all = d;
  all.set(d.ndims(), n);
  if (!all.fits())
    reject_size(all, "add_lookup_parameters: a table of " + std::to_string(n) + " rows of " + to_string(d) + ", shape");
  auto s = std::make_shared<LookupParameterStorage>();
  s->device = device;
  s->all_values = Tensor(all, device->allocate_parameter_floats(all.size()), device);
  s->all_grads = Tensor(all, device->allocate_parameter_floats(all.size()), device);
  s->all_dim = all;
  s->initialize_lookups();
  init.initialize_params(s->all_values);
  device->zero(s->all_grads.v, all.size());
  s->all_updated = device->parameters_shared();
  s->name = unique_name(name, "add_lookup_parameters", false);
  adopt(s);
  for (State* c = state_.get(); c; c = c->parent.get()) {
    c->storage.lookup_params.push_back(s);
    c->storage.all_params.push_back(s);
  }
  return LookupParameter(s);
}

ParameterCollection ParameterCollection::add_subcollection(const std::string& name) {
  auto child = std::make_shared<State>();
  child->name = unique_name(name, "add_subcollection", true) + "/";
  child->parent = state_->shared_from_this();
  return ParameterCollection(child);
}

template <class Storage>
void ParameterCollection::adopt(Storage& s) {
  State& root = const_cast<State&>(state_->root());
  s->owner = &root.self;
  s->decay = &root.storage.weight_decay;
}

const std::vector<std::shared_ptr<ParameterStorage>>& ParameterCollection::parameters_list() const {
  return state_->storage.params;
}

const std::vector<std::shared_ptr<LookupParameterStorage>>& ParameterCollection::lookup_parameters_list() const {
  return state_->storage.lookup_params;
}

const std::string& ParameterCollection::get_fullname() const { return state_->name; }

std::vector<std::shared_ptr<ParameterStorageBase>> ParameterCollection::get_parameter_storages_base() const {
  return state_->storage.all_params;
}

void ParameterCollection::set_updated_param(const Parameter* p, bool status) { p->get_storage().updated = status; }
void ParameterCollection::set_updated_lookup_param(const LookupParameter* p, bool status) {
  p->get_storage().updated = status;
}
bool ParameterCollection::is_updated_param(const Parameter* p) { return p->get_storage().updated; }
bool ParameterCollection::is_updated_lookup_param(const LookupParameter* p) { return p->get_storage().updated; }

namespace {
template <class Storage>
std::shared_ptr<Storage> find_named(const std::vector<std::shared_ptr<Storage>>& list, const std::string& name,
                                    const char* who, const std::string& collection) {
  for (const auto& p : list)
    if (p->name == name) return p;
  throw std::runtime_error(std::string(who) + ": no parameter named '" + name + "' in collection '" + collection + "'");
}
}  // namespace

std::shared_ptr<ParameterStorage> ParameterCollection::get_parameter_storage(const std::string& name) const {
  return find_named(state_->storage.params, name, "get_parameter_storage", state_->name);
}

std::shared_ptr<LookupParameterStorage> ParameterCollection::get_lookup_parameter_storage(
    const std::string& name) const {
  return find_named(state_->storage.lookup_params, name, "get_lookup_parameter_storage", state_->name);
}

std::size_t ParameterCollection::parameter_count() const {
  std::size_t n = 0;
  for (const auto& p : state_->storage.all_params) n += p->size();
  return n;
}

std::size_t ParameterCollection::updated_parameter_count() const {
  std::size_t n = 0;
  for (const auto& p : state_->storage.all_params) n += p->is_updated() ? p->size() : 0;
  return n;
}

void ParameterCollection::reset_gradient() {
  for (const auto& p : state_->storage.params) p->zero_grad();
  for (const auto& p : state_->storage.lookup_params) {
    p->all_updated = true;
    p->zero_grad();
  }
}

void ParameterCollection::set_weight_decay_lambda(float lambda) {
  if (!(lambda >= 0 && lambda < 1))
    throw std::domain_error("set_weight_decay_lambda: lambda " + std::to_string(lambda) + " must be in [0, 1)");
  state_->storage.weight_decay.set_lambda(lambda);
}

void ParameterCollection::rescale_and_reset_weight_decay() {
  ParameterCollectionStorage& s = state_->storage;
  const float factor = s.weight_decay.current_weight_decay();
  for (const auto& p : s.all_params)
    if (p->is_updated()) p->scale_parameters(factor);
  s.weight_decay.reset_weight_decay();
}

}  // namespace dynet
