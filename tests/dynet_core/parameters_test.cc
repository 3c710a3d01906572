#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>

#include "dynet_core/param_collection.h"
#include "dynet_core/tensor_eigen.h"

using namespace dynet;

TEST_CASE("parameter names are hierarchical and unique", "[parameters]") {
  ParameterCollection m;
  Parameter a = m.add_parameters({2}, 0.f, "W");
  Parameter b = m.add_parameters({2}, 0.f, "W");
  Parameter c = m.add_parameters({2});
  ParameterCollection enc = m.add_subcollection("encoder");
  Parameter d = enc.add_parameters({3}, 0.f, "W");
  LookupParameter e = enc.add_lookup_parameters(10, {4}, "emb");
  CHECK(a.get_fullname() == "/W");
  CHECK(b.get_fullname() == "/W_1");
  CHECK(c.get_fullname() == "/_0");
  CHECK(enc.get_fullname() == "/encoder/");
  CHECK(d.get_fullname() == "/encoder/W");
  CHECK(e.get_fullname() == "/encoder/emb");
  CHECK(m.parameters_list().size() == 4);
  CHECK(enc.parameters_list().size() == 1);
  CHECK(m.lookup_parameters_list().size() == 1);
  CHECK(m.parameter_count() == 2 + 2 + 2 + 3 + 40);
  CHECK_THROWS_WITH(m.add_parameters({2}, 0.f, "a/b"), Catch::Contains("'/'"));
  CHECK(m.parameters_list().size() == 4);
}

TEST_CASE("names count as DyNet's: parameters and lookup parameters in one table and subcollections in another",
          "[parameters]") {
  // DyNet's ParameterCollection keeps name_cntr and collec_name_cntr: the keys of a file DyNet saved
  // are those the same program's collection gives here.
  ParameterCollection m;
  LookupParameter e = m.add_lookup_parameters(5, {2});
  Parameter w = m.add_parameters({2});
  ParameterCollection first = m.add_subcollection();
  ParameterCollection second = m.add_subcollection();
  Parameter enc_p = m.add_parameters({2}, 0.f, "enc");
  ParameterCollection enc = m.add_subcollection("enc");
  ParameterCollection enc_again = m.add_subcollection("enc");
  CHECK(e.get_fullname() == "/_0");
  CHECK(w.get_fullname() == "/_1");
  CHECK(first.get_fullname() == "/_0/");
  CHECK(second.get_fullname() == "/_1/");
  CHECK(enc_p.get_fullname() == "/enc");
  CHECK(enc.get_fullname() == "/enc/");
  CHECK(enc_again.get_fullname() == "/enc_1/");
  // DyNet refuses '_' in a name; here a name with one stays unique next to the suffixed names.
  Parameter x = m.add_parameters({2}, 0.f, "x");
  Parameter x_1 = m.add_parameters({2}, 0.f, "x_1");
  Parameter x_again = m.add_parameters({2}, 0.f, "x");
  CHECK(x.get_fullname() == "/x");
  CHECK(x_1.get_fullname() == "/x_1");
  CHECK(x_again.get_fullname() == "/x_2");
}

TEST_CASE("initializers", "[parameters]") {
  ParameterCollection m;
  CHECK(as_vector(*m.add_parameters({2, 2}, ParameterInitIdentity()).values()) == std::vector<float>{1, 0, 0, 1});
  CHECK(as_vector(*m.add_parameters({3}, ParameterInitConst(0.5f)).values()) == std::vector<float>(3, 0.5f));
  CHECK(as_vector(*m.add_parameters({2}, ParameterInitFromVector({1.f, 2.f})).values()) ==
        std::vector<float>{1.f, 2.f});
  for (float v : as_vector(*m.add_parameters({10, 20}, ParameterInitUniform(-0.1f, 0.1f)).values()))
    CHECK(std::fabs(v) <= 0.1f);
  const float glorot = std::sqrt(6.f / 30.f);
  for (float v : as_vector(*m.add_parameters({10, 20}).values())) CHECK(std::fabs(v) <= glorot);
  Parameter q = m.add_parameters({5, 3}, ParameterInitSaxe());
  const Eigen::MatrixXf mq = eig::mat(*q.values());
  CHECK((mq.transpose() * mq - Eigen::MatrixXf::Identity(3, 3)).norm() < 1e-4f);
  std::vector<float> normal = as_vector(*m.add_parameters({4000}, ParameterInitNormal(1.f, 4.f)).values());
  double mean = 0, var = 0;
  for (float v : normal) mean += v / normal.size();
  for (float v : normal) var += (v - mean) * (v - mean) / normal.size();
  CHECK(mean == Approx(1.0).margin(0.15));
  CHECK(var == Approx(4.0).epsilon(0.1));

  const std::size_t before = m.parameters_list().size();
  CHECK_THROWS_WITH(m.add_parameters({2, 3}, ParameterInitIdentity()), Catch::Contains("square"));
  CHECK_THROWS_WITH(m.add_parameters({3}, ParameterInitFromVector({1.f})), Catch::Contains("{3}"));
  CHECK_THROWS_AS(ParameterInitUniform(1.f, -1.f), std::invalid_argument);
  CHECK_THROWS_AS(m.add_parameters(Dim({2}, 2)), std::invalid_argument);
  CHECK(m.parameters_list().size() == before);
}

