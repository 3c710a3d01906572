#pragma once
// DyNet's DeviceManager: the devices of this process by index and by name. dybatch runs a process
// on one device (--dynet-devices names it; the CPU when none is named), so the manager lists that
// one, and a name of any other device is refused with the list of what there is.

#include <cstddef>
#include <string>
#include <vector>

#include "dynet_core/device/device.h"

namespace dynet {

class DeviceManager {
 public:
  std::size_t num_devices() const { return get_devices().size(); }
  /// Throws std::out_of_range for an index past num_devices().
  Device* get(std::size_t i) const;
  const std::vector<Device*>& get_devices() const;
  /// The device of that name ("CPU", "GPU:0", as --dynet-devices spells them); throws
  /// std::invalid_argument naming it and the devices there are.
  Device* get_global_device(const std::string& name) const;
};

/// The process's manager (it starts dybatch with default flags if nothing has yet).
DeviceManager* get_device_manager();

}  // namespace dynet
