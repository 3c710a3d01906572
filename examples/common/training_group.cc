#include "examples/common/training_group.h"

#include <cstdio>
#include <iostream>

#include "examples/common/command_line.h"

namespace examples {

std::unique_ptr<dynet::Communicator> join_launched_group() {
  std::unique_ptr<dynet::Communicator> group = dynet::launched_communicator();
  if (group->rank() != 0) {
    std::fflush(stdout);
    // Should /dev/null be missing, freopen leaves stdout closed, which discards the output too.
    std::FILE* discarded = std::freopen("/dev/null", "w", stdout);
    (void)discarded;
    std::cerr.rdbuf(nullptr);
  }
  return group;
}

TrainingGroup::TrainingGroup(const TrainingFlags& flags) : group_(join_launched_group()) {
  if (group_->size() > 1 && flags.seconds > 0)
    throw UsageError("--seconds: the " + std::to_string(group_->size()) +
                     " ranks of an MPI job could stop after different minibatches; use --epochs");
}

dynet::DistributedReducer& TrainingGroup::share(dynet::ParameterCollection& model) {
  reducer_ = std::make_unique<dynet::DistributedReducer>(model, *group_);
  return *reducer_;
}

void TrainingGroup::on_root(const std::function<void()>& write) {
  if (reducer_) {
    reducer_->on_root(write);
  } else if (group_->rank() == 0) {
    write();
  }
}

}  // namespace examples
