// A damaged file in DyNet's text format is refused with an error naming the file, the record and
// the problem, and the live model keeps every value and gradient: every truncation, wrong value
// counts, wrong dims, non-numbers, missing and extra records, byte counts that do not match.

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "dynet_core/dynet_text_record.h"
#include "dynet_core/graph.h"
#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/io/whole_file.h"
#include "dynet_core/load_refusal.h"
#include "dynet_core/ops/all_ops.h"
#include "scratch_folder.h"

using namespace dynet;

namespace {

const std::string kW = dynet_text_record("#Parameter# /W {2,3}", "ZERO_GRAD",
                                         {"+1.00000000e+00 +2.00000000e+00 +3.00000000e+00 +4.00000000e+00 "
                                          "+5.00000000e+00 +6.00000000e+00 "});
const std::string kB = dynet_text_record("#Parameter# /enc/b {2}", "FULL_GRAD",
                                         {"+1.00000000e+00 +2.00000000e+00 ", "+5.00000000e-01 +2.50000000e-01 "});
const std::string kE = dynet_text_record("#LookupParameter# /enc/E {2,3}", "ZERO_GRAD",
                                         {"+5.00000000e-01 -1.00000000e+00 +2.00000000e+00 +2.50000000e-01 "
                                          "-3.00000000e+00 +1.00000001e-07 "});

// The model the file is for, with values and gradients a refused load must keep.
struct Target {
  ParameterCollection model;
  Parameter w = model.add_parameters({2, 3}, ParameterInitConst(9.f), "W");
  ParameterCollection enc = model.add_subcollection("enc");
  Parameter b = enc.add_parameters({2}, ParameterInitConst(9.f), "b");
  LookupParameter e = enc.add_lookup_parameters(3, {2}, ParameterInitConst(9.f), "E");

  Target() {
    ComputationGraph cg;
    cg.backward(sum_elems(parameter(cg, w)) + sum_elems(parameter(cg, b)) + sum_elems(lookup(cg, e, 1u)));
  }
};

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

}  // namespace

TEST_CASE("the undamaged DyNet file loads, so that each refusal below is the damage's", "[io]") {
  ScratchFolder folder;
  write_file_atomically(folder.file("m"), kW + kB + kE);
  Target t;
  TextFileLoader(folder.file("m")).populate(t.model);
  CHECK(as_vector(t.b.get_storage().values) == std::vector<float>{1, 2});
  CHECK(as_vector(t.b.get_storage().g) == std::vector<float>{0.5f, 0.25f});
}

TEST_CASE("every truncation of a DyNet file is refused, the model untouched", "[io][errors]") {
  ScratchFolder folder;
  const std::string path = folder.file("cut.model");
  const std::string whole = kW + kB + kE;
  Target t;
  for (std::size_t length = 1; length < whole.size(); ++length) {
    write_file_atomically(path, whole.substr(0, length));
    const std::string message = load_refusal(t.model, [&] { TextFileLoader(path).populate(t.model); });
    INFO("length " << length << " of " << whole.size() << ": " << message);
    REQUIRE(message.find("'" + path + "'") != std::string::npos);
    // A cut between records leaves whole records, too few for the model; any other cut is inside one.
    const bool between_records = whole[length - 1] == '\n' && whole[length] == '#';
    REQUIRE(message.find(between_records ? "; a file in DyNet's format loads in order" : "is truncated") !=
            std::string::npos);
  }
}

