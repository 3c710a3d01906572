// Runs as every rank of an MPI job (see CMakeLists.txt beside it). Each mode checks one promise of
// DistributedReducer and exits 0 on every rank when it holds; ranks are seeded differently, so
// agreement also shows that rank 0's parameters reached every rank.
//   equal     K steps on 2 or 3 ranks give, on every rank, the parameters one process gets from
//             the whole minibatches (uneven shards, sparse lookup rows, threads inside a rank)
//   throw     a rank that throws inside its step stops every rank with its rank and message
//   abort     a rank that throws between steps ends the job with its rank and message
//   mismatch  ranks with different models are refused at start
//   diverge   the checksum catches a rank whose parameters drifted
//   resume    rank 0 saves model and trainer, every rank loads them; same as not stopping

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet_core/dybatch.h"
#include "trainers/training.h"

using namespace dynet;

namespace {

constexpr unsigned kWords = 40;
constexpr unsigned kSteps = 6;

struct Settings {
  std::string mode;
  std::size_t batch = 7;   // items per minibatch; not a multiple of 2 or 3
  unsigned threads = 1;    // DataParallel threads inside each rank
  std::string dir = ".";
};

struct Model {
  ParameterCollection pc;
  LookupParameter embeddings;
  Parameter w, b, v;

  explicit Model(unsigned hidden) {
    embeddings = pc.add_lookup_parameters(kWords, {4}, "embeddings");
    w = pc.add_parameters({hidden, 4}, 0.f, "w");
    b = pc.add_parameters({hidden}, 0.5f, "b");
    v = pc.add_parameters({3, hidden}, 0.f, "v");
  }

  // Item i of the data set: two words and a label, the same on every rank.
  Expression loss(ComputationGraph& cg, std::size_t i) const {
    const Expression x = lookup(cg, embeddings, unsigned(i * 7 + 1) % kWords) +
                         lookup(cg, embeddings, unsigned(i * i + 3) % kWords);
    const Expression h = tanh(parameter(cg, w) * x + parameter(cg, b));
    return pickneglogsoftmax(parameter(cg, v) * h, unsigned(i % 3));
  }

  Expression loss(ComputationGraph& cg, std::size_t first, std::size_t end) const {
    std::vector<Expression> terms;
    for (std::size_t i = first; i < end; ++i) terms.push_back(loss(cg, i));
    return sum(terms);
  }
};

/// Builds a model from the random engine seeded with `seed`.
std::unique_ptr<Model> make_model(unsigned seed, unsigned hidden = 5) {
  DynetParams params = current_params();
  params.random_seed = seed;
  initialize(params);
  return std::make_unique<Model>(hidden);
}

std::vector<float> values(const ParameterCollection& pc) {
  std::vector<float> all;
  for (const auto& p : pc.parameters_list()) all.insert(all.end(), p->values.v, p->values.v + p->size());
  for (const auto& t : pc.lookup_parameters_list())
    all.insert(all.end(), t->all_values.v, t->all_values.v + t->all_values.d.size());
  return all;
}

/// Trains steps [from, to): step s is items [s * batch, (s + 1) * batch), this rank's share of them.
void train(Model& m, DistributedReducer& reducer, Trainer& trainer, const Settings& s, unsigned from, unsigned to,
           const std::function<void(unsigned)>& after_update = nullptr) {
  DataParallel parallel(s.threads);
  for (unsigned step = from; step < to; ++step) {
    const Share mine = reducer.share(s.batch);
    const std::size_t first = step * s.batch + mine.begin, count = mine.size();
    reducer.backward([&]() -> double {
      if (s.mode == "throw" && step == 3 && reducer.rank() == reducer.size() - 1)
        throw std::runtime_error("injected failure at step 3");
      if (count == 0) return 0.0;
      const unsigned shards = unsigned(std::min<std::size_t>(s.threads, count));
      return parallel.backward(shards, [&](ComputationGraph& cg, unsigned k) {
        return m.loss(cg, first + count * k / shards, first + count * (k + 1) / shards);
      });
    });
    trainer.update();
    if (after_update) after_update(step);
  }
}

/// 0 when every rank holds exactly rank 0's values, else the number of values that differ here.
std::size_t differences_from_root(const std::vector<float>& mine, Communicator& comm) {
  std::vector<float> root = mine;
  comm.broadcast(root.data(), root.size() * sizeof(float), 0);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < mine.size(); ++i) differ += std::memcmp(&mine[i], &root[i], sizeof(float)) != 0;
  return differ;
}

std::size_t relative_differences(const std::vector<float>& got, const std::vector<float>& want, double tolerance) {
  std::size_t differ = 0;
  for (std::size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > tolerance * std::max(1e-2, std::fabs(double(want[i])))) ++differ;
  return differ;
}

