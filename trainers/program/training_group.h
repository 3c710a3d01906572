#pragma once
// A training program on every rank of the group its launcher started (mpirun -np N program ...):
// the ranks share each minibatch through a DistributedReducer, and rank 0 alone prints and
// writes files. Without a launcher the group is this one process and nothing changes.
//
//   dynet::TrainingGroup group(flags);           // checks the flags; inside main's error handling
//   ... build (and load) the model ...
//   sharded.set_reducer(&group.share(model));    // see ShardedTraining
//   ... train ...
//   group.on_root([&] { TextFileSaver(flags.save).save(model); });

#include <functional>
#include <memory>

#include "dynet_core/param_collection.h"
#include "trainers/parallel/communicator.h"
#include "trainers/parallel/distributed_reducer.h"
#include "trainers/program/training_flags.h"

namespace dynet {

/// The launcher's group (launched_communicator). On ranks other than 0, standard output and
/// std::cerr (progress) are discarded from here on; errors written to stderr itself still show.
std::unique_ptr<Communicator> join_launched_group();

class TrainingGroup {
 public:
  /// Joins the launcher's group (join_launched_group).
  explicit TrainingGroup(const TrainingFlags& flags);
  /// Trains on `group`, whose output the caller has arranged. Both check the flags (see
  /// TrainingFlags::check) and throw UsageError for --seconds on several ranks, which could stop
  /// after different minibatches.
  TrainingGroup(const TrainingFlags& flags, std::unique_ptr<Communicator> group);

  int rank() const { return group_->rank(); }
  int size() const { return group_->size(); }

  /// Collective. After the model is built (and loaded): checks that every rank has the same one
  /// and gives all rank 0's values. Hand the reducer to the model's ShardedTraining.
  DistributedReducer& share(ParameterCollection& model);
  /// Runs write (saving the model) on rank 0 alone; after share(), every rank returns once it is
  /// done and an error on rank 0 is thrown on every rank.
  void on_root(const std::function<void()>& write);

 private:
  std::unique_ptr<Communicator> group_;
  std::unique_ptr<DistributedReducer> reducer_;
};

}  // namespace dynet
