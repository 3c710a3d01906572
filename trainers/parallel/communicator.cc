#include "trainers/parallel/communicator.h"

#include <cstdio>
#include <cstdlib>

#ifdef DYBATCH_HAVE_MPI
#include "trainers/parallel/mpi_communicator.h"
#endif

namespace dynet {

Communicator::~Communicator() = default;

void SingleProcess::allgather(const std::uint8_t* data, std::size_t bytes, std::vector<std::uint8_t>& out,
                              std::vector<std::size_t>& offsets) {
  out.assign(data, data + bytes);
  offsets.assign({0, bytes});
}

void SingleProcess::abort(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::abort();
}

std::unique_ptr<Communicator> launched_communicator() {
#ifdef DYBATCH_HAVE_MPI
  // Open MPI's mpirun, MPICH / Slurm (PMI) and PMIx launchers each set one of these.
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"})
    if (std::getenv(v)) return std::make_unique<MpiCommunicator>();
#endif
  return std::make_unique<SingleProcess>();
}

}  // namespace dynet
