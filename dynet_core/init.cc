#include "dynet_core/init.h"

#ifdef __GLIBC__
#include <malloc.h>
#include <algorithm>
#endif

#include <atomic>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>

#include "dynet_core/device/device.h"
#include "dynet_core/device/gpu_backend.h"
#include "dynet_core/device/guarded_device.h"
#include "dynet_core/host_random.h"
#include "dynet_core/ops/registry.h"
#include "dynet_core/random_engine.h"
#include "dynet_core/string_util.h"

namespace dynet {

namespace {

struct Globals {
  std::mutex mutex;
  std::atomic<bool> initialized{false};
  DynetParams params;
  unsigned seed_in_use = 0;
  std::unique_ptr<Device> device;
  RandomEngine rng;
};

Globals& globals() {
  static Globals g;
  return g;
}

constexpr std::size_t MB = std::size_t(1) << 20;
const MemorySizes kDefaultSizes = {64 * MB, 64 * MB, 32 * MB, 32 * MB};

/// A number of type T in [lo, hi] from a flag's value; throws naming the flag otherwise.
template <class T>
T parse_number(const std::string& flag, const std::string& value, T lo, T hi) {
  std::istringstream in(value);
  T v{};
  if (!(in >> v) || !in.eof() || v < lo || v > hi)
    throw std::invalid_argument(flag + ": '" + value + "' is not valid; expected a number from " + std::to_string(lo) +
                                " to " + std::to_string(hi));
  return v;
}

/// Adds GPU `id`, named `item` in the flag's `list`, unless the list named it already.
void add_gpu(std::vector<int>& gpus, int id, const std::string& flag, const std::string& list,
             const std::string& item) {
  if (std::find(gpus.begin(), gpus.end(), id) != gpus.end())
    throw std::invalid_argument(flag + " " + list + ": " + item + " is named twice");
  gpus.push_back(id);
}

/// The GPU ids of a --dynet-devices list such as "CPU,GPU:0"; throws naming the item it cannot read.
std::vector<int> parse_device_list(const std::string& flag, const std::string& list) {
  std::vector<int> gpus;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.rfind("GPU:", 0) == 0 && item.size() > 4 && item.find_first_not_of("0123456789", 4) == std::string::npos &&
        item.size() <= 7) {
      add_gpu(gpus, std::stoi(item.substr(4)), flag, list, item);
    } else if (item != "CPU") {
      throw std::invalid_argument(flag + " " + list + ": '" + item +
                                  "' is not a device; expected CPU or GPU:N, as in --dynet-devices CPU,GPU:0");
    }
    if (comma == std::string::npos) return gpus;
    start = comma + 1;
  }
}

