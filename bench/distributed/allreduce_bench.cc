// Communication cost of one gradient sum: run under mpirun -np N. For buffers from 1 KiB to
// 64 MiB, the median time of a small status allgather and an allreduce_sum over the job's ranks
// (what DistributedReducer pays per step for that many gradient bytes), and the bandwidth it
// achieves. Rank 0 prints the table.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "trainers/parallel/communicator.h"

int main() {
  const auto comm = dynet::launched_communicator();
  constexpr int kReps = 20;
  if (comm->rank() == 0)
    std::printf("allreduce_sum over %d ranks, median of %d\n%12s %12s %12s\n", comm->size(), kReps, "bytes", "us",
                "GB/s (bus)");
  std::vector<std::uint8_t> status(64), gathered;
  std::vector<std::size_t> offsets;
  for (std::size_t bytes = 1024; bytes <= (std::size_t(64) << 20); bytes *= 4) {
    std::vector<float> buffer(bytes / sizeof(float), 1.f);
    std::vector<double> us;
    for (int rep = 0; rep <= kReps; ++rep) {
      comm->barrier();
      const auto start = std::chrono::steady_clock::now();
      comm->allgather(status.data(), status.size(), gathered, offsets);
      comm->allreduce_sum(buffer.data(), buffer.size());
      const double t = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
      if (rep > 0) us.push_back(t);
    }
    std::sort(us.begin(), us.end());
    const double median = us[us.size() / 2];
    // A ring allreduce moves 2 (p - 1) / p of the buffer through each rank's link.
    const double p = comm->size(), moved = p > 1 ? 2 * (p - 1) / p * bytes : 0;
    if (comm->rank() == 0) std::printf("%12zu %12.1f %12.2f\n", bytes, median, moved / median / 1e3);
  }
  return 0;
}
