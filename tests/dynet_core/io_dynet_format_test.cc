// DyNet 2's text model format: the exact bytes DyNet 2.1 writes, files written by hand as DyNet
// writes them loaded exactly (parameters, lookup parameters, subcollections, ZERO_GRAD and
// FULL_GRAD, DyNet 2.0's records, weight decay), DyNet's rules for keys, and round trips.

#include <catch2/catch.hpp>

#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "dynet/model.h"
#include "dynet_core/dynet_text_record.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/io/whole_file.h"
#include "dynet_core/model_of_every_kind.h"
#include "dynet_core/ops/all_ops.h"
#include "scratch_folder.h"
#include "trainers/simple_sgd_trainer.h"

using namespace dynet;

namespace {

constexpr auto kDyNet = ModelFileFormat::DyNet;

// The small file of DyNet 2.1 measured in shared/dynet-api/model-files.md, byte for byte.
const std::string kSmallFile =
    "#Parameter# /W {2,3} 97 ZERO_GRAD\n"
    "+1.00000000e+00 +2.00000000e+00 +3.00000000e+00 +4.00000000e+00 +5.00000000e+00 +6.00000000e+00 \n"
    "#LookupParameter# /enc/E {2,3} 97 ZERO_GRAD\n"
    "+5.00000000e-01 -1.00000000e+00 +2.00000000e+00 +2.50000000e-01 -3.00000000e+00 +1.00000001e-07 \n";

struct SmallModel {
  ParameterCollection model;
  Parameter w = model.add_parameters({2, 3}, ParameterInitConst(0.f), "W");
  ParameterCollection enc = model.add_subcollection("enc");
  LookupParameter e = enc.add_lookup_parameters(3, {2}, ParameterInitConst(0.f), "E");
};

void write_text(const std::string& path, const std::string& text) { write_file_atomically(path, text); }

std::vector<float> values(const Parameter& p) { return as_vector(p.get_storage().values); }
std::vector<float> values(const LookupParameter& p) { return as_vector(p.get_storage().all_values); }
std::vector<float> gradient(const Parameter& p) { return as_vector(p.get_storage().g); }
std::vector<float> gradient(const LookupParameter& p) { return as_vector(p.get_storage().all_grads); }

}  // namespace

TEST_CASE("DyNet's format is written byte for byte as DyNet 2.1 writes it", "[io]") {
  ScratchFolder folder;
  SmallModel m;
  m.w.set_value({1, 2, 3, 4, 5, 6});
  m.e.initialize(0, {0.5f, -1.f});
  m.e.initialize(1, {2.f, 0.25f});
  m.e.initialize(2, {-3.f, 1e-7f});
  TextFileSaver(folder.file("small.model"), false, kDyNet).save(m.model);
  CHECK(read_file(folder.file("small.model")) == kSmallFile);
  // The default stays dybatch's own checked format.
  TextFileSaver(folder.file("own.model")).save(m.model);
  CHECK(read_file(folder.file("own.model")).rfind("dybatch-file ", 0) == 0);
}

TEST_CASE("a file DyNet wrote loads exactly, recognised from its content", "[io]") {
  ScratchFolder folder;
  write_text(folder.file("small.model"), kSmallFile);
  for (bool binary_loader : {false, true}) {
    INFO("binary loader: " << binary_loader);
    SmallModel m;
    if (binary_loader)
      BinaryFileLoader(folder.file("small.model")).populate(m.model);
    else
      TextFileLoader(folder.file("small.model")).populate(m.model);
    CHECK(values(m.w) == std::vector<float>{1, 2, 3, 4, 5, 6});
    CHECK(values(m.e) == std::vector<float>{0.5f, -1.f, 2.f, 0.25f, -3.f, 1e-7f});
  }
}

