// Sparse updates of lookup tables: rows touched by lookups are updated exactly as a dense update
// would update them, and rows no lookup touched keep their bits. Dense updates step the rows no
// gradient reached without reading their (zero) gradients, to the same bits.

#include <catch2/catch.hpp>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "trainers/all_trainers.h"

using namespace dynet;

namespace {

constexpr unsigned kRows = 6;
constexpr unsigned kRowSize = 5;  // not a multiple of the vector width, so row updates take tails

std::vector<float> initial_table() {
  std::vector<float> v(kRows * kRowSize);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = 0.1f * static_cast<float>(k % 7) - 0.3f;
  return v;
}

struct Run {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(kRows, {kRowSize}, ParameterInitFromVector(initial_table()));
  std::unique_ptr<Trainer> trainer;
};

// One step of the loss |row_i - 1|^2 summed over the rows in `rows`.
void train_step(Run& run, const std::vector<unsigned>& rows) {
  ComputationGraph cg;
  std::vector<Expression> losses;
  for (unsigned r : rows) losses.push_back(squared_distance(lookup(cg, run.table, r), constant(cg, {kRowSize}, 1.f)));
  cg.backward(sum(losses));
  run.trainer->update();
}

std::vector<float> row_of(const LookupParameter& t, unsigned r) { return as_vector(t.row_value(r)); }

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("sparse and dense updates agree on touched rows, untouched rows keep their bits", "[trainers]") {
  // Rows 1 and 3 are touched at every step, row 4 at one step only, rows 0, 2 and 5 never.
  const std::vector<std::vector<unsigned>> steps{{1, 3}, {3, 1, 4}, {1, 3}};
  for (const auto& [name, make] : all_trainers()) {
    INFO(name);
    Run sparse, dense;
    sparse.trainer = make(sparse.model);
    dense.trainer = make(dense.model);
    dense.trainer->sparse_updates_enabled = false;
    for (const auto& rows : steps) {
      train_step(sparse, rows);
      train_step(dense, rows);
    }
    const std::vector<float> start = initial_table();
    for (unsigned r : {1u, 3u}) {
      CHECK(same_bits(row_of(sparse.table, r), row_of(dense.table, r)));
      CHECK(row_of(sparse.table, r) !=
            std::vector<float>(start.begin() + r * kRowSize, start.begin() + (r + 1) * kRowSize));
    }
    for (unsigned r : {0u, 2u, 5u})
      CHECK(same_bits(row_of(sparse.table, r),
                      std::vector<float>(start.begin() + r * kRowSize, start.begin() + (r + 1) * kRowSize)));
  }
}

TEST_CASE("a table used as a whole is updated densely", "[trainers]") {
  for (int strategy : {0, 1, 2}) {
    INFO("--dynet-autobatch " << strategy);
    Run run;
    run.trainer = std::make_unique<SimpleSGDTrainer>(run.model, 0.25f);
    ComputationGraph cg;
    cg.set_autobatch(strategy);
    cg.backward(squared_norm(parameter(cg, run.table)));
    run.trainer->update();
    const std::vector<float> start = initial_table();
    const std::vector<float> all = as_vector(run.table.get_storage().all_values);
    for (std::size_t k = 0; k < all.size(); ++k) CHECK(all[k] == Approx(start[k] * (1 - 2 * 0.25f)).margin(1e-7));
  }
}

TEST_CASE("lookup tables that are not updated stay unchanged", "[trainers]") {
  Run run;
  run.trainer = std::make_unique<AdamTrainer>(run.model);
  run.table.set_updated(false);
  train_step(run, {0, 1});
  CHECK(same_bits(as_vector(run.table.get_storage().all_values), initial_table()));
  CHECK(run.model.gradient_l2_norm() == 0.f);
}

namespace {

// Steps of a model with a table of kRows rows and a parameter, whose loss reads the rows listed
// (runs of reached rows at the table's start, middle and end, and a step reaching none).
struct DenseRun {
  ParameterCollection model;
  LookupParameter table = model.add_lookup_parameters(kRows, {kRowSize}, ParameterInitFromVector(initial_table()));
  Parameter weight = model.add_parameters({kRowSize}, ParameterInitConst(0.5f));
  std::unique_ptr<Trainer> trainer;

  DenseRun(const MakeTrainer& make, float lambda) {
    if (lambda > 0) model.set_weight_decay_lambda(lambda);
    trainer = make(model);
    trainer->sparse_updates_enabled = false;
    trainer->clip_threshold = 2.f;  // some steps clip: the gradient scale reaches every row's step
  }
  // `every_row`: the update reads every row's gradient, as a dense update over the whole table did.
  void step(const std::vector<unsigned>& rows, bool every_row) {
    ComputationGraph cg;
    std::vector<Expression> losses{squared_norm(parameter(cg, weight))};
    for (unsigned r : rows) losses.push_back(squared_distance(lookup(cg, table, r), 3.f * parameter(cg, weight)));
    cg.backward(sum(losses));
    if (every_row) table.get_storage().all_updated = true;
    trainer->update();
  }
  std::string checkpoint() {
    std::ostringstream os;
    trainer->save(os);
    return os.str();
  }
};

}  // namespace

TEST_CASE("a dense update steps the rows no gradient reached exactly as one reading their zero gradients",
          "[trainers]") {
  const std::vector<std::vector<unsigned>> steps{{0, 1}, {3}, {5, 4}, {}, {2, 0}, {5}, {1, 2, 3}};
  for (const auto& [name, make] : all_trainers())
    for (float lambda : {0.f, 0.01f}) {
      INFO(name << ", weight decay " << lambda);
      DenseRun rows_reached(make, lambda), every_row(make, lambda);
      for (const auto& rows : steps) {
        rows_reached.step(rows, false);
        every_row.step(rows, true);
      }
      const std::vector<float> start = initial_table();
      CHECK(as_vector(rows_reached.table.get_storage().all_values) != start);
      CHECK(same_bits(as_vector(rows_reached.table.get_storage().all_values),
                      as_vector(every_row.table.get_storage().all_values)));
      CHECK(same_bits(as_vector(*rows_reached.weight.values()), as_vector(*every_row.weight.values())));
      CHECK(rows_reached.checkpoint() == every_row.checkpoint());
    }
}
