#pragma once
// Kernels per device type, by op id. The CPU table is the OpDef rows (their forward, backward and
// leaf_backward); a backend for another device type fills its own table at start-up and checks
// it, so that a backend lacking an op is refused then, never at the first graph that uses it.

#include <cstdint>
#include <string>
#include <vector>

#include "dynet_core/op_def.h"

namespace dynet {

enum class DeviceType : std::uint8_t { CPU, GPU };

/// A device's kernels for one op; null where the CPU row has none.
struct OpKernels {
  void (*forward)(const OpCall&) = nullptr;
  void (*backward)(const OpCall&, unsigned i) = nullptr;
  void (*leaf_backward)(const OpCall&) = nullptr;
};

/// The kernels of every registered op on devices of `type`, indexed by op id. The CPU table
/// follows the registry; other tables are filled by their backend.
const std::vector<OpKernels>& kernel_table(DeviceType type);
/// Sets `op`'s kernels for devices of `type` (not CPU: its kernels are the rows).
void set_kernels(DeviceType type, const OpDef& op, const OpKernels& kernels);
/// Throws std::logic_error naming `backend` and every registered op whose kernels on `type` are
/// missing (forward, or a backward / leaf_backward that the CPU row has).
void check_kernels(DeviceType type, const char* backend);
/// What check_kernels reports for `table`: "op (kernel)" for each missing kernel, comma-separated;
/// empty when the table is complete.
std::string missing_kernels(const std::vector<OpKernels>& table);
/// Appends the CPU kernels of a newly registered row; called by the registry.
void add_cpu_kernels(const OpDef& op);

}  // namespace dynet