int expect_error(const std::exception& e, const std::string& part, int rank) {
  const bool ok = std::string(e.what()).find(part) != std::string::npos;
  std::printf("rank %d stopped with: %s%s\n", rank, e.what(), ok ? "" : "  <-- unexpected message");
  return ok ? 0 : 1;
}

int run(const Settings& s, Communicator& comm) {
  const int rank = comm.rank(), last = comm.size() - 1;
  if (s.mode == "mismatch") {
    const std::unique_ptr<Model> m = make_model(100 + rank, rank == last ? 6 : 5);
    try {
      DistributedReducer reducer(m->pc, comm);
    } catch (const DistributedError& e) {
      return expect_error(e, "models differ", rank);
    }
    std::printf("rank %d: different models were accepted\n", rank);
    return 1;
  }
  if (s.mode == "resume") {
    const std::unique_ptr<Model> a = make_model(100 + rank);
    DistributedReducer ra(a->pc, comm);
    AdamTrainer ta(a->pc, 0.05f);
    train(*a, ra, ta, s, 0, 2 * kSteps);

    const std::unique_ptr<Model> b = make_model(100 + rank);
    DistributedReducer rb(b->pc, comm);
    AdamTrainer tb(b->pc, 0.05f);
    train(*b, rb, tb, s, 0, kSteps);
    const std::string model_file = s.dir + "/resume.model", trainer_file = s.dir + "/resume.trainer";
    rb.on_root([&] {
      TextFileSaver(model_file).save(b->pc);
      tb.save(trainer_file);
    });

    const std::unique_ptr<Model> c = make_model(200 + rank);
    DistributedReducer rc(c->pc, comm);
    TextFileLoader(model_file).populate(c->pc);
    AdamTrainer tc(c->pc, 0.05f);
    tc.populate(trainer_file);
    train(*c, rc, tc, s, kSteps, 2 * kSteps);
    const std::size_t differ = relative_differences(values(c->pc), values(a->pc), 1e-6);
    std::printf("rank %d: %zu values differ between resumed and uninterrupted training\n", rank, differ);
    return differ == 0 ? 0 : 1;
  }

  const std::unique_ptr<Model> m = make_model(100 + rank);
  DistributedOptions options;
  options.bucket_floats = 16;  // several buckets, one split inside a parameter
  if (s.mode == "diverge") options.checksum_every = 2;
  DistributedReducer reducer(m->pc, comm, options);
  SimpleSGDTrainer trainer(m->pc, 0.2f);
  trainer.clip_threshold = 1.f;  // the clipping norm must be the whole minibatch's too
  try {
    train(*m, reducer, trainer, s, 0, kSteps, [&](unsigned step) {
      if (s.mode == "abort" && step == 2 && rank == last) throw std::runtime_error("injected failure between steps");
      if (s.mode == "diverge" && step == 2 && rank == last) m->w.values()->v[0] += 1e-6f;
    });
  } catch (const DistributedError& e) {
    if (s.mode == "throw") return expect_error(e, "rank " + std::to_string(last) + " of " +
                                                      std::to_string(comm.size()) + " failed: injected failure at step 3", rank);
    if (s.mode == "diverge") return expect_error(e, "differ from rank 0's at step 4", rank);
    throw;
  }
  if (s.mode != "equal") {
    std::printf("rank %d: mode %s finished without the expected error\n", rank, s.mode.c_str());
    return 1;
  }
  const std::vector<float> got = values(m->pc);
  const std::size_t across = differences_from_root(got, comm);
  int status = across == 0 ? 0 : 1;
  std::printf("rank %d: %zu values differ from rank 0's\n", rank, across);
  const profile::Phases t = profile::snapshot().total;
  if (t.bytes_communicated < kSteps * got.size() / 2 || t.communication_ns == 0) {
    std::printf("rank %d: the profile shows %llu bytes communicated\n", rank, (unsigned long long)t.bytes_communicated);
    status = 1;
  }
  if (rank == 0) {
    // One process, one graph per minibatch, no reducer.
    const std::unique_ptr<Model> one = make_model(100);
    SimpleSGDTrainer t1(one->pc, 0.2f);
    t1.clip_threshold = 1.f;
    for (unsigned step = 0; step < kSteps; ++step) {
      ComputationGraph cg;
      const Expression l = one->loss(cg, step * s.batch, (step + 1) * s.batch);
      cg.forward(l);
      cg.backward(l);
      t1.update();
    }
    const std::size_t differ = relative_differences(got, values(one->pc), 1e-5);
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
    if (a == "--batch" && i + 1 < argc) s.batch = std::stoul(argv[++i]);
    else if (a == "--threads" && i + 1 < argc) s.threads = unsigned(std::stoul(argv[++i]));
    else if (a == "--dir" && i + 1 < argc) s.dir = argv[++i];
    else if (s.mode.empty()) s.mode = a;
    else {
      std::fprintf(stderr, "distributed_training: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  const std::unique_ptr<Communicator> comm = launched_communicator();
  return run(s, *comm);
}
