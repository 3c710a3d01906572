// Trainer checkpoints: training resumed from saved model values and trainer state continues bit
// for bit as if it had never stopped; damaged or foreign checkpoints are refused, changing nothing.

#include <catch2/catch.hpp>

#include <random>
#include <sstream>
#include <stdexcept>

#include "dynet_core/graph.h"
#include "dynet_core/io/envelope.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/model_of_every_kind.h"
#include "dynet_core/ops/all_ops.h"
#include "scratch_folder.h"
#include "trainers/all_trainers.h"

using namespace dynet;

namespace {

constexpr unsigned kRows = 7;

// y = W e_i + b for rows e_i of a lookup table, plus a head in a subcollection.
struct Task {
  explicit Task(const ParameterInit& init)
      : W(model.add_parameters({3, 2}, init, "W")),
        b(model.add_parameters({3}, init, "b")),
        E(model.add_lookup_parameters(kRows, {2}, init, "E")),
        head(model.add_subcollection("head")),
        V(head.add_parameters({1, 3}, init, "V")) {
    model.set_weight_decay_lambda(0.01f);
  }

  ParameterCollection model;
  Parameter W, b;
  LookupParameter E;
  ParameterCollection head;
  Parameter V;
};

// Steps [first, first + count) of a fixed sequence of examples, touching two rows each.
void train(Task& task, Trainer& trainer, unsigned first, unsigned count) {
  for (unsigned s = first; s < first + count; ++s) {
    ComputationGraph cg;
    const Expression W = parameter(cg, task.W), b = parameter(cg, task.b), V = parameter(cg, task.V);
    Expression loss = squared_distance(V * tanh(W * lookup(cg, task.E, (3 * s) % kRows) + b), input(cg, 0.5f)) +
                      squared_norm(W * lookup(cg, task.E, (5 * s + 1) % kRows) - input(cg, {3}, {1.f, -1.f, 0.5f}));
    cg.backward(loss);
    trainer.update();
  }
}

std::unique_ptr<Trainer> scheduled(const MakeTrainer& make, ParameterCollection& m) {
  std::unique_ptr<Trainer> t = make(m);
  t->learning_rate_schedule = step_decay(t->learning_rate, 0.5f, 2);
  return t;
}

std::string checkpoint_of(Trainer& t) {
  std::ostringstream os;
  t.save(os);
  return os.str();
}

// The message of the std::runtime_error populate() throws for `bytes`, after checking that the
// trainer's state stayed as it was; empty when it did not throw.
std::string refusal(Trainer& t, const std::string& bytes) {
  const std::string before = checkpoint_of(t);
  std::string message;
  try {
    std::istringstream is(bytes);
    t.populate(is);
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  CHECK(checkpoint_of(t) == before);
  return message;
}

}  // namespace

TEST_CASE("training resumed from a checkpoint continues bit for bit", "[trainers][io]") {
  ScratchFolder folder;
  unsigned index = 0;
  for (const auto& [name, make] : all_trainers()) {
    INFO(name);
    const std::string model_path = folder.file(std::string(name) + ".model");
    const std::string state_path = folder.file(std::string(name) + ".state");
    std::unique_ptr<Saver> saver;
    std::unique_ptr<Loader> loader;
    if (index++ % 2) {
      saver = std::make_unique<TextFileSaver>(model_path);
      loader = std::make_unique<TextFileLoader>(model_path);
    } else {
      saver = std::make_unique<BinaryFileSaver>(model_path);
      loader = std::make_unique<BinaryFileLoader>(model_path);
    }

    Task original{ParameterInitNormal()};
    std::unique_ptr<Trainer> trainer = scheduled(make, original.model);
    train(original, *trainer, 0, 3);
    saver->save(original.model);
    trainer->save(state_path);
    train(original, *trainer, 3, 4);

    Task resumed(ParameterInitConst(0.f));
    std::unique_ptr<Trainer> restored = scheduled(make, resumed.model);
    loader->populate(resumed.model);
    restored->populate(state_path);
    CHECK(restored->updates == 3);
    train(resumed, *restored, 3, 4);
    CHECK(same_bits(snapshot(resumed.model), snapshot(original.model)));
    CHECK(checkpoint_of(*restored) == checkpoint_of(*trainer));

    // Without the trainer state the same values would not be reached.
    Task forgetful(ParameterInitConst(0.f));
    std::unique_ptr<Trainer> fresh = scheduled(make, forgetful.model);
    loader->populate(forgetful.model);
    train(forgetful, *fresh, 3, 4);
    CHECK_FALSE(same_bits(snapshot(forgetful.model), snapshot(original.model)));
  }
}

TEST_CASE("a checkpoint of a model of more values than the checkpoint has bytes loads back", "[trainers][io]") {
  // SGD keeps no state per value: its checkpoint is far smaller than the model's value counts.
  for (const auto& [name, make] : all_trainers()) {
    INFO(name);
    ParameterCollection m;
    m.add_parameters({1000}, ParameterInitConst(0.5f), "W");
    m.add_lookup_parameters(300, {4}, ParameterInitConst(0.5f), "E");
    std::unique_ptr<Trainer> t = make(m);
    const std::string bytes = checkpoint_of(*t);
    std::istringstream is(bytes);
    CHECK_NOTHROW(t->populate(is));
    CHECK(checkpoint_of(*t) == bytes);
  }
}

TEST_CASE("a checkpoint restores the trainer's settings", "[trainers][io]") {
  ParameterCollection m;
  m.add_parameters({2});
  AdamTrainer saved(m, 0.02f, 0.8f, 0.99f, 1e-6f);
  saved.clipping_enabled = false;
  saved.clip_threshold = 2.f;
  saved.sparse_updates_enabled = false;
  AdamTrainer restored(m);
  std::istringstream is(checkpoint_of(saved));
  restored.populate(is);
  CHECK(restored.learning_rate == 0.02f);
  CHECK(restored.beta_1 == 0.8f);
  CHECK(restored.beta_2 == 0.99f);
  CHECK(restored.epsilon == 1e-6f);
  CHECK_FALSE(restored.clipping_enabled);
  CHECK(restored.clip_threshold == 2.f);
  CHECK_FALSE(restored.sparse_updates_enabled);
}

TEST_CASE("a checkpoint of another trainer or model is refused", "[trainers][io][errors]") {
  Task task{ParameterInitNormal()};
  AdamTrainer adam(task.model);
  train(task, adam, 0, 2);
  const std::string adam_state = checkpoint_of(adam);

  MomentumSGDTrainer momentum(task.model);
  train(task, momentum, 0, 1);
  CHECK_THAT(refusal(momentum, adam_state), Catch::Contains("trainer state file '(stream)' was written by AdamTrainer, "
                                                            "not by MomentumSGDTrainer"));
  Task other{ParameterInitNormal()};
  other.head.add_parameters({2}, 0.f, "extra");
  AdamTrainer wider(other.model);
  CHECK_THAT(refusal(wider, adam_state), Catch::Contains("holds optimizer state for 3 parameters; the model has 4"));
  ParameterCollection renamed;
  renamed.add_parameters({3, 2}, 0.f, "W");
  renamed.add_parameters({3}, 0.f, "bias");
  renamed.add_parameters({1, 3}, 0.f, "V");
  renamed.add_lookup_parameters(kRows, {2}, "E");
  AdamTrainer mismatched(renamed);
  CHECK_THAT(refusal(mismatched, adam_state),
             Catch::Contains("holds state for the parameter '/b' of 3 values where the model has '/bias' of 3 values"));

  ScratchFolder folder;
  BinaryFileSaver(folder.file("model")).save(task.model);
  CHECK_THROWS_WITH(adam.populate(folder.file("model")), Catch::Contains("holds model parameters, not trainer state"));
  CHECK_THROWS_WITH(adam.populate(folder.file("absent")), Catch::Contains("cannot open"));
}

TEST_CASE("every truncation and any changed byte of a checkpoint is refused", "[trainers][io][errors]") {
  Task task{ParameterInitNormal()};
  RMSPropTrainer rmsprop(task.model);
  train(task, rmsprop, 0, 2);
  const std::string state = checkpoint_of(rmsprop);
  train(task, rmsprop, 2, 1);
  for (std::size_t length = 0; length < state.size(); ++length) {
    const std::string message = refusal(rmsprop, state.substr(0, length));
    INFO("length " << length << ": " << message);
    REQUIRE(message.find("truncated") != std::string::npos);
  }
  for (unsigned seed = 0; seed < 300; ++seed) {
    std::mt19937 rng(seed);
    std::string damaged = state;
    const std::size_t at = std::uniform_int_distribution<std::size_t>(0, damaged.size() - 1)(rng);
    damaged[at] = static_cast<char>(damaged[at] ^ std::uniform_int_distribution<int>(1, 255)(rng));
    const std::string message = refusal(rmsprop, damaged);
    INFO("seed " << seed << ", byte " << at << ": " << message);
    REQUIRE(message.find("trainer state file") != std::string::npos);
  }
}

TEST_CASE("a checkpoint with settings out of range is refused", "[trainers][io][errors]") {
  ParameterCollection empty;
  SimpleSGDTrainer sgd(empty);
  const std::string crafted =
      seal(FileContent::TrainerState, ArchiveFormat::Binary, write_archive(ArchiveFormat::Binary, [](ArchiveWriter& w) {
             w.string("SimpleSGDTrainer");
             w.integer(2);
             w.string("learning_rate");
             w.real(-1.f);
             w.string("clip_threshold");
             w.real(5.f);
           }));
  CHECK_THAT(refusal(sgd, crafted),
             Catch::Contains("is malformed: learning_rate = -1.000000, which must be finite and >= 0"));
}

TEST_CASE("a checkpoint from before the lazy weight-decay factor loads with the factor 1", "[trainers][io]") {
  Task task{ParameterInitNormal()};
  SimpleSGDTrainer sgd(task.model);
  train(task, sgd, 0, 3);
  const float factor = task.model.get_weight_decay().current_weight_decay();
  REQUIRE(factor < 1.f);
  const std::string state = checkpoint_of(sgd);
  // The same payload without its last field, the factor (one float in a binary archive).
  const std::string_view payload = open_envelope(state, "checkpoint", FileContent::TrainerState, ArchiveFormat::Binary);
  const std::string earlier =
      seal(FileContent::TrainerState, ArchiveFormat::Binary, payload.substr(0, payload.size() - sizeof(float)));
  std::istringstream is(earlier);
  sgd.populate(is);
  CHECK(task.model.get_weight_decay().current_weight_decay() == 1.f);
  std::istringstream again(state);
  sgd.populate(again);
  CHECK(task.model.get_weight_decay().current_weight_decay() == factor);
}
