// Parameters with a dimension of size 0, as DyNet allows: programs make parameters of a layer that
// an option of 0 leaves out, and never use them (bist-parser's --hidden2 0). They are listed,
// trained, saved and loaded in both formats like any other; no expression can hold one.

#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/ops/all_ops.h"
#include "dynet_core/param_collection.h"
#include "dynet_core/tensor_eigen.h"
#include "scratch_folder.h"
#include "trainers/adam_trainer.h"

using namespace dynet;

TEST_CASE("a parameter or a table's rows may have a dimension of size 0: it trains and is saved and loaded but is no "
          "expression",
          "[parameters][io]") {
  CHECK_THROWS_WITH(Dim({0u, 3u}), Catch::Contains("sizes must be >= 1"));
  CHECK(Dim::of_parameter({0, 3}).size() == 0);
  CHECK_THROWS_WITH(Dim::of_parameter({2, 1u << 31}), Catch::Contains("2^31-1"));

  auto make = [](ParameterCollection& m) {
    m.add_parameters(Dim::of_parameter({0, 100}), "hidden2");
    m.add_parameters(Dim::of_parameter({0}), "hidden2_bias");
    m.add_lookup_parameters(7, Dim::of_parameter({0}), "pos");  // UUParser's --pos-emb-size 0
    return m.add_parameters({2, 3}, "W");
  };
  ParameterCollection m;
  Parameter w = make(m);
  REQUIRE(m.parameters_list().size() == 3);
  Parameter empty(m.parameters_list()[0]);
  CHECK(empty.dim() == Dim::of_parameter({0, 100}));
  CHECK(as_vector(*empty.values()).empty());

  {
    ComputationGraph cg;
    CHECK_THROWS_WITH(parameter(cg, empty), Catch::Contains("'/hidden2' has dim {0,100}, no values"));
    CHECK_THROWS_WITH(const_parameter(cg, empty), Catch::Contains("const_parameter"));
    LookupParameter pos(m.lookup_parameters_list()[0]);
    CHECK_THROWS_WITH(lookup(cg, pos, 3u), Catch::Contains("'/pos' has rows of dim {0}, no values"));
    CHECK_THROWS_WITH(parameter(cg, pos), Catch::Contains("no values"));
    CHECK_THROWS_WITH(m.add_lookup_parameters(0, {2}), Catch::Contains("at least one row"));
    for (bool sparse : {true, false}) {
      AdamTrainer trainer(m);
      trainer.sparse_updates_enabled = sparse;
      cg.backward(sum_elems(parameter(cg, w)));
      trainer.update();
    }
  }

  ScratchFolder folder;
  for (ModelFileFormat format : {ModelFileFormat::Dybatch, ModelFileFormat::DyNet}) {
    const std::string path = folder.file("zero.model");
    TextFileSaver(path, false, format).save(m);
    ParameterCollection loaded;
    Parameter w2 = make(loaded);
    TextFileLoader(path).populate(loaded);
    CHECK(as_vector(*w2.values()) == as_vector(*w.values()));
    CHECK(loaded.parameters_list()[0]->dim == Dim::of_parameter({0, 100}));
    CHECK(loaded.lookup_parameters_list()[0]->all_dim == Dim::of_parameter({0, 7}));
    // A file's parameter of size 0 does not load into one of another shape.
    ParameterCollection other;
    other.add_parameters({1, 100}, "hidden2");
    other.add_parameters(Dim::of_parameter({0}), "hidden2_bias");
    other.add_lookup_parameters(7, Dim::of_parameter({0}), "pos");
    other.add_parameters({2, 3}, "W");
    CHECK_THROWS(TextFileLoader(path).populate(other));
  }
}
