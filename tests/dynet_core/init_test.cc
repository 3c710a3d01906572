#include <catch2/catch.hpp>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet_core/device/gpu_backend.h"
#include "dynet_core/init.h"

using namespace dynet;

namespace {
struct Argv {
  explicit Argv(std::vector<std::string> a) : args(std::move(a)) {
    for (auto& s : args) ptrs.push_back(&s[0]);
    ptrs.push_back(nullptr);
    argc = static_cast<int>(args.size());
    argv = ptrs.data();
  }
  std::vector<std::string> args;
  std::vector<char*> ptrs;
  int argc;
  char** argv;
};
}  // namespace

TEST_CASE("DyNet flags are read and removed from argv", "[flags]") {
  Argv a({"prog", "--dynet-mem", "256,256,512", "--epochs", "3", "--dynet-seed=42", "--dynet-autobatch", "1",
          "--dynet-profiling", "2", "--dynet-weight-decay", "1e-4", "--dynet-vertex", "2", "file.txt"});
  CHECK(DynetParams().vertex == 1);  // as suits the device, by default
  const DynetParams p = extract_dynet_params(a.argc, a.argv);
  CHECK(p.vertex == 2);
  CHECK(p.mem_descriptor == "256,256,512");
  CHECK(p.random_seed == 42);
  CHECK(p.autobatch == 1);
  CHECK(p.profiling == 2);
  CHECK(p.weight_decay == Approx(1e-4));
  REQUIRE(a.argc == 4);
  CHECK(std::string(a.argv[0]) == "prog");
  CHECK(std::string(a.argv[1]) == "--epochs");
  CHECK(std::string(a.argv[2]) == "3");
  CHECK(std::string(a.argv[3]) == "file.txt");
  CHECK(a.argv[4] == nullptr);
}

TEST_CASE("DyNet's underscore spellings of the flags are read", "[flags]") {
  Argv a(
      {"prog", "--dynet_mem", "64", "--dynet_autobatch", "2", "--dynet_weight_decay=1e-3", "x", "--dynet_seed", "5"});
  const DynetParams p = extract_dynet_params(a.argc, a.argv);
  CHECK(p.mem_descriptor == "64");
  CHECK(p.autobatch == 2);
  CHECK(p.weight_decay == Approx(1e-3));
  CHECK(p.random_seed == 5);
  REQUIRE(a.argc == 2);
  CHECK(std::string(a.argv[1]) == "x");
  Argv bad({"prog", "--dynet_autobatch", "9"});
  CHECK_THROWS_WITH(extract_dynet_params(bad.argc, bad.argv), Catch::Contains("--dynet-autobatch"));
}

TEST_CASE("bad DyNet flags are rejected with the flag named", "[flags][errors]") {
  Argv unknown({"prog", "--dynet-autobach", "1"});
  CHECK_THROWS_WITH(extract_dynet_params(unknown.argc, unknown.argv), Catch::Contains("--dynet-autobach"));
  Argv range({"prog", "--dynet-autobatch", "7"});
  CHECK_THROWS_WITH(extract_dynet_params(range.argc, range.argv), Catch::Contains("--dynet-autobatch"));
  Argv vertex({"prog", "--dynet-vertex=3"});
  CHECK_THROWS_WITH(extract_dynet_params(vertex.argc, vertex.argv), Catch::Contains("--dynet-vertex"));
  Argv missing({"prog", "--dynet-seed"});
  CHECK_THROWS_WITH(extract_dynet_params(missing.argc, missing.argv), Catch::Contains("needs a value"));
  Argv mem({"prog", "--dynet-mem", "lots"});
  CHECK_THROWS_WITH(extract_dynet_params(mem.argc, mem.argv), Catch::Contains("--dynet-mem"));
}

TEST_CASE("DyNet's --dynet-autobatch-debug switch is accepted and takes no value", "[flags]") {
  Argv a({"prog", "--dynet-autobatch-debug", "data.txt", "--dynet_autobatch_debug"});
  CHECK_NOTHROW(extract_dynet_params(a.argc, a.argv));
  REQUIRE(a.argc == 2);
  CHECK(std::string(a.argv[1]) == "data.txt");
}

