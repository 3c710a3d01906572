#include "workloads/workload_options.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace bench {

namespace {

const TaskShape kTasks[] = {
    {"rnnlm-batch", "words", 64, 128, 256, false},
    {"bilstm-tagger", "words", 1, 128, 50, false},
    {"bilstm-tagger-withchar", "words", 1, 128, 50, false},
    {"treenn", "sentences", 1, 128, 128, false},
    {"fixed-lstm", "words", 64, 512, 512, true},
    {"var-lstm", "words", 64, 512, 512, true},
    {"tree-fc", "trees", 64, 512, 512, true},
    {"tree-lstm", "trees", 64, 128, 128, true},
    {"seq2seq-mixed", "pairs", 32, 32, 64, false},
    {"seq2seq-equal", "pairs", 32, 32, 64, false},
};

std::string task_names() {
  std::string names;
  for (const TaskShape& t : kTasks) names += (names.empty() ? "" : ", ") + std::string(t.name);
  return names;
}

[[noreturn]] void usage(const char* program, const std::string& variants, int status) {
  std::fprintf(status ? stderr : stdout,
               "usage: %s --task TASK [--batch N] [--hidden N] [--seconds S] [--data DIR] [--threads N]\n"
               "          [--variant V] [--updates sgd|sparse|dense]\n  tasks: %s\n  variants: %s\n",
               program, task_names().c_str(), variants.c_str());
  std::exit(status);
}

unsigned positive(const std::string& flag, const std::string& value) {
  char* end = nullptr;
  const unsigned long v = std::strtoul(value.c_str(), &end, 10);
  if (value.empty() || *end != '\0' || v == 0 || v > 1u << 20)
    throw std::invalid_argument(flag + ": expected a positive whole number, got '" + value + "'");
  return static_cast<unsigned>(v);
}

}  // namespace

const TaskShape& task_shape(const std::string& name) {
  for (const TaskShape& t : kTasks)
    if (name == t.name) return t;
  throw std::invalid_argument("--task: unknown task '" + name + "' (known: " + task_names() + ")");
}

RunLabel run_label(const WorkloadOptions& o, const std::string& impl) {
  RunLabel l;
  l.task = o.task;
  l.impl = impl;
  l.variant = o.variant;
  l.unit = task_shape(o.task).unit;
  l.batch = o.batch;
  l.hidden = o.hidden;
  l.threads = o.threads;
  l.updates = o.updates;
  return l;
}

bool is_language_model(const std::string& task) {
  return task == "rnnlm-batch" || task == "var-lstm" || task == "fixed-lstm";
}

bool is_seq2seq(const std::string& task) { return task == "seq2seq-mixed" || task == "seq2seq-equal"; }

WorkloadOptions parse_workload_options(int argc, char** argv, const std::string& variants,
                                       const std::string& default_data) {
  WorkloadOptions o;
  o.data = default_data;
  o.variant = variants.substr(0, variants.find(','));
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--help" || a == "-h") usage(argv[0], variants, 0);
      if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
      const std::string v = argv[++i];
      if (a == "--task") {
        o.task = v;
      } else if (a == "--batch") {
        o.batch = positive(a, v);
      } else if (a == "--hidden") {
        o.hidden = positive(a, v);
      } else if (a == "--threads") {
        o.threads = positive(a, v);
      } else if (a == "--seconds") {
        o.seconds = std::atof(v.c_str());
        if (!(o.seconds > 0)) throw std::invalid_argument("--seconds: expected a positive number, got '" + v + "'");
      } else if (a == "--updates") {
        if (v != "sgd" && v != "sparse" && v != "dense")
          throw std::invalid_argument("--updates: '" + v + "' is not one of sgd, sparse, dense");
        o.updates = v;
      } else if (a == "--data") {
        o.data = v;
      } else if (a == "--variant") {
        if (("," + variants + ",").find("," + v + ",") == std::string::npos)
          throw std::invalid_argument("--variant: '" + v + "' is not one of " + variants);
        o.variant = v;
      } else {
        throw std::invalid_argument("unknown argument " + a);
      }
    }
    if (o.task.empty()) throw std::invalid_argument("--task is required");
    const TaskShape& t = task_shape(o.task);
    if (o.batch == 0) o.batch = t.batch;
    if (o.hidden == 0) o.hidden = t.hidden;
    o.embedding = t.embedding_follows_hidden ? o.hidden : t.embedding;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s: %s\n", argv[0], e.what());
    usage(argv[0], variants, 2);
  }
  return o;
}

}  // namespace bench
