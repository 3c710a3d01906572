#pragma once
// The collectives distributed training needs, behind one small interface: MPI implements it
// (mpi_communicator.h), and another engine (NCCL on GPUs) can without touching the trainers.
// Every call is collective: each rank of the group must make the same calls in the same order.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dynet {

class Communicator {
 public:
  virtual ~Communicator();

  /// This process's index in the group, in [0, size()).
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// Replaces data[0, n) on every rank by its sum over all ranks; the result is the same on all.
  virtual void allreduce_sum(float* data, std::size_t n) = 0;
  /// Copies `bytes` bytes at data on rank `root` into data on every other rank.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  /// Gathers every rank's buffer (small: statuses, row indices; sizes may differ between ranks):
  /// afterwards rank r's bytes are out[offsets[r], offsets[r + 1]) on every rank.
  virtual void allgather(const std::uint8_t* data, std::size_t bytes, std::vector<std::uint8_t>& out,
                         std::vector<std::size_t>& offsets) = 0;
  virtual void barrier() = 0;
  /// Ends every rank of the group now, with `message` on stderr; never returns.
  [[noreturn]] virtual void abort(const std::string& message) = 0;
};

/// A group of one: every collective is a copy or nothing.
class SingleProcess : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce_sum(float*, std::size_t) override {}
  void broadcast(void*, std::size_t, int) override {}
  void allgather(const std::uint8_t* data, std::size_t bytes, std::vector<std::uint8_t>& out,
                 std::vector<std::size_t>& offsets) override;
  void barrier() override {}
  [[noreturn]] void abort(const std::string& message) override;
};

/// The group the launcher started this process in: MPI's world under mpirun / srun (when dybatch
/// is built with MPI), otherwise a SingleProcess. Create it once, inside main's error handling,
/// before any other collective.
std::unique_ptr<Communicator> launched_communicator();

}  // namespace dynet
