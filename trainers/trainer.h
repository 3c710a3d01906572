#pragma once
// The trainer loop shared by every update rule: an optional learning-rate schedule, gradient
// clipping by global norm, sparse updates of lookup tables, L2 weight decay, per-value optimizer
// state in the parameter pool, zeroing gradients after an update, and checkpoints of all of it.

#include <array>
#include <cstddef>
#include <initializer_list>
#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "dynet_core/param_collection.h"
#include "trainers/deferred_rows.h"
#include "trainers/learning_rate_schedule.h"
#include "trainers/update_rules.h"

namespace dynet {

class Trainer {
 public:
  Trainer(ParameterCollection& model, float learning_rate);
  virtual ~Trainer();
  Trainer(const Trainer&) = delete;
  Trainer& operator=(const Trainer&) = delete;

  /// Applies the accumulated gradients to every updated parameter (only the rows touched since
  /// the last update of lookup tables, with sparse updates; without, every row, those no gradient
  /// reached stepping with a zero gradient that is not read), then zeroes the gradients. With weight
  /// decay lambda (the model's ParameterCollection::weight_decay_lambda, --dynet-weight-decay), as
  /// in DyNet: the rule moves s v, s the model's pending factor (for a root collection, the one its
  /// expressions read), then s shrinks by 1 - lambda, which decays every parameter at once; below
  /// 1/4 it is folded into the values (rescale_and_reset_weight_decay). Throws, changing nothing,
  /// when a setting is out of range or (with clipping) the gradients hold a NaN or infinity.
  void update();
  /// DyNet's update of a subset (Python's update_subset): as update(), but only the parameters and
  /// lookup tables at these positions of the model's parameters_list() and lookup_parameters_list()
  /// step, and only their gradients are zeroed; the others keep theirs for a later update. Throws
  /// std::invalid_argument, changing nothing, for a position past the end or given twice.
  void update(const std::vector<unsigned>& updated_params, const std::vector<unsigned>& updated_lookup_params);
  /// Forgets the optimizer state (moments, step count); optionally sets a new learning rate first.
  /// CyclicalSGDTrainer's does nothing, as DyNet's: its cycle goes on.
  virtual void restart();
  void restart(float lr);
  /// DyNet's: the factor update() scales the gradients by, clip_threshold / their global L2 norm
  /// when that exceeds the threshold (counted as a clip), else 1 (always 1 without clipping).
  /// Throws std::runtime_error when the norm is a NaN or infinity.
  float clip_gradients();
  /// Deprecated in DyNet 2, where it only says so on std::cerr; the same here.
  void update_epoch(float r = 1.f);
  /// DyNet's: folds the model's pending weight-decay factor into the values of its updated
  /// parameters and resets it (ParameterCollection::rescale_and_reset_weight_decay).
  void rescale_and_reset_weight_decay() { model_.rescale_and_reset_weight_decay(); }

  /// Writes "[lr=... clips=... updates=...] " (counts since the last status()) to std::cerr, as
  /// DyNet's trainers do, and resets those counts.
  void status();

  /// DyNet's averaged weights: after every `update_freq`-th update, a copy of every parameter
  /// follows either ma = beta ma + (1 - beta) w (exponential) or the mean of all values so far
  /// (cumulative). Choose one before the first update (std::runtime_error otherwise, or for
  /// update_freq 0). The averages live beside the model and are not part of save().
  enum class MovingAverage { None, Cumulative, Exponential };
  void exponential_moving_average(float beta, unsigned update_freq = 1);
  void cumulative_moving_average(unsigned update_freq = 1);
  MovingAverage moving_average() const { return ma_mode_; }
  /// Replaces the weights with their averages (divided by 1 - beta^n with bias_correction, for the
  /// exponential average), keeping the weights to swap back when `save_weights`. Throws
  /// std::runtime_error without a moving average or before its first update.
  void swap_params_to_moving_average(bool save_weights = true, bool bias_correction = false);
  /// Puts the kept weights back (nothing to do when not swapped); the next update() does it too.
  void swap_params_to_weights();

  /// Writes a checkpoint of the trainer: its settings (learning rate, clipping, constants of the
  /// rule), the update count and the optimizer state of every parameter of the model. Together
  /// with the model's values it lets training resume exactly where it stopped. The schedule, a
  /// function, is not saved: set it again after populate().
  void save(std::ostream& os);
  /// The same, into a file replaced atomically.
  void save(const std::string& path);
  /// Restores a checkpoint written by save(), after checking all of it: intact, written by the
  /// same kind of trainer, for a model with the same parameters (names and sizes, in order).
  /// Throws std::runtime_error naming the first problem otherwise, changing nothing. The stream
  /// is read to its end.
  void populate(std::istream& is);
  void populate(const std::string& path);
  /// DyNet's: populate(is), then learning_rate = lr (checked first: nothing changes when it is
  /// not finite and >= 0).
  void populate(std::istream& is, float lr);

  /// A constant of an update rule (a momentum, an epsilon) with its valid range, so that
  /// constructors, update() and populate() check it alike.
  struct Hyperparameter {
    enum class Range {
      Positive,      ///< finite and at least FLT_MIN (no denormal)
      NonNegative,   ///< finite and >= 0
      Fraction,      ///< in [0, 1)
      UnitInterval,  ///< in [0, 1]
    };
    const char* name;
    float* value;
    Range range;