TEST_CASE("hand-written DyNet records: values, FULL_GRAD gradients, ZERO_GRAD, DyNet 2.0's records", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("hand.model");
  // Numbers in any form DyNet's stream reads; an interleaved lookup record; DyNet 2.0's record
  // without a gradient field carries its gradient line.
  write_text(
      path, dynet_text_record("#Parameter# /W {2,2}", "ZERO_GRAD", {"1 -2.5 +3e2 0.125 "}) +
                dynet_text_record("#LookupParameter# /E {1,2,2}", "FULL_GRAD", {"1 2 3 4", "-1 -2 -3 -4"}) +
                dynet_text_record("#Parameter# /b {2}", "FULL_GRAD", {"+7.00000000e+00 -8.00000000e+00 ", "0.5 0.25"}) +
                dynet_text_record("#Parameter# /old {1}", "", {"+4.00000000e+00 ", "+1.00000000e+00 "}));
  ParameterCollection model;
  Parameter w = model.add_parameters({2, 2}, ParameterInitConst(9.f));
  LookupParameter e = model.add_lookup_parameters(2, {1, 2}, ParameterInitConst(9.f));
  Parameter b = model.add_parameters({2}, ParameterInitConst(9.f));
  Parameter old = model.add_parameters({1}, ParameterInitConst(9.f));
  // A gradient accumulated before the load is replaced: zeroed for ZERO_GRAD.
  {
    ComputationGraph cg;
    cg.backward(sum_elems(parameter(cg, w)));
  }
  REQUIRE(w.get_storage().has_grad());
  TextFileLoader(path).populate(model);

  CHECK(values(w) == std::vector<float>{1.f, -2.5f, 300.f, 0.125f});
  CHECK(gradient(w) == std::vector<float>{0, 0, 0, 0});
  CHECK_FALSE(w.get_storage().has_grad());
  CHECK(values(e) == std::vector<float>{1, 2, 3, 4});
  CHECK(gradient(e) == std::vector<float>{-1, -2, -3, -4});
  CHECK(e.get_storage().has_grad());
  CHECK(values(b) == std::vector<float>{7, -8});
  CHECK(gradient(b) == std::vector<float>{0.5f, 0.25f});
  CHECK(b.get_storage().has_grad());
  CHECK(values(old) == std::vector<float>{4});
  CHECK(gradient(old) == std::vector<float>{1});

  // The loaded gradients are what the next update applies, every row of the table included.
  SimpleSGDTrainer trainer(model, 0.5f);
  trainer.clipping_enabled = false;
  trainer.update();
  CHECK(values(b) == std::vector<float>{6.75f, -8.125f});
  CHECK(values(e) == std::vector<float>{1.5f, 3.f, 4.5f, 6.f});
  CHECK(values(w) == std::vector<float>{1.f, -2.5f, 300.f, 0.125f});
}

TEST_CASE("DyNet's format holds what expressions read: values times the weight-decay factor", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("decayed.model");
  ParameterCollection saved;
  Parameter w = saved.add_parameters({2}, ParameterInitConst(0.f), "w");
  w.set_value({3.f, -5.f});
  saved.get_weight_decay().set_current_weight_decay(0.5f);
  TextFileSaver(path, false, kDyNet).save(saved);
  CHECK(read_file(path) == dynet_text_record("#Parameter# /w {2}", "ZERO_GRAD", {"+1.50000000e+00 -2.50000000e+00 "}));

  // Loaded into a collection whose own factor is 0.25, expressions read what the file holds.
  ParameterCollection loaded;
  Parameter v = loaded.add_parameters({2}, ParameterInitConst(0.f), "w");
  loaded.get_weight_decay().set_current_weight_decay(0.25f);
  TextFileLoader(path).populate(loaded);
  CHECK(values(v) == std::vector<float>{6.f, -10.f});
  ComputationGraph cg;
  CHECK(as_vector(cg.forward(parameter(cg, v))) == std::vector<float>{1.5f, -2.5f});
}

TEST_CASE("DyNet's format writes FULL_GRAD and the gradient when one was accumulated", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("grad.model");
  ParameterCollection model;
  Parameter w = model.add_parameters({2}, ParameterInitConst(1.f), "w");
  LookupParameter e = model.add_lookup_parameters(2, {1}, ParameterInitConst(1.f), "e");
  {
    ComputationGraph cg;
    cg.backward(sum_elems(parameter(cg, w) * 3.f) + lookup(cg, e, 1u) * 2.f);
  }
  TextFileSaver(path, false, kDyNet).save(model);
  CHECK(read_file(path) ==
        dynet_text_record("#Parameter# /w {2}", "FULL_GRAD",
                          {"+1.00000000e+00 +1.00000000e+00 ", "+3.00000000e+00 +3.00000000e+00 "}) +
            dynet_text_record("#LookupParameter# /e {1,2}", "FULL_GRAD",
                              {"+1.00000000e+00 +1.00000000e+00 ", "+0.00000000e+00 +2.00000000e+00 "}));
  ParameterCollection other;
  Parameter w2 = other.add_parameters({2}, ParameterInitConst(0.f));
  LookupParameter e2 = other.add_lookup_parameters(2, {1}, ParameterInitConst(0.f));
  TextFileLoader(path).populate(other);
  CHECK(gradient(w2) == std::vector<float>{3, 3});
  CHECK(gradient(e2) == std::vector<float>{0, 2});
}