/// Eigen allocates GEMM packing buffers on every product and frees them; with glibc's defaults
/// the freed top of the heap is handed back to the system each time and faulted in again by the
/// next product, which measured a fourfold slowdown of 640x256 products. Keep freed memory (up
/// to what the process already uses) instead.
void keep_freed_heap_memory() {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

void initialize_locked(Globals& g, const DynetParams& params) {
  const MemorySizes sizes =
      params.mem_descriptor.empty() ? kDefaultSizes : parse_memory_descriptor(params.mem_descriptor);
  if (params.autobatch < 0 || params.autobatch > 2)
    throw std::invalid_argument("--dynet-autobatch: " + std::to_string(params.autobatch) +
                                " is not valid; expected 0 (off), 1 (agenda) or 2 (depth)");
  if (params.profiling < 0 || params.profiling > 2)
    throw std::invalid_argument("--dynet-profiling: " + std::to_string(params.profiling) +
                                " is not valid; expected 0, 1 or 2");
  register_all_ops();
  keep_freed_heap_memory();
  if (params.gpu_ids.size() > 1)
    throw std::invalid_argument(
        "--dynet-devices / --dynet-gpus / --dynet-gpu-ids: " + std::to_string(params.gpu_ids.size()) +
        " GPUs were asked for; dybatch runs on one GPU at a time");
  const bool made = !g.device;
  if (!g.device && !params.gpu_ids.empty()) g.device = make_gpu_device(params.gpu_ids[0], sizes, params.debug_memory);
  if (!g.device && params.guard_device_memory)
    g.device = std::make_unique<Device_GuardedCPU>(sizes, params.debug_memory, params.threads);
  if (!g.device) g.device = std::make_unique<Device_CPU>(sizes, params.debug_memory, params.threads);
  if (params.shared_parameters) {
    try {
      g.device->share_parameters();
    } catch (...) {
      if (made) g.device.reset();
      throw;
    }
  }
  g.params = params;
  g.seed_in_use = params.random_seed ? params.random_seed : std::random_device{}();
  g.rng.seed(g.seed_in_use);
  rndeng->seed(g.seed_in_use);
  g.initialized.store(true, std::memory_order_release);
}

Globals& initialized_globals() {
  Globals& g = globals();
  if (!g.initialized.load(std::memory_order_acquire)) {
    std::lock_guard<std::mutex> lock(g.mutex);
    if (!g.initialized.load(std::memory_order_relaxed)) initialize_locked(g, DynetParams{});
  }
  return g;
}

/// What the flags read so far have set; --dynet-devices and --dynet-gpus may not both be given.
struct FlagReading {
  DynetParams params;
  bool devices_given = false;
};

void read_devices(const std::string& name, const std::string& value, FlagReading& r) {
  if (r.devices_given) throw std::invalid_argument("Use only one of --dynet-gpus, --dynet-gpu-ids and --dynet-devices");
  r.devices_given = true;
  if (name == "--dynet-devices") {
    r.params.gpu_ids = parse_device_list(name, value);
  } else if (name == "--dynet-gpu-ids") {
    // DyNet's: GPU ids, comma-separated, each as --dynet-devices GPU:N asks for it ("CPU": none).
    if (value == "CPU") return;
    for (const std::string& id : str_split(value, ','))
      add_gpu(r.params.gpu_ids, parse_number(name, id, 0, 63), name, value, "GPU id " + id);
  } else {
    r.params.gpu_ids.resize(parse_number(name, value, 0, 64));
    for (std::size_t k = 0; k < r.params.gpu_ids.size(); ++k) r.params.gpu_ids[k] = static_cast<int>(k);
  }
}

/// One --dynet-* flag: its name, whether it may stand alone without a value, and how it is read.
struct Flag {
  const char* name;
  bool is_switch;
  void (*read)(const std::string& name, const std::string& value, FlagReading& r);
};

/// The one list of flags: the parser dispatches on it and the unknown-flag message prints it.
const Flag kFlags[] = {
    {"--dynet-mem", false,
     [](const std::string&, const std::string& v, FlagReading& r) {
       parse_memory_descriptor(v);
       r.params.mem_descriptor = v;
     }},
    // DyNet reads the seed as an unsigned; a wider type lets -1 and 2^32 be refused, not wrapped.
    {"--dynet-seed", false,
     [](const std::string& n, const std::string& v, FlagReading& r) {
       r.params.random_seed = static_cast<unsigned>(parse_number<long long>(n, v, 0, 4294967295LL));
     }},
    {"--dynet-autobatch", false,
     [](const std::string& n, const std::string& v, FlagReading& r) { r.params.autobatch = parse_number(n, v, 0, 2); }},
    {"--dynet-vertex", false,
     [](const std::string& n, const std::string& v, FlagReading& r) { r.params.vertex = parse_number(n, v, 0, 2); }},
    {"--dynet-profiling", false,
     [](const std::string& n, const std::string& v, FlagReading& r) { r.params.profiling = parse_number(n, v, 0, 2); }},
    {"--dynet-weight-decay", false,
     [](const std::string& n, const std::string& v, FlagReading& r) {
       r.params.weight_decay = parse_number(n, v, 0.f, 1.f);
       if (r.params.weight_decay == 1.f) throw std::invalid_argument(n + ": 1 would zero every parameter; use less");
     }},
    {"--dynet-threads", false,
     [](const std::string& n, const std::string& v, FlagReading& r) {
       r.params.threads = static_cast<unsigned>(parse_number(n, v, 1, 64));
     }},
    {"--dynet-devices", false, read_devices},
    {"--dynet-gpus", false, read_devices},
    {"--dynet-gpu-ids", false, read_devices},
    {"--dynet-debug-memory", true,
     [](const std::string& n, const std::string& v, FlagReading& r) {
       r.params.debug_memory = v.empty() || parse_number(n, v, 0, 1) == 1;
     }},
    // Pools always grow on demand here; accepted so that DyNet command lines keep working.
    {"--dynet-dynamic-mem", true, [](const std::string&, const std::string&, FlagReading&) {}},
    // DyNet's switch to print its batches, accepted likewise (--dynet-profiling 2 lists them here).
    {"--dynet-autobatch-debug", true, [](const std::string&, const std::string&, FlagReading&) {}},
};

const Flag* find_flag(const std::string& name) {
  for (const Flag& f : kFlags)
    if (name == f.name) return &f;
  return nullptr;
}

}  // namespace

