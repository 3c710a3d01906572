#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "examples/common/command_line.h"

using examples::CommandLine;
using examples::UsageError;

namespace {

struct Args {
  std::vector<std::string> text;
  std::vector<char*> argv;
  explicit Args(std::vector<std::string> a) : text(std::move(a)) {
    text.insert(text.begin(), "program");
    for (std::string& t : text) argv.push_back(&t[0]);
  }
  int argc() const { return static_cast<int>(argv.size()); }
};

struct Flags {
  unsigned epochs = 3;
  float rate = 0.5f;
  std::string path = "data.txt";
  bool quiet = false;
  std::ostringstream help;
  CommandLine cl{"program", "Does things.", help};
  Flags() {
    cl.add("epochs", &epochs, "passes");
    cl.add("rate", &rate, "learning rate");
    cl.add("path", &path, "input");
    cl.add("quiet", &quiet, "say less");
  }
  bool parse(std::vector<std::string> a) {
    Args args(std::move(a));
    return cl.parse(args.argc(), args.argv.data());
  }
};

}  // namespace

TEST_CASE("flags set their variables, which keep their defaults otherwise", "[examples][command_line]") {
  Flags f;
  REQUIRE(f.parse({"--epochs", "7", "--rate=0.25", "--quiet"}));
  CHECK(f.epochs == 7);
  CHECK(f.rate == 0.25f);
  CHECK(f.quiet);
  CHECK(f.path == "data.txt");
}

TEST_CASE("the usage lists every flag with its default", "[examples][command_line]") {
  Flags f;
  const std::string usage = f.cl.usage();
  CHECK_THAT(usage, Catch::Contains("--epochs X") && Catch::Contains("(default: 3)") && Catch::Contains("--quiet ") &&
                        Catch::Contains("(default: data.txt)") && Catch::Contains("--dynet-autobatch"));
  CHECK_FALSE(f.parse({"--help"}));
  CHECK(f.help.str() == usage);
}

TEST_CASE("bad flags are reported by name", "[examples][command_line]") {
  Flags f;
  CHECK_THROWS_WITH(f.parse({"--epoch", "3"}), Catch::Contains("unknown argument '--epoch'"));
  CHECK_THROWS_WITH(f.parse({"--epochs"}), Catch::Contains("--epochs needs a value"));
  CHECK_THROWS_WITH(f.parse({"--epochs", "-1"}), Catch::Contains("non-negative integer"));
  CHECK_THROWS_WITH(f.parse({"--epochs", "3x"}), Catch::Contains("'3x'"));
  CHECK_THROWS_WITH(f.parse({"--rate", "fast"}), Catch::Contains("--rate: 'fast' is not a number"));
  CHECK_THROWS_WITH(f.parse({"--quiet=1"}), Catch::Contains("takes no value"));
  CHECK_THROWS_AS(f.parse({"stray"}), UsageError);
  CHECK(f.epochs == 3);
}
