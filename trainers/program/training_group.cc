#include "trainers/program/training_group.h"

#include <cstdio>
#include <iostream>
#include <string>

namespace dynet {

std::unique_ptr<Communicator> join_launched_group() {
  std::unique_ptr<Communicator> group = launched_communicator();
  if (group->rank() != 0) {
    std::fflush(stdout);
    // Should /dev/null be missing, freopen leaves stdout closed, which discards the output too.
    std::FILE* discarded = std::freopen("/dev/null", "w", stdout);
    (void)discarded;
    std::cerr.rdbuf(nullptr);
  }
  return group;
}

TrainingGroup::TrainingGroup(const TrainingFlags& flags) : TrainingGroup(flags, join_launched_group()) {}

TrainingGroup::TrainingGroup(const TrainingFlags& flags, std::unique_ptr<Communicator> group)
    : group_(std::move(group)) {
  flags.check();
  if (group_->size() > 1 && flags.seconds > 0)
    throw UsageError("--seconds: the " + std::to_string(group_->size()) +
                     " ranks of an MPI job could stop after different minibatches; use --epochs");
}

DistributedReducer& TrainingGroup::share(ParameterCollection& model) {
  reducer_ = std::make_unique<DistributedReducer>(model, *group_);
  return *reducer_;
}

void TrainingGroup::on_root(const std::function<void()>& write) {
  if (reducer_) {
    reducer_->on_root(write);
  } else if (group_->rank() == 0) {
    write();
  }
}

}  // namespace dynet