TEST_CASE("DyNet's rules for keys: a prefix selects the records, which load in order whatever their names", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("parts.model");
  write_text(path, dynet_text_record("#Parameter# /enc/_0 {2}", "ZERO_GRAD", {"1 2"}) +
                       dynet_text_record("#Parameter# /dec/_0 {1}", "ZERO_GRAD", {"3"}) +
                       dynet_text_record("#LookupParameter# /dec/_1 {1,2}", "ZERO_GRAD", {"4 5"}) +
                       dynet_text_record("#Parameter# /dec/_2 {2}", "ZERO_GRAD", {"6 7"}) +
                       dynet_text_record("#Parameter# /decoder/_0 {3}", "ZERO_GRAD", {"8 9 10"}));
  ParameterCollection model;
  ParameterCollection dec = model.add_subcollection("renamed");
  Parameter first = dec.add_parameters({1}, ParameterInitConst(0.f), "x");
  Parameter second = dec.add_parameters({2}, ParameterInitConst(0.f), "y");
  LookupParameter table = dec.add_lookup_parameters(2, {1}, ParameterInitConst(0.f), "t");
  TextFileLoader(path).populate(dec, "/dec");  // not /decoder/_0: the key is a collection's
  CHECK(values(first) == std::vector<float>{3});
  CHECK(values(second) == std::vector<float>{6, 7});
  CHECK(values(table) == std::vector<float>{4, 5});
  // Without a key, every record of the file is the model's.
  CHECK_THROWS_WITH(TextFileLoader(path).populate(dec),
                    Catch::Contains("holds 4 parameters and 1 lookup parameter, the model (/renamed/) has 2 parameters "
                                    "and 1 lookup parameter"));
  ParameterCollection whole;
  Parameter p1 = whole.add_parameters({2}), p2 = whole.add_parameters({1}), p3 = whole.add_parameters({2}),
            p4 = whole.add_parameters({3});
  LookupParameter t1 = whole.add_lookup_parameters(2, {1});
  TextFileLoader(path).populate(whole);
  CHECK(values(p4) == std::vector<float>{8, 9, 10});
  CHECK(values(t1) == std::vector<float>{4, 5});
}

TEST_CASE("single records of DyNet's format: populate, load_param, load_lookup_param by their keys", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("single.model");
  // DyNet may hold a parameter and a lookup parameter under one key; each call finds its kind.
  write_text(path, dynet_text_record("#LookupParameter# /x {2,1}", "ZERO_GRAD", {"1 2"}) +
                       dynet_text_record("#Parameter# /x {2}", "FULL_GRAD", {"3 4", "0.5 0.5"}) +
                       dynet_text_record("#Parameter# /deep/m {1,2}", "ZERO_GRAD", {"5 6"}));
  TextFileLoader loader(path);
  ParameterCollection model;
  Parameter x = model.add_parameters({2}, ParameterInitConst(0.f), "x");
  loader.populate(x);
  CHECK(values(x) == std::vector<float>{3, 4});
  CHECK(gradient(x) == std::vector<float>{0.5f, 0.5f});
  LookupParameter lx = model.add_lookup_parameters(1, {2}, ParameterInitConst(0.f), "lx");
  loader.populate(lx, "/x");
  CHECK(values(lx) == std::vector<float>{1, 2});
  ParameterCollection sub = model.add_subcollection("sub");
  Parameter m = loader.load_param(sub, "/deep/m");
  CHECK(m.get_fullname() == "/sub/m");
  CHECK(m.dim() == Dim({1, 2}));
  CHECK(values(m) == std::vector<float>{5, 6});
  LookupParameter t = loader.load_lookup_param(sub, "/x");
  CHECK(t.size() == 1);
  CHECK(values(t) == std::vector<float>{1, 2});
  CHECK_THROWS_WITH(loader.load_lookup_param(sub, "/deep/m"),
                    Catch::Contains("as a parameter, not a lookup parameter"));
  CHECK_THROWS_WITH(loader.populate(x, "/none"), Catch::Contains("no record named '/none'"));
}

