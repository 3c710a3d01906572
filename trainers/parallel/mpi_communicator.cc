#include "trainers/parallel/mpi_communicator.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace dynet {

namespace {

// MPI counts are ints: larger buffers go in pieces.
constexpr std::size_t kMaxCount = INT_MAX / 2;

bool alive = false;
int world_rank = 0, world_size = 1;

[[noreturn]] void abort_on_terminate() {
  std::string cause = "std::terminate was called without an exception";
  if (const std::exception_ptr e = std::current_exception()) {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      cause = x.what();
    } catch (...) {
      cause = "an exception of unknown type";
    }
  }
  std::fprintf(stderr, "dybatch: rank %d of %d failed: %s; ending every rank\n", world_rank, world_size, cause.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

void check(int rc, const char* call) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(rc, text, &length);
  throw std::runtime_error(std::string("MpiCommunicator: ") + call + " failed: " + std::string(text, length));
}

}  // namespace

MpiCommunicator::MpiCommunicator() {
  if (alive) throw std::logic_error("MpiCommunicator: another MpiCommunicator is alive; create one per process");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
    initialized_here_ = true;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  world_rank = rank_;
  world_size = size_;
  alive = true;
  previous_terminate_ = std::set_terminate(abort_on_terminate);
}

MpiCommunicator::~MpiCommunicator() {
  std::set_terminate(previous_terminate_);
  alive = false;
  if (initialized_here_ && std::uncaught_exceptions() == 0) MPI_Finalize();
}

void MpiCommunicator::allreduce_sum(float* data, std::size_t n) {
  for (std::size_t done = 0; done < n; done += kMaxCount) {
    const int count = static_cast<int>(std::min(kMaxCount, n - done));
    check(MPI_Allreduce(MPI_IN_PLACE, data + done, count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
  }
}

void MpiCommunicator::broadcast(void* data, std::size_t bytes, int root) {
  char* p = static_cast<char*>(data);
  for (std::size_t done = 0; done < bytes; done += kMaxCount) {
    const int count = static_cast<int>(std::min(kMaxCount, bytes - done));
    check(MPI_Bcast(p + done, count, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
  }
}

void MpiCommunicator::allgather(const std::uint8_t* data, std::size_t bytes, std::vector<std::uint8_t>& out,
                                std::vector<std::size_t>& offsets) {
  const long long mine = static_cast<long long>(bytes);
  sizes_.resize(size_);
  check(MPI_Allgather(&mine, 1, MPI_LONG_LONG, sizes_.data(), 1, MPI_LONG_LONG, MPI_COMM_WORLD), "MPI_Allgather");
  counts_.resize(size_);
  displacements_.resize(size_);
  offsets.resize(size_ + 1);
  offsets[0] = 0;
  for (int r = 0; r < size_; ++r) {
    offsets[r + 1] = offsets[r] + static_cast<std::size_t>(sizes_[r]);
    if (offsets[r + 1] > kMaxCount)
      throw std::invalid_argument("MpiCommunicator::allgather: " + std::to_string(offsets[r + 1]) +
                                  " bytes in all; it is meant for small buffers (at most " + std::to_string(kMaxCount) +
                                  ")");
    counts_[r] = static_cast<int>(sizes_[r]);
    displacements_[r] = static_cast<int>(offsets[r]);
  }
  out.resize(offsets[size_]);
  check(MPI_Allgatherv(data, static_cast<int>(bytes), MPI_BYTE, out.data(), counts_.data(), displacements_.data(),
                       MPI_BYTE, MPI_COMM_WORLD),
        "MPI_Allgatherv");
}

void MpiCommunicator::barrier() { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

void MpiCommunicator::abort(const std::string& message) {
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

}  // namespace dynet
