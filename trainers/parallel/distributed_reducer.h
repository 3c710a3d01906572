#pragma once
// Data parallelism across processes and machines. Every rank (process) holds the whole model and
// runs forward and backward on its share of each minibatch (with DataParallel threads inside, if
// it likes); the reducer then sums every parameter's gradient over the ranks, so that the trainer
// update each rank makes next is the same step, the one a single process would make on the whole
// minibatch. Dense gradients travel in a few large allreduce buckets; a lookup table travels as
// the rows some rank touched (their indices, then the rows). Each step also exchanges a small
// status, so that when any rank fails, every rank stops with that rank's error instead of
// waiting for it.
//
//   auto comm = dynet::launched_communicator();          // MPI under mpirun, else one process
//   dynet::DistributedReducer reducer(model, *comm);     // same model everywhere, rank 0's values
//   for (...) {
//     const dynet::Share mine = reducer.share(batch.size());
//     double loss = reducer.backward([&] { ...forward and backward over mine...; return my_loss; });
//     trainer.update();
//     if (reducer.is_root()) print(loss);
//   }
//   reducer.on_root([&] { save(model); });

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet_core/param_collection.h"
#include "trainers/parallel/communicator.h"

namespace dynet {

/// Thrown on every rank when some rank failed during a collective call, or the ranks disagree (on
/// their models, or on the call they are in: a rank that skipped a step).
class DistributedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct DistributedOptions {
  /// Dense gradients are summed in allreduce calls of at most this many floats (default 4 MiB).
  std::size_t bucket_floats = std::size_t(1) << 20;
  /// Every this many steps, backward() also compares a checksum of every parameter value over the
  /// ranks and throws DistributedError when they differ (silent divergence); 0 never does.
  unsigned checksum_every = 0;
};

/// Items [begin, end) of a collection: one rank's share.
struct Share {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
};

/// Rank `rank`'s share of n items split over `ranks` ranks in order, as evenly as can be: the first
/// n % ranks ranks get one item more; a rank may get none.
Share share_of(std::size_t n, int rank, int ranks);

class DistributedReducer {
 public:
  /// Collective. Checks that every rank's model has the same parameters (names and shapes, in
  /// order), else throws DistributedError on every rank naming the first difference; then gives
  /// every rank rank 0's parameter values, so that differently seeded ranks start alike.
  DistributedReducer(ParameterCollection& model, Communicator& comm, DistributedOptions options = {});

  int rank() const { return comm_.rank(); }
  int size() const { return comm_.size(); }
  /// Rank 0 alone prints progress and writes files.
  bool is_root() const { return comm_.rank() == 0; }
  /// This rank's share of n items (share_of). The gradients summed are those of losses summed
  /// over items; a loss averaged over a minibatch of n items must divide by n, not by the share.
  Share share(std::size_t n) const { return share_of(n, rank(), size()); }
  /// Steps (backward calls) so far.
  std::uint64_t steps() const { return steps_; }

  /// Collective. Runs local(), this rank's forward and backward over its share, which returns its
  /// loss; then replaces every parameter gradient by its sum over the ranks (lookup tables: the
  /// rows any rank touched, marked touched on every rank) and returns the loss summed over the
  /// ranks. If local() throws on any rank, every rank clears its gradients and throws
  /// DistributedError naming the first such rank and its message.
  double backward(const std::function<double()>& local);
  /// Collective. Runs fn on rank 0 only (saving a model or a checkpoint, so that no file is
  /// written by two ranks), and returns on every rank once it has finished; if it threw, every
  /// rank throws DistributedError with its message.
  void on_root(const std::function<void()>& fn);
  /// Collective. Copies rank 0's parameter values to every rank (after loading a model on rank 0
  /// alone, say).
  void broadcast_parameters();

 private:
  /// Starts this rank's status in status_: the call it is in (a function's name) and its step, so
  /// that ranks out of step are caught, and whether it failed ("" when not) and why.
  void begin_status(const char* call, const std::string& error);
  /// Gathers every rank's status; when some rank failed or is in another call or step, clears the
  /// gradients and throws DistributedError saying so. Otherwise rank r's status after the common
  /// part starts at gathered_[extra_at_[r]].
  void exchange_status();
  void check_same_model();
  void sum_gradients();
  std::uint64_t checksum() const;

  ParameterCollection model_;
  Communicator& comm_;
  DistributedOptions options_;
  std::uint64_t steps_ = 0;
  const char* call_ = "";
  // Reused every step, so that a step allocates only when the model or the touched rows grow.
  std::vector<std::uint8_t> status_, gathered_;
  std::vector<std::size_t> offsets_, extra_at_;
  std::vector<float> flat_;
  std::vector<std::vector<unsigned>> rows_;       // per table: the rows any rank touched, sorted
  std::vector<std::vector<std::uint8_t>> marks_;  // per table: scratch marks while merging rows
  std::vector<std::uint8_t> dense_tables_;        // per table: some rank used the whole table
};

}  // namespace dynet