TEST_CASE("every kind of parameter round-trips through DyNet's format, with gradients and keys", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("every.model");
  ModelOfEveryKind saved{ParameterInitNormal()};
  using limits = std::numeric_limits<float>;
  saved.matrix.set_value({-0.f, limits::denorm_min(), -limits::denorm_min(), limits::min(), limits::max(),
                          -limits::max(), 1.f / 3.f, -1e-38f, 123456.789f, 1e-7f, 0.1f, -2.f / 7.f});
  {
    ComputationGraph cg;
    cg.backward(sum_elems(parameter(cg, saved.tensor)) + sum_elems(lookup(cg, saved.encoder_table, 2u)));
  }
  {
    TextFileSaver saver(path, false, kDyNet);
    saver.save(saved.model, "/model");
    saver.save(saved.encoder);
  }
  TextFileSaver(path, true, kDyNet).save(saved.vector, "/vector");

  ModelOfEveryKind loaded(ParameterInitConst(0.f));
  TextFileLoader(path).populate(loaded.model, "/model");
  CHECK(same_bits(snapshot(loaded.model), snapshot(saved.model)));
  CHECK(gradient(loaded.tensor) == gradient(saved.tensor));
  CHECK(gradient(loaded.encoder_table) == gradient(saved.encoder_table));
  ModelOfEveryKind part(ParameterInitConst(0.f));
  TextFileLoader(path).populate(part.encoder, "/encoder/");
  CHECK(same_bits(snapshot(part.encoder), snapshot(saved.encoder)));
  Parameter v = part.model.add_parameters({7});
  TextFileLoader(path).populate(v, "/vector");
  CHECK(values(v) == values(saved.vector));
}

TEST_CASE("save_dynet_model writes DyNet's format on request, load_dynet_model reads both", "[io]") {
  ScratchFolder folder;
  SmallModel saved;
  saved.w.set_value({1, 2, 3, 4, 5, 6});
  save_dynet_model(folder.file("dynet.model"), &saved.model, kDyNet);
  save_dynet_model(folder.file("own.model"), &saved.model);
  CHECK(read_file(folder.file("dynet.model")).rfind("#Parameter# /model/W {2,3} 97 ZERO_GRAD\n", 0) == 0);
  CHECK(read_file(folder.file("own.model")).rfind("dybatch-file ", 0) == 0);
  for (const char* name : {"dynet.model", "own.model"}) {
    SmallModel loaded;
    load_dynet_model(folder.file(name), &loaded.model);
    CHECK(values(loaded.w) == values(saved.w));
    CHECK(values(loaded.e) == values(saved.e));
  }
}

TEST_CASE("what DyNet's format cannot hold is refused before the file is touched", "[io][errors]") {
  ScratchFolder folder;
  const std::string path = folder.file("refused.model");
  SmallModel m;
  TextFileSaver(path, false, kDyNet).save(m.model);
  const std::string before = read_file(path);
  ParameterCollection spaced;
  Parameter named = spaced.add_parameters({1}, ParameterInitConst(1.f), "a b");
  CHECK_THROWS_WITH(TextFileSaver(path, false, kDyNet).save(spaced),
                    Catch::Contains("cannot hold the record name '/a b'"));
  CHECK_THROWS_AS(TextFileSaver(path, false, kDyNet).save(m.w, "/#w"), std::invalid_argument);
  m.w.set_value({1, 2, std::numeric_limits<float>::quiet_NaN(), 4, 5, 6});
  CHECK_THROWS_WITH(TextFileSaver(path, false, kDyNet).save(m.model),
                    Catch::Contains("value 3 of the values of '/W'") && Catch::Contains("cannot hold"));
  CHECK(read_file(path) == before);
  // The two formats' records do not mix in one file; DyNet's has no binary form.
  CHECK_THROWS_WITH(TextFileSaver(path, true).save(spaced, "/other"),
                    Catch::Contains("it is in DyNet's text format, and this saver writes dybatch's format"));
  CHECK_THROWS_AS(FileSaver(path, ArchiveFormat::Binary, false, kDyNet), std::invalid_argument);
  CHECK(read_file(path) == before);
}