// The message once listed its flags by hand and left out --dynet-gpus, which works.
TEST_CASE("a misspelled flag's message lists every flag the parser accepts", "[flags][errors]") {
  Argv unknown({"prog", "--dynet-autobach", "1"});
  std::string message;
  try {
    extract_dynet_params(unknown.argc, unknown.argv);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  // DyNet's flags as its programs spell them, with a value each takes: each is read, and named.
  const std::vector<std::pair<std::string, std::string>> dynet_flags = {
      {"--dynet-mem", "256"},          {"--dynet-seed", "3"},         {"--dynet-autobatch", "1"},
      {"--dynet-vertex", "0"},         {"--dynet-profiling", "1"},    {"--dynet-weight-decay", "0.1"},
      {"--dynet-threads", "2"},        {"--dynet-devices", "CPU"},    {"--dynet-gpus", "0"},
      {"--dynet-gpu-ids", "0"},        {"--dynet-debug-memory", "1"}, {"--dynet-dynamic-mem", "1"},
      {"--dynet-autobatch-debug", "1"}};
  for (const auto& [flag, value] : dynet_flags) {
    Argv a({"prog", flag + "=" + value});
    CHECK_NOTHROW(extract_dynet_params(a.argc, a.argv));
    CHECK_THAT(message, Catch::Contains(flag + ",") || Catch::EndsWith(flag + ")"));
  }
  // And nothing the parser accepts is missing from the message, nor from the list above.
  for (const std::string& flag : known_dynet_flags()) {
    CHECK_THAT(message, Catch::Contains(flag + ",") || Catch::EndsWith(flag + ")"));
    Argv alone({"prog", flag + "=x"});  // a bad value, so it is refused as a value, not as a flag
    std::string refusal;
    try {
      extract_dynet_params(alone.argc, alone.argv);
    } catch (const std::invalid_argument& e) {
      refusal = e.what();
    }
    CHECK_THAT(refusal, !Catch::Contains("unknown flag"));
  }
  CHECK(known_dynet_flags().size() == dynet_flags.size());
}

TEST_CASE("the device flags name the GPUs as DyNet reads --dynet-devices, --dynet-gpus and --dynet-gpu-ids",
          "[flags]") {
  Argv both({"prog", "--dynet-devices", "CPU,GPU:0"});
  CHECK(extract_dynet_params(both.argc, both.argv).gpu_ids == std::vector<int>{0});
  Argv cpu({"prog", "--dynet-devices=CPU"});
  CHECK(extract_dynet_params(cpu.argc, cpu.argv).gpu_ids.empty());
  Argv count({"prog", "--dynet-gpus", "2"});
  CHECK(extract_dynet_params(count.argc, count.argv).gpu_ids == std::vector<int>{0, 1});
  Argv conflict({"prog", "--dynet-gpus", "1", "--dynet-devices", "GPU:0"});
  CHECK_THROWS_WITH(extract_dynet_params(conflict.argc, conflict.argv), Catch::Contains("only one of"));
  Argv bad({"prog", "--dynet-devices", "CPU,GPU:x"});
  CHECK_THROWS_WITH(extract_dynet_params(bad.argc, bad.argv), Catch::Contains("'GPU:x' is not a device"));
  Argv twice({"prog", "--dynet-devices", "GPU:1,GPU:1"});
  CHECK_THROWS_WITH(extract_dynet_params(twice.argc, twice.argv), Catch::Contains("GPU:1 is named twice"));
  // DyNet's --dynet-gpu-ids asks for those GPUs, as --dynet-devices GPU:N does.
  Argv ids({"prog", "--dynet-gpu-ids", "0"});
  CHECK(extract_dynet_params(ids.argc, ids.argv).gpu_ids == std::vector<int>{0});
  Argv two_ids({"prog", "--dynet-gpu-ids=1,3"});
  CHECK(extract_dynet_params(two_ids.argc, two_ids.argv).gpu_ids == std::vector<int>{1, 3});
  Argv cpu_id({"prog", "--dynet-gpu-ids", "CPU"});
  CHECK(extract_dynet_params(cpu_id.argc, cpu_id.argv).gpu_ids.empty());
  Argv same_id({"prog", "--dynet-gpu-ids", "0,0"});
  CHECK_THROWS_WITH(extract_dynet_params(same_id.argc, same_id.argv), Catch::Contains("GPU id 0 is named twice"));
  Argv ids_and_gpus({"prog", "--dynet-gpu-ids", "0", "--dynet-gpus", "1"});
  CHECK_THROWS_WITH(extract_dynet_params(ids_and_gpus.argc, ids_and_gpus.argv), Catch::Contains("only one of"));
}

TEST_CASE("a GPU asked for is refused at start-up with the reason", "[flags][errors]") {
  DynetParams two;
  two.gpu_ids = {0, 1};
  CHECK_THROWS_WITH(initialize(two), Catch::Contains("one GPU at a time"));
  const MemorySizes sizes{1 << 20, 1 << 20, 1 << 20, 1 << 20};
#ifdef DYBATCH_HAVE_CUDA
  // The CUDA kernel tables are complete (a gap would throw std::logic_error here), so what refuses a
  // GPU is its absence; where one is visible, the device starts.
  std::string refusal;
  try {
    make_gpu_device(0, sizes, false);
  } catch (const std::runtime_error& e) {
    refusal = e.what();
  }
  if (!refusal.empty()) CHECK_THAT(refusal, Catch::Contains("GPU:0 was asked for, but no CUDA device is visible"));
#else
  CHECK_THROWS_WITH(make_gpu_device(0, sizes, false), Catch::Contains("no CUDA backend"));
#endif
}

// DyNet reads the seed into an unsigned: every 32-bit value is a seed, nothing else is.
TEST_CASE("the seed flag takes every unsigned 32-bit value and nothing else", "[flags][errors]") {
  for (const auto& [text, seed] :
       {std::pair<const char*, unsigned>{"0", 0u}, {"2147483648", 2147483648u}, {"4294967295", 4294967295u}}) {
    Argv a({"prog", "--dynet-seed", text});
    CHECK(extract_dynet_params(a.argc, a.argv).random_seed == seed);
  }
  for (const char* bad : {"4294967296", "-1", "12abc", "seed", ""}) {
    Argv a({"prog", std::string("--dynet-seed=") + bad});
    CHECK_THROWS_WITH(extract_dynet_params(a.argc, a.argv),
                      Catch::StartsWith(std::string("--dynet-seed: '") + bad + "' is not valid") &&
                          Catch::Contains("from 0 to 4294967295"));
  }
}
