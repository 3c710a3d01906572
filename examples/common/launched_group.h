#pragma once
// Training an example on every rank of an MPI job (mpirun -np N <example> ...): the ranks share
// each minibatch (DistributedReducer), and rank 0 alone prints and writes files.

#include <memory>

#include "trainers/communicator.h"

namespace examples {

/// The launcher's group (one process when not started by mpirun). On ranks other than 0, standard
/// output and std::cerr (progress) are discarded from here on; errors still reach stderr.
std::unique_ptr<dynet::Communicator> join_launched_group();

}  // namespace examples
