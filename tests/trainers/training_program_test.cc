// A training program's main(): the --dynet-* flags go to initialize(), the program's own flags set
// its variables, --help prints the usage, and every error becomes an exit status (2: a flag, 1:
// anything else) instead of an exception leaving main.

#include <catch2/catch.hpp>

#include <boost/program_options.hpp>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet_core/init.h"
#include "trainers/program/training_program.h"

using namespace dynet;
namespace po = boost::program_options;

namespace {

struct Program {
  unsigned hidden = 16;
  bool quiet = false;
  TrainingFlags training;
  po::options_description flags{"flags"};
  bool ran = false;

  Program() {
    flags.add_options()("hidden", po::value(&hidden)->default_value(hidden), "state size")(
        "quiet", po::bool_switch(&quiet), "say less");
    training.declare(flags, "trees", false);
  }
  /// run_training_program's status for `args`, with `body` as the program; initialize()'s
  /// settings are restored afterwards.
  int run(
      std::vector<std::string> args, const std::function<int()>& body = [] { return 0; }) {
    const DynetParams before = current_params();
    args.insert(args.begin(), "program");
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(&a[0]);
    argv.push_back(nullptr);  // as main's: argv[argc] exists, and initialize() ends argv there
    const int status = run_training_program("program", "Does things.", flags, int(argv.size() - 1), argv.data(), [&] {
      ran = true;
      return body();
    });
    DynetParams restored = before;
    initialize(restored);
    return status;
  }
};

}  // namespace

TEST_CASE("a training program's flags are set before it runs, the --dynet- flags go to initialize",
          "[trainers][training_program]") {
  Program p;
  unsigned seed_seen = 0;
  CHECK(p.run({"--hidden", "32", "--dynet-seed", "77", "--quiet", "--epochs=4"}, [&] {
    seed_seen = current_params().random_seed;
    return 3;
  }) == 3);
  CHECK(p.ran);
  CHECK(seed_seen == 77);
  CHECK(p.hidden == 32);
  CHECK(p.quiet);
  CHECK(p.training.epochs == 4);
  CHECK(p.training.batch == 32);
}

TEST_CASE("--help prints the usage and runs nothing", "[trainers][training_program]") {
  Program p;
  std::ostringstream out;
  std::streambuf* const cout = std::cout.rdbuf(out.rdbuf());
  const int status = p.run({"--help"});
  std::cout.rdbuf(cout);
  CHECK(status == 0);
  CHECK_FALSE(p.ran);
  CHECK_THAT(out.str(), Catch::StartsWith("usage: program [flags]\nDoes things.") &&
                            Catch::Contains("--hidden arg (=16)") && Catch::Contains("--epochs") &&
                            Catch::Contains("--dynet-autobatch"));
}

TEST_CASE("a bad flag gives status 2 without running the program, any other error 1", "[trainers][training_program]") {
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{{"--hiden", "3"},
                                                                                   {"--hid", "3"},
                                                                                   {"--hidden", "-"},
                                                                                   {"--hidden=-1"},
                                                                                   {"--hidden"},
                                                                                   {"stray"},
                                                                                   {"--quiet=1"},
                                                                                   {"--dynet-autobatch", "7"}}) {
    Program p;
    INFO(bad[0]);
    CHECK(p.run(bad) == 2);
    CHECK_FALSE(p.ran);
  }
  Program p;
  CHECK(p.run({}, []() -> int { throw UsageError("--cell: unknown tree cell"); }) == 2);
  CHECK(p.run({}, []() -> int { throw std::runtime_error("cannot read the data"); }) == 1);
  CHECK(p.ran);
}