TEST_CASE("Glorot's bound is DyNet's: sqrt(3 n / sum of the n dims) and a filter bank's sqrt(6 / fans)",
          "[parameters]") {
  ParameterCollection m;
  // Fills its bound: the largest of many draws comes near it.
  auto fills = [](const std::vector<float>& values, float bound) {
    float most = 0.f;
    for (float v : values) most = std::max(most, std::fabs(v));
    CHECK(most <= bound);
    CHECK(most > 0.8f * bound);
  };
  fills(as_vector(*m.add_parameters({400}).values()), std::sqrt(3.f / 400.f));
  fills(as_vector(*m.add_parameters({10, 20}).values()), std::sqrt(6.f / 30.f));
  fills(as_vector(*m.add_parameters({4, 5, 6}).values()), std::sqrt(9.f / 15.f));
  fills(as_vector(*m.add_parameters({2, 2, 3, 4}).values()), std::sqrt(6.f / 28.f));
  fills(as_vector(*m.add_parameters({400}, ParameterInitGlorot(false, 2.f)).values()), 2.f * std::sqrt(3.f / 400.f));
  // A table's rows count no fan: rows of 8 are bounded as a vector of 8.
  fills(as_vector(m.add_lookup_parameters(50, {8}).get_storage().all_values), std::sqrt(3.f / 8.f));
}

TEST_CASE("initializing from a file", "[parameters]") {
  const std::string path = "dybatch_init_test_values.txt";
  std::ofstream(path) << "1 2 3\n4\n";
  ParameterCollection m;
  CHECK(as_vector(*m.add_parameters({2, 2}, ParameterInitFromFile(path)).values()) == std::vector<float>{1, 2, 3, 4});
  CHECK_THROWS_WITH(m.add_parameters({3}, ParameterInitFromFile(path)), Catch::Contains("has 4"));
  std::ofstream(path) << "1 2 x";
  CHECK_THROWS_WITH(m.add_parameters({3}, ParameterInitFromFile(path)), Catch::Contains("not a number"));
  CHECK_THROWS_WITH(m.add_parameters({3}, ParameterInitFromFile("/nonexistent/file")), Catch::Contains("cannot open"));
  std::remove(path.c_str());
}

TEST_CASE("parameter and lookup handles validate their arguments", "[parameters][errors]") {
  ParameterCollection m;
  Parameter p = m.add_parameters({2});
  CHECK_THROWS_WITH(p.set_value({1.f, 2.f, 3.f}), Catch::Contains("{2}"));
  LookupParameter t = m.add_lookup_parameters(3, {2});
  CHECK_THROWS_WITH(t.initialize(3, {1.f, 2.f}), Catch::Contains("index 3"));
  CHECK_THROWS_WITH(t.initialize(0, {1.f}), Catch::Contains("{2}"));
  t.initialize(1, {5.f, 6.f});
  CHECK(as_vector(t.row_value(1)) == std::vector<float>{5.f, 6.f});
  Parameter empty;
  CHECK_THROWS_WITH(empty.dim(), Catch::Contains("empty"));
  CHECK_THROWS_WITH(m.add_lookup_parameters(0, {2}), Catch::Contains("at least one row"));
}
