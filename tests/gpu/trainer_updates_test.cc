// Every trainer updates parameters and sparsely updated lookup tables on the GPU as on the CPU:
// the same model on both devices, the same gradients, three updates.

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "gpu/device_gpu.h"
#include "gpu/trainer_updates.h"
#include "trainers/all_trainers.h"

using namespace dynet;

namespace {

constexpr unsigned kRows = 5, kRowSize = 300;

struct Model {
  ParameterCollection collection;
  Parameter p;
  LookupParameter table;
  std::unique_ptr<Trainer> trainer;
};

void make(Model& m, Device* device, const std::vector<float>& values, const std::vector<float>& rows) {
  m.p = m.collection.add_parameters({unsigned(values.size())}, ParameterInitFromVector(values), "", device);
  m.table = m.collection.add_lookup_parameters(kRows, {kRowSize}, ParameterInitFromVector(rows), "", device);
}

/// The gradients of one step: the parameter's and those of `touched` rows.
void set_gradients(Model& m, const std::vector<float>& g, const std::vector<float>& row_g,
                   const std::vector<unsigned>& touched) {
  ParameterStorage& p = m.p.get_storage();
  p.device->to_device(p.g.v, g.data(), g.size());
  LookupParameterStorage& t = m.table.get_storage();
  for (unsigned r : touched) {
    t.device->to_device(t.grad_row(r), row_g.data() + r * kRowSize, kRowSize);
    t.non_zero_grads.insert(r);
  }
}

void require_same(const std::vector<float>& gpu, const std::vector<float>& cpu, const char* what) {
  REQUIRE(gpu.size() == cpu.size());
  for (std::size_t e = 0; e < cpu.size(); ++e) {
    INFO(what << " element " << e << ": GPU " << gpu[e] << ", CPU " << cpu[e]);
    REQUIRE(std::fabs(gpu[e] - cpu[e]) <= 1e-5f + 1e-4f * std::fabs(cpu[e]));
  }
}

void check_trainer(const char* name, const MakeTrainer& make_trainer, bool sparse, std::size_t count) {
  static Device_GPU gpu(0, MemorySizes{1 << 20, 1 << 20, 1 << 26, 1 << 20});
  gpu::install_update_kernels();
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> positive(0.05f, 1.f), unit(-1.f, 1.f);
  auto draw = [&](std::size_t n, std::uniform_real_distribution<float>& d) {
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
  };
  // Positive values, as EG's distributions need.
  const std::vector<float> values = draw(count, positive), rows = draw(kRows * kRowSize, positive);
  Model cpu, dev;
  make(cpu, nullptr, values, rows);
  make(dev, &gpu, values, rows);
  cpu.trainer = make_trainer(cpu.collection);
  dev.trainer = make_trainer(dev.collection);
  cpu.trainer->sparse_updates_enabled = dev.trainer->sparse_updates_enabled = sparse;
  const std::vector<std::vector<unsigned>> touched{{3, 1}, {0, 3, 4}, {1}};
  for (const std::vector<unsigned>& rows_now : touched) {
    const std::vector<float> g = draw(values.size(), unit), row_g = draw(rows.size(), unit);
    set_gradients(cpu, g, row_g, rows_now);
    set_gradients(dev, g, row_g, rows_now);
    cpu.trainer->update();
    dev.trainer->update();
  }
  INFO(name << (sparse ? ", sparse" : ", dense") << ", " << count << " values");
  require_same(as_vector(*dev.p.values()), as_vector(*cpu.p.values()), "parameter");
  require_same(as_vector(dev.table.get_storage().all_values), as_vector(cpu.table.get_storage().all_values), "table");
}

}  // namespace

TEST_CASE("every trainer updates on the GPU as on the CPU, sparse and dense", "[gpu][trainers]") {
  std::vector<std::pair<const char*, MakeTrainer>> trainers(all_trainers().begin(), all_trainers().end());
  trainers.push_back(
      {"CyclicalSGDTrainer", [](ParameterCollection& m) { return std::make_unique<CyclicalSGDTrainer>(m); }});
  trainers.push_back({"EGTrainer", [](ParameterCollection& m) { return std::make_unique<EGTrainer>(m, 0.1f); }});
  // 1000 values span several thread blocks; 300,000 make a dense EG update run its multi-block passes.
  for (const auto& [name, make_trainer] : trainers) {
    check_trainer(name, make_trainer, true, 1000);
    check_trainer(name, make_trainer, false, 1000);
    check_trainer(name, make_trainer, false, 300000);
  }
}
