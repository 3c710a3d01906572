#pragma once
// The workloads (../shared/BENCHMARKS.md) and the command line shared by dybatch's workload
// program and its peers, so that the same flags mean the same run in every program.

#include <string>

#include "workloads/measurement.h"

namespace bench {

/// A workload's name, what its throughput counts, and its default settings.
struct TaskShape {
  const char* name;
  const char* unit;
  unsigned batch, embedding, hidden;
  bool embedding_follows_hidden;  ///< Cavs' workloads sweep one size for both
};

/// The shape of task `name`; throws std::invalid_argument naming the known tasks otherwise.
const TaskShape& task_shape(const std::string& name);

struct WorkloadOptions {
  std::string task, variant, data;
  /// How parameters are trained: "sgd" (SGD at 0.1, sparse updates of embeddings, as every
  /// program of the suite and its peers), or "sparse" / "dense": Adam (0.001, no clipping) with
  /// sparse or dense updates, as DyNet's benchmark programs with SPARSE 1 / 0 (dybatch only).
  std::string updates = "sgd";
  unsigned batch = 0, embedding = 0, hidden = 0, threads = 1;
  double seconds = 3;
};

/// Reads --task, --batch, --hidden, --seconds, --data, --threads, --updates and --variant (one of
/// `variants`, a comma-separated list whose first entry is the default); unset sizes take the
/// task's defaults. On --help prints the usage and exits 0; on a bad command line says why and
/// exits 2.
WorkloadOptions parse_workload_options(int argc, char** argv, const std::string& variants,
                                       const std::string& default_data);

/// The label of a run of `o` by program `impl` (its engine flags left unset).
RunLabel run_label(const WorkloadOptions& o, const std::string& impl);

/// Whether task `task` trains a language model (rnnlm-batch, var-lstm, fixed-lstm).
bool is_language_model(const std::string& task);

/// Whether task `task` trains the attention encoder-decoder (seq2seq-mixed, seq2seq-equal).
bool is_seq2seq(const std::string& task);

}  // namespace bench
