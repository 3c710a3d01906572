#pragma once
// A named, hierarchical set of parameters: what a model is, what a trainer updates and what is
// saved. A ParameterCollection is a handle: copies refer to the same collection.

#include <memory>
#include <string>
#include <vector>

#include "dynet_core/param_init.h"
#include "dynet_core/parameters.h"

namespace dynet {

class Device;

/// DyNet's: what one collection holds, its parameters and those of its subcollections in creation
/// order, and its own weight decay (see ParameterCollection::get_weight_decay).
struct ParameterCollectionStorage {
  /// Weight decay with the lambda of --dynet-weight-decay, as DyNet's.
  ParameterCollectionStorage();
  /// DyNet's: writes "NORM: " and the L2 norm of all stored values to std::cerr; `radius` is unused
  /// there too.
  void project_weights(float radius = 1.0f);
  /// L2 norm of all gradients (of lookup tables, their touched rows).
  float gradient_l2_norm() const;

  std::vector<std::shared_ptr<ParameterStorageBase>> all_params;  ///< both lists, in creation order
  std::vector<std::shared_ptr<ParameterStorage>> params;
  std::vector<std::shared_ptr<LookupParameterStorage>> lookup_params;
  L2WeightDecay weight_decay;
};

class ParameterCollection {
 public:
  /// A new root collection, named "/".
  ParameterCollection();
  /// Copies share the collection, and keep it alive (a copy of a parameter's `owner` too).
  ParameterCollection(const ParameterCollection& other);
  ParameterCollection& operator=(const ParameterCollection& other);

  /// `scale` 0 means Glorot initialization, otherwise uniform on [-scale, scale].
  Parameter add_parameters(const Dim& d, float scale = 0.f, const std::string& name = "", Device* device = nullptr);
  Parameter add_parameters(const Dim& d, const ParameterInit& init, const std::string& name = "",
                           Device* device = nullptr);
  /// Glorot-initialized, named (DyNet's overloads).
  Parameter add_parameters(const Dim& d, const std::string& name, Device* device = nullptr);
  Parameter add_parameters(const Dim& d, Device* device);
  /// `n` rows of shape `d` (Glorot by default).
  LookupParameter add_lookup_parameters(unsigned n, const Dim& d, const std::string& name = "",
                                        Device* device = nullptr);
  LookupParameter add_lookup_parameters(unsigned n, const Dim& d, const ParameterInit& init,
                                        const std::string& name = "", Device* device = nullptr);
  /// A child collection named "<this name><name>/"; its parameters also belong to this one.
  ParameterCollection add_subcollection(const std::string& name = "");

  /// Every parameter of this collection and its descendants, in creation order.
  const std::vector<std::shared_ptr<ParameterStorage>>& parameters_list() const;
  const std::vector<std::shared_ptr<LookupParameterStorage>>& lookup_parameters_list() const;
  /// The same lists, by value (DyNet's accessors).
  std::vector<std::shared_ptr<ParameterStorage>> get_parameter_storages() const { return parameters_list(); }
  std::vector<std::shared_ptr<LookupParameterStorage>> get_lookup_parameter_storages() const {
    return lookup_parameters_list();
  }
  /// Both lists as DyNet's base class, in creation order of all parameters and tables.
  std::vector<std::shared_ptr<ParameterStorageBase>> get_parameter_storages_base() const;
  /// DyNet's spellings of Parameter::set_updated / is_updated (the parameter may be of any collection).
  void set_updated_param(const Parameter* p, bool status);
  void set_updated_lookup_param(const LookupParameter* p, bool status);
  bool is_updated_param(const Parameter* p);
  bool is_updated_lookup_param(const LookupParameter* p);
  /// The parameter with full name `name`; throws std::runtime_error when there is none.
  std::shared_ptr<ParameterStorage> get_parameter_storage(const std::string& name) const;
  std::shared_ptr<LookupParameterStorage> get_lookup_parameter_storage(const std::string& name) const;
  /// Number of (non-lookup) parameters, as DyNet counts.
  std::size_t size() const { return parameters_list().size(); }
  /// "/" for a root, "/name/" for a subcollection.
  const std::string& get_fullname() const;
  /// Number of trainable values.
  std::size_t parameter_count() const;
  /// Number of trainable values of the parameters a trainer updates (is_updated()).
  std::size_t updated_parameter_count() const;
  /// L2 norm of all gradients (lookup rows included).
  float gradient_l2_norm() const { return get_storage().gradient_l2_norm(); }
  /// Zeroes every gradient.
  void reset_gradient();

  /// DyNet's: writes "NORM: " and the L2 norm of all stored values (lookup tables included) to
  /// std::cerr; `radius` is unused there too.
  void project_weights(float radius = 1.0f) { get_storage().project_weights(radius); }

  /// DyNet's weight decay, one per collection, a subcollection's apart from its parent's
  /// (--dynet-weight-decay sets each one's lambda). A trainer of this collection decays with this
  /// one's factor and divides its steps by it; expressions read the factor of the root collection,
  /// every parameter's `owner`. For a root collection that is the same factor; for a subcollection
  /// it is not, as in DyNet. set_weight_decay_lambda throws std::domain_error outside [0, 1).
  float weight_decay_lambda() const { return get_storage().weight_decay.get_lambda(); }
  void set_weight_decay_lambda(float lambda);
  /// DyNet's: this collection's pending factor and lambda (see dynet_core/weight_decay.h).
  L2WeightDecay& get_weight_decay() { return get_storage().weight_decay; }
  /// Multiplies the stored values of this collection's updated parameters by its pending factor,
  /// then resets the factor to 1 (as DyNet's trainers do when it falls below 1/4). Parameters that
  /// are not updated keep their stored values, so expressions see them grow back by 1/factor, as
  /// in DyNet.
  void rescale_and_reset_weight_decay();

  /// DyNet's: the lists and the weight decay of this collection.
  ParameterCollectionStorage& get_storage();
  const ParameterCollectionStorage& get_storage() const;

 private:
  struct State;
  explicit ParameterCollection(std::shared_ptr<State> s) : state_(std::move(s)) {}
  /// The full name of a new parameter, or of a subcollection (without its trailing '/').
  std::string unique_name(const std::string& requested, const char* what, bool collection);
  void check_room(const Dim& d, const char* what) const;
  /// Makes the root of this collection the owner of `s`, whose weight decay its expressions read.
  template <class Storage>
  void adopt(Storage& s);

  std::shared_ptr<State> state_;
};

}  // namespace dynet
