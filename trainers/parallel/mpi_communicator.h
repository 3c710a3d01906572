#pragma once
// The Communicator over MPI (built when CMake finds MPI, -DDYBATCH_MPI). While one is alive, a
// rank that ends on an uncaught exception prints its rank and the exception's message and aborts
// the whole job (MPI_Abort), so that the other ranks never wait in a collective for it; the
// launcher (mpirun) likewise ends the job when a rank dies or exits without finalizing.

#include <exception>

#include "trainers/parallel/communicator.h"

namespace dynet {

class MpiCommunicator : public Communicator {
 public:
  /// Initializes MPI (unless the program did) on this thread, which must make every collective
  /// call; the group is MPI_COMM_WORLD. Throws std::logic_error when another
  /// MpiCommunicator is alive.
  MpiCommunicator();
  /// Finalizes MPI if this constructor initialized it, unless an exception is unwinding the
  /// stack: a rank that fails then exits without finalizing, which makes the launcher end the
  /// job instead of letting the others wait for it.
  ~MpiCommunicator() override;
  MpiCommunicator(const MpiCommunicator&) = delete;
  MpiCommunicator& operator=(const MpiCommunicator&) = delete;

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allreduce_sum(float* data, std::size_t n) override;
  void broadcast(void* data, std::size_t bytes, int root) override;
  void allgather(const std::uint8_t* data, std::size_t bytes, std::vector<std::uint8_t>& out,
                 std::vector<std::size_t>& offsets) override;
  void barrier() override;
  [[noreturn]] void abort(const std::string& message) override;

 private:
  int rank_ = 0, size_ = 1;
  bool initialized_here_ = false;
  std::terminate_handler previous_terminate_ = nullptr;
  std::vector<long long> sizes_;
  std::vector<int> counts_, displacements_;
};

}  // namespace dynet
