#pragma once
// Training an example on every rank of an MPI job (mpirun -np N <example> ...): the ranks share
// each minibatch (DistributedReducer), and rank 0 alone prints and writes files.

#include <functional>
#include <memory>

#include "dynet_core/param_collection.h"
#include "examples/common/training_flags.h"
#include "trainers/communicator.h"
#include "trainers/distributed_reducer.h"

namespace examples {

/// The launcher's group (one process when not started by mpirun). On ranks other than 0, standard
/// output and std::cerr (progress) are discarded from here on; errors still reach stderr.
std::unique_ptr<dynet::Communicator> join_launched_group();

/// An example's training on the launcher's group. Create it inside main's error handling (see
/// MpiCommunicator) and keep it while training.
class TrainingGroup {
 public:
  /// Joins the group; throws UsageError for --seconds on several ranks, which could stop after
  /// different minibatches.
  explicit TrainingGroup(const TrainingFlags& flags);

  /// After the model is built (and loaded): checks that every rank has the same one and gives all
  /// rank 0's values. Hand the reducer to the model's set_reducer.
  dynet::DistributedReducer& share(dynet::ParameterCollection& model);
  /// Runs write (saving the model) on rank 0 alone; every rank returns once it is done.
  void on_root(const std::function<void()>& write);

 private:
  std::unique_ptr<dynet::Communicator> group_;
  std::unique_ptr<dynet::DistributedReducer> reducer_;
};

}  // namespace examples
