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

class ParameterCollection {
 public:
  /// A new root collection, named "/".
  ParameterCollection();

  /// `scale` 0 means Glorot initialization, otherwise uniform on [-scale, scale].
  Parameter add_parameters(const Dim& d, float scale = 0.f, const std::string& name = "",
                           Device* device = nullptr);
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
  float gradient_l2_norm() const;
  /// Zeroes every gradient.
  void reset_gradient();

  /// DyNet's: writes "NORM: " and the L2 norm of all stored values (lookup tables included) to
  /// std::cerr; `radius` is unused there too.
  void project_weights(float radius = 1.0f);

  /// L2 weight decay applied by trainers, one for the whole collection tree (--dynet-weight-decay
  /// sets the default); throws std::domain_error outside [0, 1).
  float weight_decay_lambda() const;
  void set_weight_decay_lambda(float lambda);
  /// DyNet's: the pending factor (see dynet_core/weight_decay.h), shared by the collection tree.
  L2WeightDecay& get_weight_decay();
  /// Multiplies the stored values of every updated parameter of the collection tree by the pending
  /// factor, then resets it to 1 (as DyNet's trainers do when it falls below 1/4). Parameters that
  /// are not updated keep their stored values, so expressions see them grow back by 1/factor, as
  /// in DyNet.
  void rescale_and_reset_weight_decay();

 private:
  struct State;
  explicit ParameterCollection(std::shared_ptr<State> s) : state_(std::move(s)) {}
  std::string unique_name(const std::string& requested, const char* what);
  void check_room(const Dim& d, const char* what) const;

  std::shared_ptr<State> state_;
};

}  // namespace dynet
