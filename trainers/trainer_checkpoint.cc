// Trainer checkpoints: a binary Boost archive in the checked envelope of dynet_core/io/envelope.h.
// Payload layout, format version 1:
//   trainer class name
//   setting count, then per setting (Trainer::settings order): name, value
//   clipping_enabled, sparse_updates_enabled, updates
//   floats of state per value
//   parameter count, then per parameter: name, value count, state (component-major)
//   lookup parameter count, then the same per table
//   the model's pending weight-decay factor (its stored values mean nothing without it); absent
//   from checkpoints written while weight decay scaled the values at each update, where it is 1

#include <istream>
#include <iterator>
#include <limits>
#include <ostream>
#include <stdexcept>

#include "dynet_core/device/device.h"
#include "dynet_core/io/archive.h"
#include "dynet_core/io/envelope.h"
#include "dynet_core/io/whole_file.h"
#include "trainers/trainer.h"

namespace dynet {

namespace {

constexpr ArchiveFormat kCheckpointFormat = ArchiveFormat::Binary;
const char* const kStreamSource = "(stream)";

// A checkpoint that is intact but belongs to another trainer or model.
struct Mismatch : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::uint64_t read_flag(ArchiveReader& r, const char* what) {
  const std::uint64_t v = r.integer();
  if (v > 1) throw std::runtime_error(std::string(what) + " is " + std::to_string(v) + ", not 0 or 1");
  return v;
}

}  // namespace

std::string Trainer::checkpoint() {
  allocate_state();
  settle_deferred_steps();
  const unsigned k = state_per_value();
  const std::string payload = write_archive(kCheckpointFormat, [&](ArchiveWriter& w) {
    w.string(name());
    const Hyperparameters all = settings();
    w.integer(all.size());
    for (const Hyperparameter& h : all) {
      w.string(h.name);
      w.real(*h.value);
    }
    w.integer(clipping_enabled);
    w.integer(sparse_updates_enabled);
    w.integer(updates);
    w.integer(k);
    auto write_states = [&](const auto& storages, const std::vector<StateBlock>& blocks) {
      w.integer(storages.size());
      for (std::size_t i = 0; i < storages.size(); ++i) {
        w.string(storages[i]->name);
        w.integer(blocks[i].stride);
        std::vector<float> state(k * blocks[i].stride);
        if (!state.empty()) storages[i]->device->to_host(state.data(), blocks[i].data, state.size());
        w.reals(state.data(), state.size());
      }
    };
    write_states(model_.parameters_list(), param_state_);
    write_states(model_.lookup_parameters_list(), lookup_state_);
    w.real(model_.get_weight_decay().current_weight_decay());
  });
  return seal(FileContent::TrainerState, kCheckpointFormat, payload);
}

void Trainer::restore(const std::string& bytes, const std::string& source) {
  const std::string file = describe_file(FileContent::TrainerState, source);
  const std::string_view payload = open_envelope(bytes, source, FileContent::TrainerState, kCheckpointFormat);
  allocate_state();
  const unsigned k = state_per_value();
  const Hyperparameters live = settings();
  std::vector<float> values(live.size());
  std::uint64_t clipping = 0, sparse = 0, steps = 0;
  float decay_factor = 1.f;
  std::vector<std::vector<float>> param_states, lookup_states;

  auto read_states = [&](ArchiveReader& r, const auto& storages, const std::vector<StateBlock>& blocks,
                         const char* what, std::vector<std::vector<float>>& states) {
    const std::uint64_t n = r.count("parameter count");
    if (n != storages.size())
      throw Mismatch("holds optimizer state for " + std::to_string(n) + " " + what + "s; the model has " +
                     std::to_string(storages.size()));
    for (std::size_t i = 0; i < storages.size(); ++i) {
      const std::string saved_name = r.string("name length");
      // Not bounded by the payload: a trainer with no state per value (SGD) stores none. The
      // comparison with the model's count below comes before any allocation.
      const std::uint64_t size = r.integer();
      if (saved_name != storages[i]->name || size != blocks[i].stride)
        throw Mismatch("holds state for the " + std::string(what) + " '" + saved_name + "' of " + std::to_string(size) +
                       " values where the model has '" + storages[i]->name + "' of " +
                       std::to_string(blocks[i].stride) + " values");
      states.emplace_back(k * size);
      r.reals(states.back().data(), states.back().size());
    }
  };

  try {
    read_archive(payload, kCheckpointFormat, [&](ArchiveReader& r) {
      const std::string trainer = r.string("trainer name length");
      if (trainer != name()) throw Mismatch("was written by " + trainer + ", not by " + name());
      if (r.count("setting count") != live.size()) throw std::runtime_error("it holds another number of settings");
      for (std::size_t i = 0; i < live.size(); ++i) {
        const std::string setting = r.string("setting name length");
        if (setting != live[i].name)
          throw std::runtime_error("setting " + std::to_string(i) + " is '" + setting + "', not '" + live[i].name +
                                   "'");
        values[i] = r.real();
        if (const char* why = Hyperparameter::violation(values[i], live[i].range))
          throw std::runtime_error(setting + " = " + std::to_string(values[i]) + ", which " + why);
      }
      clipping = read_flag(r, "clipping_enabled");
      sparse = read_flag(r, "sparse_updates_enabled");
      steps = r.integer();
      if (steps > std::numeric_limits<unsigned>::max())
        throw std::runtime_error("the update count " + std::to_string(steps) + " is out of range");
      if (r.integer() != k) throw std::runtime_error("it holds another number of state values per parameter value");
      read_states(r, model_.parameters_list(), param_state_, "parameter", param_states);
      read_states(r, model_.lookup_parameters_list(), lookup_state_, "lookup parameter", lookup_states);
      if (!r.at_end()) decay_factor = r.real();
      if (!(decay_factor > 0.f && decay_factor <= 1.f))
        throw std::runtime_error("the weight decay factor " + std::to_string(decay_factor) + " is not in (0, 1]");
    });
  } catch (const Mismatch& e) {
    throw std::runtime_error(file + " " + e.what());
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(file + " is malformed: " + e.what());
  }

  for (std::size_t i = 0; i < live.size(); ++i) *live[i].value = values[i];
  clipping_enabled = clipping != 0;
  sparse_updates_enabled = sparse != 0;
  updates = static_cast<unsigned>(steps);
  model_.get_weight_decay().set_current_weight_decay(decay_factor);
  auto apply_states = [](const auto& storages, const std::vector<std::vector<float>>& states,
                         const std::vector<StateBlock>& blocks) {
    for (std::size_t i = 0; i < blocks.size(); ++i)
      if (!states[i].empty()) storages[i]->device->to_device(blocks[i].data, states[i].data(), states[i].size());
  };
  apply_states(model_.parameters_list(), param_states, param_state_);
  apply_states(model_.lookup_parameters_list(), lookup_states, lookup_state_);
  forget_deferred_steps();
}

void Trainer::save(std::ostream& os) {
  const std::string bytes = checkpoint();
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!os) throw std::runtime_error(std::string(name()) + "::save: writing the checkpoint to the stream failed");
}

void Trainer::save(const std::string& path) { write_file_atomically(path, checkpoint()); }

void Trainer::populate(std::istream& is) {
  const std::string bytes{std::istreambuf_iterator<char>(is), std::istreambuf_iterator<char>()};
  restore(bytes, kStreamSource);
}

void Trainer::populate(const std::string& path) { restore(read_file(path), path); }

void Trainer::populate(std::istream& is, float lr) {
  if (const char* why = Hyperparameter::violation(lr, Hyperparameter::Range::NonNegative))
    throw std::invalid_argument(std::string(name()) + "::populate: learning_rate = " + std::to_string(lr) + " " + why);
  populate(is);
  learning_rate = lr;
}

}  // namespace dynet
