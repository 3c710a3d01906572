// Runs as every rank of an MPI job (see CMakeLists.txt beside it). Each mode checks one promise of
// DistributedReducer and exits 0 on every rank when it holds; ranks are seeded differently, so
// agreement also shows that rank 0's parameters reached every rank.
//   equal     K steps on 2 or 3 ranks give, on every rank, the parameters one process gets from
//             the whole minibatches (uneven shards, sparse lookup rows, threads inside a rank),
//             and the profile counts the communication
//   throw     a rank that throws inside its step stops every rank with its rank and message
//   abort     a rank that throws between steps, uncaught, ends the job with its rank and message
//   exit      a rank that throws between steps and returns from main with an error (as the
//             examples do) ends the job
//   mismatch  ranks with different models are refused at start
//   diverge   the checksum catches a rank whose parameters drifted
//   resume    rank 0 saves model and trainer, every rank loads them; same as not stopping

#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet_core/init.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/profiler.h"
#include "support/distributed_model.h"
#include "trainers/adam_trainer.h"
#include "trainers/parallel/communicator.h"

using namespace dynet;
using test_support::DistributedModel;

namespace {

constexpr unsigned kSteps = 6;

struct Settings {
  std::string mode;
  std::size_t batch = 7;  // items per minibatch; not a multiple of 2 or 3
  unsigned threads = 1;   // DataParallel threads inside each rank
  std::string dir = ".";
};

/// 0 when every rank holds exactly rank 0's values, else the number of values that differ here.
std::size_t differences_from_root(const std::vector<float>& mine, Communicator& comm) {
  std::vector<float> root = mine;
  comm.broadcast(root.data(), root.size() * sizeof(float), 0);
  return test_support::bitwise_differences(mine, root);
}

int expect_error(const std::exception& e, const std::string& part, int rank) {
  const bool ok = std::string(e.what()).find(part) != std::string::npos;
  std::printf("rank %d stopped with: %s%s\n", rank, e.what(), ok ? "" : "  <-- unexpected message");
  return ok ? 0 : 1;
}

int resume(const Settings& s, Communicator& comm) {
  const int rank = comm.rank();
  DistributedModel a(100 + rank);
  DistributedReducer ra(a.pc, comm);
  AdamTrainer ta(a.pc, 0.05f);
  test_support::train_distributed(a, ra, ta, s.batch, s.threads, 0, 2 * kSteps);

  DistributedModel b(100 + rank);
  DistributedReducer rb(b.pc, comm);
  AdamTrainer tb(b.pc, 0.05f);
  test_support::train_distributed(b, rb, tb, s.batch, s.threads, 0, kSteps);
  const std::string model_file = s.dir + "/resume.model", trainer_file = s.dir + "/resume.trainer";
  rb.on_root([&] {
    TextFileSaver(model_file).save(b.pc);
    tb.save(trainer_file);
  });

  DistributedModel c(200 + rank);
  DistributedReducer rc(c.pc, comm);
  TextFileLoader(model_file).populate(c.pc);
  AdamTrainer tc(c.pc, 0.05f);
  tc.populate(trainer_file);
  test_support::train_distributed(c, rc, tc, s.batch, s.threads, kSteps, 2 * kSteps);
  const std::size_t differ = test_support::relative_differences(c.values(), a.values(), 1e-6);
  std::printf("rank %d: %zu values differ between resumed and uninterrupted training\n", rank, differ);
  return differ == 0 ? 0 : 1;
}

int run(const Settings& s, Communicator& comm) {
  const int rank = comm.rank(), last = comm.size() - 1;
  if (s.mode == "resume") return resume(s, comm);
  if (s.mode == "mismatch") {
    DistributedModel m(100 + rank, rank == last ? 6 : 5);
    try {
      DistributedReducer reducer(m.pc, comm);
    } catch (const DistributedError& e) {
      return expect_error(e, "models differ", rank);
    }
    std::printf("rank %d: different models were accepted\n", rank);
    return 1;
  }

  DistributedModel m(100 + rank);
  DistributedOptions options;
  options.bucket_floats = 16;  // several buckets, one split inside a parameter
  if (s.mode == "diverge") options.checksum_every = 2;
  DistributedReducer reducer(m.pc, comm, options);
  const auto trainer = test_support::distributed_test_trainer(m);
  try {
    test_support::train_distributed(
        m, reducer, *trainer, s.batch, s.threads, 0, kSteps,
        [&](unsigned step) {
          if (s.mode == "throw" && step == 3 && rank == last) throw std::runtime_error("injected failure at step 3");
        },
        [&](unsigned step) {
          if ((s.mode == "abort" || s.mode == "exit") && step == 2 && rank == last)
            throw std::runtime_error("injected failure between steps");
          if (s.mode == "diverge" && step == 2 && rank == last) m.w.values()->v[0] += 1e-6f;
        });
  } catch (const DistributedError& e) {
    if (s.mode == "throw")
      return expect_error(
          e,
          "rank " + std::to_string(last) + " of " + std::to_string(comm.size()) + " failed: injected failure at step 3",
          rank);
    if (s.mode == "diverge") return expect_error(e, "differ from rank 0's at step 4", rank);
    throw;
  }
  if (s.mode != "equal") {
    std::printf("rank %d: mode %s finished without the expected error\n", rank, s.mode.c_str());
    return 1;
  }
  const std::vector<float> got = m.values();
  const std::size_t across = differences_from_root(got, comm);
  int status = across == 0 ? 0 : 1;
  std::printf("rank %d: %zu values differ from rank 0's\n", rank, across);
  const profile::Phases t = profile::snapshot().total;
  if (t.bytes_communicated < kSteps * got.size() / 2 || t.communication_ns == 0) {
    std::printf("rank %d: the profile shows %llu bytes communicated\n", rank, (unsigned long long)t.bytes_communicated);
    status = 1;
  }
  if (rank == 0) {
    DistributedModel one(100);
    test_support::train_alone(one, *test_support::distributed_test_trainer(one), s.batch, kSteps);
    const std::size_t differ = test_support::relative_differences(got, one.values(), 1e-5);
    std::printf("rank 0: %zu of %zu values differ from one process's\n", differ, got.size());
    if (differ) status = 1;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  initialize(argc, argv);
  Settings s;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--batch" && i + 1 < argc)
      s.batch = std::stoul(argv[++i]);
    else if (a == "--threads" && i + 1 < argc)
      s.threads = unsigned(std::stoul(argv[++i]));
    else if (a == "--dir" && i + 1 < argc)
      s.dir = argv[++i];
    else if (s.mode.empty())
      s.mode = a;
    else {
      std::fprintf(stderr, "distributed_training: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (s.mode == "exit") {
    // As the examples end on an error: the communicator goes while the exception unwinds.
    try {
      const std::unique_ptr<Communicator> comm = launched_communicator();
      return run(s, *comm);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "distributed_training: %s\n", e.what());
      return 1;
    }
  }
  const std::unique_ptr<Communicator> comm = launched_communicator();
  return run(s, *comm);
}
