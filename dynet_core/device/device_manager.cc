#include "dynet_core/device/device_manager.h"

#include <stdexcept>

#include "dynet_core/init.h"

namespace dynet {

namespace {

// The guarded CPU device is the CPU that tests run on: it answers to the CPU's name.
bool answers_to(const Device& d, const std::string& name) {
  return d.name == name || (name == "CPU" && d.type == DeviceType::CPU);
}

}  // namespace

const std::vector<Device*>& DeviceManager::get_devices() const {
  // The default device lives until cleanup(), and a new initialize() may make another one.
  thread_local std::vector<Device*> devices(1);
  devices[0] = default_device();
  return devices;
}

Device* DeviceManager::get(std::size_t i) const {
  const std::vector<Device*>& devices = get_devices();
  if (i >= devices.size())
    throw std::out_of_range("DeviceManager::get: device " + std::to_string(i) + " of " +
                            std::to_string(devices.size()) + " (this process runs on " + devices[0]->name + ")");
  return devices[i];
}

Device* DeviceManager::get_global_device(const std::string& name) const {
  for (Device* d : get_devices())
    if (answers_to(*d, name)) return d;
  throw std::invalid_argument("DeviceManager::get_global_device: no device '" + name + "'; this process runs on " +
                              get_devices()[0]->name + " only (--dynet-devices chooses the device)");
}

DeviceManager* get_device_manager() {
  static DeviceManager manager;
  return &manager;
}

}  // namespace dynet
