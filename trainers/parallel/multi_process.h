#pragma once
// DyNet's multi-process training (dynet::mp): forked children learn from the data at once, over
// parameters every process shares (DyNet's initialize(argc, argv, true)). The parent hands out
// data indices through one queue; each child adds the gradient of every datum it learned from
// into the shared gradients, taking turns with the others, so that no addition is lost (DyNet's
// children add at once). run_multi_process trains asynchronously: child 0 updates the shared
// parameters after each of its data with the mean gradient of the data added since the last
// update, while the others go on. run_mp_minibatch computes one minibatch's gradient for the
// caller's trainer->update(). The learner object, the trainer and the data are copied into each
// child by fork, so a learner's state (a builder, a graph) is a child's own.
//
// Unlike DyNet, a datum that throws in a child stops the pass: the parent throws
// std::runtime_error naming the child, the datum and the message, once every child has answered,
// and the shared parameters hold what was learned up to then.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <functional>
#include <iostream>
#include <numeric>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "dynet_core/host_random.h"
#include "trainers/trainer.h"

namespace dynet {
namespace mp {

/// DyNet's flag: set it (from a signal handler, say) to stop after the data being learned from.
extern bool stop_requested;

/// What the children run: LearnFromDatum once per datum (with learn false on the dev set, which
/// must not change the parameters); SaveModel in the parent after a new best dev loss.
template <class D, class S>
class ILearner {
 public:
  virtual ~ILearner() {}
  virtual S LearnFromDatum(const D& datum, bool learn) = 0;
  virtual void SaveModel() = 0;
};

/// The children of one run, forked by the constructor. What they do with a datum is given as
/// functions over the loss type's bytes, so that this part is written once for every S.
class Children {
 public:
  struct Work {
    std::size_t loss_bytes = 0;
    /// *loss = S(), and *sum += *part.
    std::function<void(void* loss)> clear;
    std::function<void(void* sum, const void* part)> add;
    /// *loss = the learner's loss on datum `index` of the train or dev set, learning from it when
    /// `learn`.
    std::function<void(unsigned index, bool dev, bool learn, void* loss)> learn;
    /// Writes a loss to a stream (the reports of child 0); null: the run never reports.
    std::function<void(std::ostream& os, const void* loss)> print;
    /// Updated by child 0 after each datum it learned from; null: gradients stay for the caller.
    Trainer* trainer = nullptr;
  };

  /// Forks n children (n >= 1); in them, serves passes until the parent ends them and then ends
  /// the process. Throws std::invalid_argument when the parameters are not shared between
  /// processes or the device cannot be forked with, std::runtime_error when the system refuses a
  /// pipe, the shared page or a fork.
  Children(unsigned n, Work work);
  /// Ends the children and waits for them.
  ~Children();
  Children(const Children&) = delete;
  Children& operator=(const Children&) = delete;

  /// One pass over `indices` of the train set (learning, unless `dev`) or the dev set; child 0
  /// reports its loss every `report_frequency` data (0: never). Returns in `sum` the total loss.
  void run(const unsigned* indices, std::size_t count, bool dev, unsigned report_frequency, void* sum);

 private:
  struct Shared;
  struct Pipes;
  [[noreturn]] void serve(unsigned id);
  /// Ends and waits for the children forked so far, and frees what the run holds.
  void release();
  /// Waits for child `id`, which stopped answering, and says how it ended.
  std::string ended(unsigned id);

  Work work_;
  Shared* shared_ = nullptr;
  std::vector<Pipes> pipes_;
  int queue_[2] = {-1, -1};
  std::vector<int> pids_;
  void (*previous_sigpipe_)(int) = nullptr;
  bool sigpipe_ignored_ = false;
};

namespace detail {

template <class S>
void check_loss_type() {
  static_assert(std::is_trivially_copyable<S>::value,
                "dynet::mp: the loss type S travels between processes as bytes, so it must be trivially copyable");
}

template <class D, class S>
Children::Work work(ILearner<D, S>* learner, const std::vector<D>& train, const std::vector<D>& dev, Trainer* trainer,
                    bool reports) {
  check_loss_type<S>();
  Children::Work w;
  w.loss_bytes = sizeof(S);
  w.clear = [](void* loss) { *static_cast<S*>(loss) = S(); };
  w.add = [](void* sum, const void* part) { *static_cast<S*>(sum) += *static_cast<const S*>(part); };
  w.learn = [learner, &train, &dev](unsigned i, bool on_dev, bool learn, void* loss) {
    *static_cast<S*>(loss) = learner->LearnFromDatum(on_dev ? dev[i] : train[i], learn);
  };
  if (reports) w.print = [](std::ostream& os, const void* loss) { os << *static_cast<const S*>(loss); };
  w.trainer = trainer;
  return w;
}

template <class S>
S run_pass(Children& children, const std::vector<unsigned>& indices, std::size_t begin, std::size_t end, bool dev,
           unsigned report_frequency) {
  S sum = S();
  children.run(indices.data() + begin, end - begin, dev, report_frequency, &sum);
  return sum;
}

/// The best dev loss so far: each pass's loss goes to std::cerr as DyNet writes it, and a new best
/// calls learner->SaveModel().
template <class S>
class BestDev {
 public:
  // Not const: DyNet's examples give their loss types a non-const operator<.
  template <class D>
  void report(double progress, S dev_loss, ILearner<D, S>* learner) {
    const bool best = first_ || dev_loss < best_;
    first_ = false;
    std::cerr << progress << "\tdev loss = " << dev_loss << (best ? " (New best!)" : "") << std::endl;
    if (best && !stop_requested) {
      learner->SaveModel();
      best_ = dev_loss;
    }
  }

