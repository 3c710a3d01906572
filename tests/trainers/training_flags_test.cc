// The flags every training program shares: declared beside a program's own flags with their
// current values as defaults, set from the command line, checked, and turned into a trainer.

#include <catch2/catch.hpp>

#include <boost/program_options.hpp>
#include <sstream>
#include <string>
#include <typeinfo>
#include <vector>

#include "trainers/program/training_flags.h"
#include "trainers/training.h"

using namespace dynet;
namespace po = boost::program_options;

namespace {

/// Parses `args` against `flags` as a program would (the first argument is the program's name).
void parse(const po::options_description& flags, std::vector<std::string> args) {
  args.insert(args.begin(), "program");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  po::variables_map values;
  po::store(po::command_line_parser(int(argv.size()), argv.data()).options(flags).run(), values);
  po::notify(values);
}

}  // namespace

TEST_CASE("training flags set their variables, which keep their defaults otherwise", "[trainers][training_flags]") {
  TrainingFlags t;
  t.epochs = 7;
  po::options_description flags;
  t.declare(flags, "trees", false);
  parse(flags, {"--batch", "5", "--learning-rate=0.25", "--trainer", "sgd", "--save", "m.txt"});
  CHECK(t.epochs == 7);
  CHECK(t.batch == 5);
  CHECK(t.learning_rate == 0.25f);
  CHECK(t.trainer == "sgd");
  CHECK(t.save == "m.txt");
  CHECK(t.load.empty());
  CHECK(t.seconds == 0.f);
}

TEST_CASE("the usage of the training flags shows their defaults and what they hold", "[trainers][training_flags]") {
  TrainingFlags t;
  t.batch = 64;
  po::options_description with_vocabulary, without;
  t.declare(with_vocabulary, "sentences", true);
  t.declare(without, "trees", false);
  std::ostringstream a, b;
  a << with_vocabulary;
  b << without;
  CHECK_THAT(a.str(), Catch::Contains("--batch arg (=64)") && Catch::Contains("sentences per graph") &&
                          Catch::Contains("--learning-rate arg (=0.001)") && Catch::Contains("FILE.vocab") &&
                          Catch::Contains("update rule: sgd, momentum") && Catch::Contains("amsgrad"));
  CHECK_THAT(b.str(), Catch::Contains("passes over the training trees") && !Catch::Contains("vocab"));
}

TEST_CASE("malformed training flags are refused by name", "[trainers][training_flags]") {
  TrainingFlags t;
  po::options_description flags;
  t.declare(flags, "trees", false);
  CHECK_THROWS_WITH(parse(flags, {"--epochs", "3x"}), Catch::Contains("--epochs"));
  CHECK_THROWS_WITH(parse(flags, {"--learning-rate", "fast"}), Catch::Contains("learning-rate"));
  CHECK_THROWS_AS(parse(flags, {"--rounds", "3"}), po::unknown_option);
  CHECK(t.epochs == 1);
}

TEST_CASE("values no training accepts are refused, naming the flag", "[trainers][training_flags]") {
  const auto refused = [](void (*change)(TrainingFlags&)) {
    TrainingFlags t;
    change(t);
    try {
      t.check();
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused([](TrainingFlags&) {}) == "accepted");
  CHECK_THAT(refused([](TrainingFlags& t) { t.batch = 0; }), Catch::Contains("--batch must be positive"));
  CHECK_THAT(refused([](TrainingFlags& t) { t.seconds = -1; }), Catch::Contains("--seconds"));
  CHECK_THAT(refused([](TrainingFlags& t) { t.trainer = "lbfgs"; }),
             Catch::Contains("unknown trainer 'lbfgs'") && Catch::Contains("adam or amsgrad"));
  CHECK_THAT(refused([](TrainingFlags& t) { t.learning_rate = 0; }), Catch::Contains("--learning-rate"));
}

TEST_CASE("the training flags make the trainer they name", "[trainers][training_flags]") {
  ParameterCollection model;
  model.add_parameters({2});
  TrainingFlags t;
  t.trainer = "momentum";
  t.learning_rate = 0.5f;
  const auto trainer = t.make_trainer(model);
  CHECK(typeid(*trainer) == typeid(MomentumSGDTrainer));
  CHECK(trainer->learning_rate == 0.5f);
}