TEST_CASE("damaged DyNet records are refused, naming the file, the record and the problem", "[io][errors]") {
  ScratchFolder folder;
  const std::string path = folder.file("damaged.model");
  struct Damage {
    const char* what;
    std::string file;
    std::vector<std::string> said;
  };
  const std::string six = "+1 +2 +3 +4 +5 +6 ";
  const Damage damages[] = {
      {"too few values",
       dynet_text_record("#Parameter# /W {2,3}", "ZERO_GRAD", {"1 2 3 4 5"}) + kB + kE,
       {"record 1 ('#Parameter# /W {2,3} 10 ZERO_GRAD', line 1)", "values line holds 5 numbers; its dim {2,3} has 6"}},
      {"too many values",
       dynet_text_record("#Parameter# /W {2,3}", "ZERO_GRAD", {six + "7"}) + kB + kE,
       {"record 1", "holds 7 numbers"}},
      {"a short gradient line",
       kW + dynet_text_record("#Parameter# /enc/b {2}", "FULL_GRAD", {"1 2", "3"}) + kE,
       {"record 2 ('#Parameter# /enc/b {2} 6 FULL_GRAD', line 3)", "gradient line holds 1 number;"}},
      {"a FULL_GRAD record marked ZERO_GRAD",
       kW + replaced(kB, "FULL_GRAD", "ZERO_GRAD") + kE,
       {"record 2", "announces 66 bytes of value lines, the 1 line that follows holds 33"}},
      {"a byte count one too large",
       replaced(kW, " 97 ", " 98 ") + kB + kE,
       {"record 1", "announces 98 bytes of value lines, the 1 line that follows holds 97"}},
      {"a byte count one too small",
       kW + kB + replaced(kE, " 97 ", " 96 "),
       {"record 3 ('#LookupParameter# /enc/E {2,3} 96 ZERO_GRAD', line 6)", "announces 96 bytes"}},
      {"a byte count that is no number",
       replaced(kW, " 97 ", " 9x7 ") + kB + kE,
       {"record 1", "byte count '9x7' is not a number"}},
      {"a letter in a number",
       replaced(kW + kB + kE, "+3.00000000e+00", "+3.0000000O0+00"),
       {"record 1", "value 3 of its values line, '+3.0000000O0+00', is not a number"}},
      {"a word for a number",
       kW + dynet_text_record("#Parameter# /enc/b {2}", "FULL_GRAD", {"1 2", "0.5 half"}) + kE,
       {"record 2", "value 2 of its gradient line, 'half', is not a number"}},
      {"two signs",
       dynet_text_record("#Parameter# /W {2,3}", "ZERO_GRAD", {"1 2 +-3 4 5 6"}) + kB + kE,
       {"value 3 of its values line, '+-3', is not a number"}},
      {"a NaN",
       dynet_text_record("#Parameter# /W {2,3}", "ZERO_GRAD", {"1 2 3 nan 5 6"}) + kB + kE,
       {"value 4 of its values line, 'nan', is not finite"}},
      {"a float out of range",
       dynet_text_record("#Parameter# /W {2,3}", "ZERO_GRAD", {"1 2 3 4 5 1e39"}) + kB + kE,
       {"value 6 of its values line, '1e39', is outside the range of a float"}},
      {"a dim that is no dim",
       replaced(kW, "{2,3}", "{2,x}") + kB + kE,
       {"record 1", "its dim '{2,x}' is not of the form {d1,d2,...}"}},
      {"a parameter of size 0 with values",
       replaced(kW, "{2,3}", "{0,3}") + kB + kE,
       {"its values line holds 6 numbers; its dim {0,3} has 0"}},
      {"a lookup table of 0 rows",
       kW + kB + replaced(kE, "{2,3}", "{2,0}"),
       {"record 3", "its dim {2,0} has 0 rows; a lookup parameter has at least one"}},
      {"a lookup table of rows of size 0 with values",
       kW + kB + replaced(kE, "{2,3}", "{0,3}"),
       {"record 3", "its values line holds 6 numbers; its dim {0,3} has 0"}},
      {"a lookup dim without rows",
       kW + kB + dynet_text_record("#LookupParameter# /enc/E {}", "ZERO_GRAD", {""}),
       {"record 3", "has no row count"}},
      {"an unknown record kind",
       kW + replaced(kB, "#Parameter#", "#Parameters#") + kE,
       {"record 2", "starts with '#Parameters#', not #Parameter# or #LookupParameter#"}},
      {"an unknown gradient field",
       replaced(kW, "ZERO_GRAD", "NO_GRAD") + kB + kE,
       {"record 1", "last field 'NO_GRAD' is neither ZERO_GRAD nor FULL_GRAD"}},
      {"a field too many", replaced(kW, "ZERO_GRAD", "ZERO_GRAD x") + kB + kE, {"record 1", "header has 6 fields"}},
      {"a blank line after the last record", kW + kB + kE + "\n", {"record 4 ('', line 8)", "starts with ''"}},
      {"a record of other dims",
       replaced(kW, "{2,3}", "{3,2}") + kB + kE,
       {"holds '/W' as a parameter of dim {3,2}, but the model's '/W' is a parameter of dim {2,3}"}},
      {"a table of other rows",
       kW + kB + replaced(kE, "{2,3}", "{3,2}"),
       {"holds '/enc/E' as a lookup parameter of 2 rows of dim {3}",
        "model's '/enc/E' is a lookup parameter of 3 rows"}},
      {"a missing record", kW + kE, {"holds 1 parameter and 1 lookup parameter, the model (/) has 2 parameters"}},
      {"a missing table", kW + kB, {"holds 2 parameters and 0 lookup parameters"}},
      {"a record too many", kW + kB + kE + kB, {"holds 3 parameters and 1 lookup parameter"}},
  };
  for (const Damage& damage : damages) {
    INFO(damage.what);
    write_file_atomically(path, damage.file);
    Target t;
    const std::string message = load_refusal(t.model, [&] { TextFileLoader(path).populate(t.model); });
    INFO(message);
    CHECK(message.find("model file '" + path + "'") != std::string::npos);
    for (const std::string& said : damage.said) CHECK(message.find(said) != std::string::npos);
  }
}

TEST_CASE("single records of a damaged DyNet file are refused, nothing added to the model", "[io][errors]") {
  ScratchFolder folder;
  const std::string path = folder.file("damaged.model");
  write_file_atomically(path, kW + kB + replaced(kE, " 97 ", " 95 "));
  Target t;
  TextFileLoader loader(path);
  CHECK_THAT(load_refusal(t.model, [&] { loader.populate(t.w); }), Catch::Contains("record 3"));
  CHECK_THAT(load_refusal(t.model, [&] { loader.populate(t.e); }), Catch::Contains("announces 95 bytes"));
  CHECK_THAT(load_refusal(t.model, [&] { loader.load_param(t.model, "/W"); }), Catch::Contains(path));
  CHECK_THAT(load_refusal(t.model, [&] { loader.load_lookup_param(t.model, "/enc/E"); }), Catch::Contains(path));
  CHECK(t.model.parameters_list().size() == 2);
  CHECK(t.model.lookup_parameters_list().size() == 1);
}