 private:
  S best_ = S();
  bool first_ = true;
};

void check_frequency(const char* who, unsigned dev_frequency);
/// DyNet's trainer->update(1.0 / data): the update with the mean of the gradients of `data` data.
void update_with_mean(Trainer& trainer, unsigned data);

}  // namespace detail

/// DyNet's asynchronous training: num_iterations passes over train_data in shuffled order, cut
/// into pieces of dev_frequency data, each followed by a pass over dev_data; a new best dev loss
/// calls learner->SaveModel() in the parent. Losses go to std::cerr as DyNet writes them.
template <class D, class S>
void run_multi_process(unsigned num_children, ILearner<D, S>* learner, Trainer* trainer,
                       const std::vector<D>& train_data, const std::vector<D>& dev_data, unsigned num_iterations,
                       unsigned dev_frequency, unsigned report_frequency) {
  detail::check_frequency("run_multi_process", dev_frequency);
  if (!trainer) throw std::invalid_argument("dynet::mp::run_multi_process: the trainer is null");
  Children children(num_children, detail::work(learner, train_data, dev_data, trainer, true));
  std::vector<unsigned> order(train_data.size()), dev_order(dev_data.size());
  std::iota(order.begin(), order.end(), 0u);
  std::iota(dev_order.begin(), dev_order.end(), 0u);
  detail::BestDev<S> best_dev;
  for (unsigned iter = 0; iter < num_iterations && !stop_requested; ++iter) {
    std::shuffle(order.begin(), order.end(), *rndeng);
    for (std::size_t begin = 0; begin < order.size() && !stop_requested;) {
      const std::size_t end = std::min<std::size_t>(begin + dev_frequency, order.size());
      const double progress = iter + double(end) / order.size();
      const S loss = detail::run_pass<S>(children, order, begin, end, false, report_frequency);
      std::cerr << progress << "\tloss = " << loss << std::endl;
      if (stop_requested) break;
      best_dev.report(progress, detail::run_pass<S>(children, dev_order, 0, dev_order.size(), true, report_frequency),
                      learner);
      if (stop_requested) break;
      begin = end;
    }
  }
}

/// The same training in this process, the trainer updating after every batch_size data with
/// their mean gradient.
template <class D, class S>
void run_single_process(ILearner<D, S>* learner, Trainer* trainer, const std::vector<D>& train_data,
                        const std::vector<D>& dev_data, unsigned num_iterations, unsigned dev_frequency,
                        unsigned report_frequency, unsigned batch_size) {
  detail::check_frequency("run_single_process", dev_frequency);
  if (!trainer) throw std::invalid_argument("dynet::mp::run_single_process: the trainer is null");
  if (batch_size == 0) throw std::invalid_argument("dynet::mp::run_single_process: batch_size must be at least 1");
  std::vector<unsigned> order(train_data.size());
  std::iota(order.begin(), order.end(), 0u);
  detail::BestDev<S> best_dev;
  unsigned in_batch = 0, processed = 0;
  for (unsigned iter = 0; iter < num_iterations && !stop_requested; ++iter) {
    std::shuffle(order.begin(), order.end(), *rndeng);
    processed = 0;
    unsigned until_report = report_frequency;
    for (std::size_t begin = 0; begin < order.size() && !stop_requested;) {
      const std::size_t end = std::min<std::size_t>(begin + dev_frequency, order.size());
      S loss = S();
      for (std::size_t k = begin; k < end; ++k) {
        loss += learner->LearnFromDatum(train_data[order[k]], true);
        if (++in_batch == batch_size) {
          detail::update_with_mean(*trainer, batch_size);
          in_batch = 0;
        }
        ++processed;
        if (report_frequency && --until_report == 0) {
          until_report = report_frequency;
          std::cerr << iter + double(processed) / order.size() << "\tloss = " << loss << std::endl;
          loss = S();
        }
      }
      if (stop_requested) break;
      S dev_loss = S();
      for (const D& datum : dev_data) dev_loss += learner->LearnFromDatum(datum, false);
      best_dev.report(iter + double(processed) / order.size(), dev_loss, learner);
      if (stop_requested) break;
      begin = end;
    }
  }
}

/// One minibatch over num_children children: their gradients are added into the shared
/// parameters' for the caller's trainer->update(); returns the total loss.
template <class D, class S>
S run_mp_minibatch(unsigned num_children, ILearner<D, S>* learner, const std::vector<D>& data) {
  const std::vector<D> no_dev;
  Children children(num_children, detail::work(learner, data, no_dev, nullptr, false));
  std::vector<unsigned> order(data.size());
  std::iota(order.begin(), order.end(), 0u);
  return detail::run_pass<S>(children, order, 0, order.size(), false, 0);
}

/// The same with child 0 updating the parameters as in run_multi_process.
template <class D, class S>
S run_mp_minibatch_trainer(unsigned num_children, ILearner<D, S>* learner, Trainer* trainer,
                           const std::vector<D>& data) {
  const std::vector<D> no_dev;
  Children children(num_children, detail::work(learner, data, no_dev, trainer, false));
  std::vector<unsigned> order(data.size());
  std::iota(order.begin(), order.end(), 0u);
  return detail::run_pass<S>(children, order, 0, order.size(), false, 0);
}

/// The data in this process, an update after each datum (none without a trainer, when the data
/// are only scored); returns the total loss.
template <class D, class S>
S run_sp_minibatch_trainer(ILearner<D, S>* learner, Trainer* trainer, const std::vector<D>& data) {
  S sum = S();
  for (const D& datum : data) {
    sum += learner->LearnFromDatum(datum, trainer != nullptr);
    if (trainer) trainer->update();
  }
  return sum;
}

}  // namespace mp
}  // namespace dynet