std::vector<std::string> known_dynet_flags() {
  std::vector<std::string> names;
  for (const Flag& f : kFlags) names.push_back(f.name);
  return names;
}

DynetParams extract_dynet_params(int& argc, char**& argv, bool shared_parameters) {
  FlagReading r;
  r.params.shared_parameters = shared_parameters;
  int out = argc > 0 ? 1 : 0;
  for (int i = out; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--dynet-", 0) != 0 && arg.rfind("--dynet_", 0) != 0) {
      argv[out++] = argv[i];
      continue;
    }
    const std::size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq);
    std::replace(name.begin() + 2, name.end(), '_', '-');  // DyNet reads --dynet_mem as --dynet-mem
    const Flag* flag = find_flag(name);
    if (!flag) {
      std::string known;
      for (const Flag& f : kFlags) known += (known.empty() ? "" : ", ") + std::string(f.name);
      throw std::invalid_argument("unknown flag " + name + " (known: " + known + ")");
    }
    std::string value;
    if (eq != std::string::npos) {
      value = arg.substr(eq + 1);
    } else if (!flag->is_switch) {
      if (i + 1 >= argc) throw std::invalid_argument(name + " needs a value");
      value = argv[++i];
    }
    flag->read(name, value, r);
  }
  if (argc > 0) {
    argc = out;
    argv[argc] = nullptr;
  }
  return r.params;
}

void initialize(DynetParams& params) {
  Globals& g = globals();
  std::lock_guard<std::mutex> lock(g.mutex);
  initialize_locked(g, params);
}

void initialize(int& argc, char**& argv, bool shared_parameters) {
  DynetParams p = extract_dynet_params(argc, argv, shared_parameters);
  initialize(p);
}

void cleanup() {
  Globals& g = globals();
  std::lock_guard<std::mutex> lock(g.mutex);
  g.device.reset();
  g.initialized.store(false, std::memory_order_release);
}

const DynetParams& current_params() { return initialized_globals().params; }
Device* DefaultDevice::operator()() const { return initialized_globals().device.get(); }
int& autobatch_flag = globals().params.autobatch;
// DyNet's globals, declared only by DyNet's header names (dynet/init.h): the lambda new parameter
// collections start with, and --dynet-profiling.
float& weight_decay_lambda = globals().params.weight_decay;
int& profiling_flag = globals().params.profiling;
unsigned random_seed_in_use() { return initialized_globals().seed_in_use; }
namespace {
thread_local RandomEngine* scoped_engine = nullptr;
}  // namespace

RandomEngine& random_engine() { return scoped_engine ? *scoped_engine : initialized_globals().rng; }

RandomEngineScope::RandomEngineScope(RandomEngine& engine) : previous_(scoped_engine) { scoped_engine = &engine; }
RandomEngineScope::~RandomEngineScope() { scoped_engine = previous_; }

}  // namespace dynet