    /// What is wrong with `v` for a constant of `range` ("must be ..."), or nullptr when it fits.
    static const char* violation(float v, Range range);
  };

  /// A trainer's constants, held in place: update() checks them at every step and allocates
  /// nothing for it.
  class Hyperparameters {
   public:
    static constexpr std::size_t kCapacity = 8;
    Hyperparameters() = default;
    Hyperparameters(std::initializer_list<Hyperparameter> items);
    /// Throws std::logic_error past kCapacity.
    void push_back(const Hyperparameter& h);
    const Hyperparameter* begin() const { return items_.data(); }
    const Hyperparameter* end() const { return items_.data() + size_; }
    std::size_t size() const { return size_; }
    const Hyperparameter& operator[](std::size_t i) const { return items_[i]; }

   private:
    std::array<Hyperparameter, kCapacity> items_{};
    std::size_t size_ = 0;
  };

  /// The class name, e.g. "AdamTrainer"; checkpoints record it.
  virtual const char* name() const = 0;

  float learning_rate;
  /// When set, update() takes learning_rate from it before each update.
  LearningRateSchedule learning_rate_schedule;
  bool clipping_enabled = true;
  float clip_threshold = 5.f;          ///< gradients are rescaled when their global L2 norm exceeds it
  bool sparse_updates_enabled = true;  ///< update only lookup rows touched since the last update
  /// On the CPU, update() runs every rule but EG's with denormal floats flushed to zero
  /// (dynet_core/device/flush_denormals.h). Moments decay geometrically in values no gradient
  /// reaches (a dense update's rows of a table), and below FLT_MIN every operation on them takes a
  /// microcode assist: a dense Adam update ran 3-5x slower after a thousand steps. Values that
  /// small are all it changes. false keeps IEEE's gradual underflow, as DyNet computes. Like the
  /// schedule, not part of checkpoints.
  bool flush_denormals = true;
  unsigned updates = 0;  ///< number of update() calls since the last restart
  float clips = 0;       ///< updates whose gradients were rescaled by clipping
  float clips_since_status = 0;
  float updates_since_status = 0;
  ParameterCollection* model = &model_;  ///< the parameters this trainer updates (DyNet's member)
  /// Parameters and lookup tables whose optimizer state exists (DyNet's counters): the model's
  /// counts as of the last update, since state is made for new parameters at their first update.
  unsigned aux_allocated = 0, aux_allocated_lookup = 0;

 protected:
  virtual Hyperparameters hyperparameters() = 0;
  /// Throws std::invalid_argument naming the first setting out of its range; derived
  /// constructors call it once their constants are set.
  void check_settings();

  /// Floats of optimizer state per parameter value.
  virtual unsigned state_per_value() const = 0;
  /// Updates the values of `call` in place from their gradients (times gscale) by launching the
  /// rule on `device` (launch_update). State component c of value i is state[c * stride + i], zero
  /// before the first update.
  virtual void update_values(Device& device, const update_rules::UpdateCall& call, float gscale) = 0;
  /// Called when state was allocated for parameters added since the last update, so that a rule
  /// exposing its state as DyNet's members (MomentumSGDTrainer::vp) can refresh its views.
  virtual void state_allocated() {}
  /// Called at the end of each update, `updates` counting it.
  virtual void updated() {}
  /// Component c of the state of parameter i (of lookup table i) starts at state + c * stride.
  float* parameter_state(std::size_t i) const { return param_state_[i].data; }
  float* lookup_parameter_state(std::size_t i) const { return lookup_state_[i].data; }

  ParameterCollection model_;

 private:
  struct StateBlock {
    float* data;
    std::size_t stride;
  };
  /// The learning rate and clip threshold, then the rule's hyperparameters().
  Hyperparameters settings();
  void allocate_state();
  /// Runs the zero-gradient steps the CPU kernels deferred (trainers/deferred_rows.h), before the
  /// state is read; forget_deferred_steps() when the state is replaced.
  void settle_deferred_steps();
  void forget_deferred_steps();
  /// update() over every parameter and table, or over those of the subsets where given.
  void update_parameters(const std::vector<unsigned>* params, const std::vector<unsigned>* tables);
  /// clip_gradients() for the method `who` the user called, as messages name it.
  float gradient_scale(const char* who);
  /// The bytes of a checkpoint file.
  std::string checkpoint();
  /// Checks the checkpoint `bytes` read from `source`, then applies it.
  void restore(const std::string& bytes, const std::string& source);

  /// The values of every parameter, then of every lookup table.
  struct Weights {
    float* values;
    std::size_t size;
    Device* device;
  };
  std::vector<Weights> weights() const;
  /// One zeroed block per entry of weights() in `blocks`, for entries it lacks.
  void allocate_copies(std::vector<float*>& blocks) const;
  void update_moving_average();

  std::vector<StateBlock> param_state_;
  std::vector<StateBlock> lookup_state_;
  /// Per lookup table on a CPU device, the zero-gradient steps its update kernel deferred.
  std::vector<DeferredRows> deferred_;

  MovingAverage ma_mode_ = MovingAverage::None;
  float ema_beta_ = 0.f;
  unsigned ma_update_freq_ = 1;
  unsigned ma_updates_ = 0;
  bool ma_swapped_ = false;
  bool ma_saved_ = false;
  std::vector<float*> ma_values_;
  std::vector<float*> ma_kept_weights_;
};

}  // namespace dynet
