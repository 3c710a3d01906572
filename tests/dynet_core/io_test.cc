// Saving and loading through DyNet's API: exact round trips in both archive formats, keys and
// subcollections, single parameters, load_param, appending, and usage errors.

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <vector>

#include "dynet_core/io/savers_and_loaders.h"
#include "dynet_core/io/whole_file.h"
#include "dynet_core/model_of_every_kind.h"
#include "scratch_folder.h"

using namespace dynet;

namespace {

struct Format {
  const char* name;
  std::unique_ptr<Saver> (*saver)(const std::string& path, bool append);
  std::unique_ptr<Loader> (*loader)(const std::string& path);
};

const Format kFormats[] = {
    {"text",
     [](const std::string& p, bool a) -> std::unique_ptr<Saver> { return std::make_unique<TextFileSaver>(p, a); },
     [](const std::string& p) -> std::unique_ptr<Loader> { return std::make_unique<TextFileLoader>(p); }},
    {"binary",
     [](const std::string& p, bool a) -> std::unique_ptr<Saver> { return std::make_unique<BinaryFileSaver>(p, a); },
     [](const std::string& p) -> std::unique_ptr<Loader> { return std::make_unique<BinaryFileLoader>(p); }},
};

}  // namespace

TEST_CASE("every kind of parameter round-trips bit for bit", "[io]") {
  ScratchFolder folder;
  for (const Format& format : kFormats) {
    INFO(format.name);
    ModelOfEveryKind saved{ParameterInitNormal()};
    saved.set_extreme_values();
    const std::string path = folder.file(std::string("model.") + format.name);
    format.saver(path, false)->save(saved.model);

    ModelOfEveryKind loaded(ParameterInitConst(0.f));
    format.loader(path)->populate(loaded.model);
    CHECK(same_bits(snapshot(loaded.model), snapshot(saved.model)));
  }
}

TEST_CASE("the binary archive is smaller than the text one", "[io]") {
  ScratchFolder folder;
  ModelOfEveryKind m{ParameterInitNormal()};
  TextFileSaver(folder.file("m.txt")).save(m.model);
  BinaryFileSaver(folder.file("m.bin")).save(m.model);
  CHECK(read_file(folder.file("m.bin")).size() < read_file(folder.file("m.txt")).size());
}

TEST_CASE("a subcollection is saved under its name or a key, and loaded into another model", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("parts.model");
  ModelOfEveryKind a{ParameterInitNormal()}, b{ParameterInitNormal()};
  {
    TextFileSaver saver(path);
    saver.save(a.encoder);             // stored as /encoder/W, /encoder/table
    saver.save(b.encoder, "/second");  // stored as /second/W, /second/table
  }
  ParameterCollection other;
  ParameterCollection first = other.add_subcollection("encoder");
  Parameter w1 = first.add_parameters({2, 2}, 0.f, "W");
  LookupParameter t1 = first.add_lookup_parameters(3, {2, 2}, "table");
  ParameterCollection second = other.add_subcollection("renamed");
  Parameter w2 = second.add_parameters({2, 2}, 0.f, "W");
  LookupParameter t2 = second.add_lookup_parameters(3, {2, 2}, "table");

  TextFileLoader loader(path);
  loader.populate(first);
  loader.populate(second, "/second/");
  CHECK(as_vector(*w1.values()) == as_vector(*a.encoder_w.values()));
  CHECK(as_vector(t1.get_storage().all_values) == as_vector(a.encoder_table.get_storage().all_values));
  CHECK(as_vector(*w2.values()) == as_vector(*b.encoder_w.values()));
  CHECK(as_vector(t2.get_storage().all_values) == as_vector(b.encoder_table.get_storage().all_values));
  // "/second" and "/second/" are the same key; "/sec" is not a prefix of a collection.
  CHECK_NOTHROW(loader.populate(second, "/second"));
  CHECK_THROWS_WITH(loader.populate(second, "/sec"), Catch::Contains("nothing under the key '/sec/'"));
  // A part of a saved model loads into a model made of that part only.
  ModelOfEveryKind c{ParameterInitNormal()};
  BinaryFileSaver(folder.file("whole.model")).save(c.model);
  BinaryFileLoader(folder.file("whole.model")).populate(first, "/encoder/");
  CHECK(as_vector(*w1.values()) == as_vector(*c.encoder_w.values()));
}

TEST_CASE("with no key, a file holding nothing under the model's name loads in order, as DyNet's populate", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("root.model");
  ParameterCollection saved;
  Parameter w = saved.add_parameters({2, 3}, ParameterInitNormal());
  LookupParameter table = saved.add_lookup_parameters(4, {3}, ParameterInitNormal());
  TextFileSaver(path).save(saved);  // stored as /_0 and /_1
  // A larger model holding the same parameters in a subcollection, under other names.
  ParameterCollection larger;
  larger.add_parameters({5}, 0.f);
  ParameterCollection encoder = larger.add_subcollection("encoder");
  Parameter w2 = encoder.add_parameters({2, 3}, 0.f, "W");
  LookupParameter table2 = encoder.add_lookup_parameters(4, {3}, ParameterInitConst(0.f), "E");
  TextFileLoader(path).populate(encoder);
  CHECK(as_vector(*w2.values()) == as_vector(*w.values()));
  CHECK(as_vector(table2.get_storage().all_values) == as_vector(table.get_storage().all_values));
  // Counts and dims are still checked, and a refusal leaves the model as it was.
  ParameterCollection other = larger.add_subcollection("other");
  Parameter wrong = other.add_parameters({3, 2}, ParameterInitConst(1.f));
  other.add_lookup_parameters(4, {3}, ParameterInitConst(1.f));
  CHECK_THROWS_WITH(TextFileLoader(path).populate(other), Catch::Contains("{3,2}"));
  CHECK(as_vector(*wrong.values()) == std::vector<float>(6, 1.f));
  ParameterCollection fewer = larger.add_subcollection("fewer");
  fewer.add_parameters({2, 3}, ParameterInitConst(1.f));
  CHECK_THROWS_WITH(TextFileLoader(path).populate(fewer), Catch::Contains("loads in order"));
  // Records under the model's own name, or a key, keep dybatch's rule: by name ('/_0' is the
  // root's {5}).
  CHECK_THROWS_WITH(TextFileLoader(path).populate(larger), Catch::Contains("is a parameter of dim {5}"));
  CHECK_THROWS_WITH(TextFileLoader(path).populate(encoder, "/encoder/"), Catch::Contains("nothing under the key"));
}

TEST_CASE("single parameters: save, populate, load_param, load_lookup_param", "[io]") {
  ScratchFolder folder;
  for (const Format& format : kFormats) {
    INFO(format.name);
    const std::string path = folder.file(std::string("params.") + format.name);
    ModelOfEveryKind m{ParameterInitNormal()};
    {
      std::unique_ptr<Saver> saver = format.saver(path, false);
      saver->save(m.matrix);
      saver->save(m.embeddings, "/emb");
      saver->save(m.tensor, "/deep/t");
    }
    std::unique_ptr<Loader> loader = format.loader(path);
    ParameterCollection fresh;
    Parameter matrix = fresh.add_parameters({3, 4}, 0.f, "matrix");
    loader->populate(matrix);
    CHECK(as_vector(*matrix.values()) == as_vector(*m.matrix.values()));
    LookupParameter emb = fresh.add_lookup_parameters(5, {3}, "emb");
    loader->populate(emb);
    CHECK(as_vector(emb.get_storage().all_values) == as_vector(m.embeddings.get_storage().all_values));

    ParameterCollection target;
    ParameterCollection sub = target.add_subcollection("sub");
    Parameter t = loader->load_param(sub, "/deep/t");
    CHECK(t.get_fullname() == "/sub/t");
    CHECK(t.dim() == Dim({2, 3, 2}));
    CHECK(as_vector(*t.values()) == as_vector(*m.tensor.values()));
    LookupParameter e = loader->load_lookup_param(target, "/emb");
    CHECK(e.get_fullname() == "/emb");
    CHECK(e.size() == 5);
    CHECK(as_vector(e.get_storage().all_values) == as_vector(m.embeddings.get_storage().all_values));

    CHECK_THROWS_WITH(loader->load_param(target, "/emb"), Catch::Contains("as a lookup parameter, not a parameter"));
    CHECK_THROWS_WITH(loader->load_lookup_param(target, "/nothing"), Catch::Contains("no record named '/nothing'"));
    CHECK_THROWS_AS(loader->load_param(target, ""), std::invalid_argument);
    CHECK_THROWS_AS(loader->load_param(target, "/deep/"), std::invalid_argument);
    CHECK(target.parameters_list().size() == 1);
    CHECK(target.lookup_parameters_list().size() == 1);
  }
}

TEST_CASE("appending keeps what the file holds, a name is saved once", "[io]") {
  ScratchFolder folder;
  const std::string path = folder.file("appended.model");
  ModelOfEveryKind a{ParameterInitNormal()}, b{ParameterInitNormal()};
  TextFileSaver(path).save(a.model, "/a/");
  TextFileSaver(path, true).save(b.model, "/b/");
  const std::string both = read_file(path);

  ModelOfEveryKind loaded(ParameterInitConst(0.f));
  TextFileLoader(path).populate(loaded.model, "/a/");
  CHECK(same_bits(snapshot(loaded.model), snapshot(a.model)));
  TextFileLoader(path).populate(loaded.model, "/b/");
  CHECK(same_bits(snapshot(loaded.model), snapshot(b.model)));

  CHECK_THROWS_WITH(TextFileSaver(path, true).save(b.model, "/b/"), Catch::Contains("two records named '/b/scalar'"));
  TextFileSaver saver(path);
  saver.save(a.matrix);
  CHECK_THROWS_AS(saver.save(a.matrix), std::invalid_argument);
  CHECK_THROWS_WITH(saver.save(a.matrix, "/m/"), Catch::Contains("names a collection"));
  CHECK(read_file(path) != both);
  // Without `append` the first save replaces the file: only /matrix is left.
  ParameterCollection only;
  Parameter matrix = only.add_parameters({3, 4}, 0.f, "matrix");
  TextFileLoader(path).populate(only);
  CHECK(as_vector(*matrix.values()) == as_vector(*a.matrix.values()));

  // An empty file holds nothing to keep: appending starts it, as DyNet's dy.save relies on (it
  // empties its data file, then appends each object), in either format.
  for (ModelFileFormat format : {ModelFileFormat::Dybatch, ModelFileFormat::DyNet}) {
    const std::string empty = folder.file("empty.model");
    write_file_atomically(empty, "");
    TextFileSaver(empty, true, format).save(a.model, "/a/");
    ModelOfEveryKind reloaded(ParameterInitConst(0.f));
    TextFileLoader(empty).populate(reloaded.model, "/a/");
    CHECK(same_bits(snapshot(reloaded.model), snapshot(a.model)));
  }
}

TEST_CASE("a loader refuses the other archive format", "[io][errors]") {
  ScratchFolder folder;
  ModelOfEveryKind m{ParameterInitNormal()};
  TextFileSaver(folder.file("t.model")).save(m.model);
  BinaryFileSaver(folder.file("b.model")).save(m.model);
  CHECK_THROWS_WITH(BinaryFileLoader(folder.file("t.model")).populate(m.model),
                    Catch::Contains("t.model") && Catch::Contains("holds a text archive, not a binary one"));
  CHECK_THROWS_WITH(TextFileLoader(folder.file("b.model")).populate(m.model),
                    Catch::Contains("holds a binary archive, not a text one"));
  CHECK_THROWS_WITH(TextFileLoader(folder.file("missing.model")).populate(m.model),
                    Catch::Contains("missing.model") && Catch::Contains("No such file"));
}

// Examples once wrote the vocabularies, then the model: a refused vocabulary left a new model
// beside old vocabularies, or the reverse.
TEST_CASE("a model and its vocabularies are saved all or nothing", "[io][dict]") {
  ScratchFolder folder;
  ModelOfEveryKind saved{ParameterInitNormal()};
  Dict words;
  words.convert("a b");
  words.set_unk("<unk>");
  const std::string model = folder.file("m.model"), vocab = folder.file("m.model.vocab");
  save_model_and_dicts(model, saved.model, vocab, {{"words", &words}});
  ModelOfEveryKind loaded(ParameterInitConst(0.f));
  TextFileLoader(model).populate(loaded.model);
  CHECK(same_bits(snapshot(loaded.model), snapshot(saved.model)));
  Dict loaded_words;
  load_dicts(vocab, {{"words", &loaded_words}});
  CHECK(loaded_words.get_words() == words.get_words());

  // Either file failing to be written leaves both old files as they were, and no temporary file.
  const std::string old_model = read_file(model), old_vocab = read_file(vocab);
  words.convert("new");
  ModelOfEveryKind other{ParameterInitConst(1.f)};
  CHECK_THROWS_WITH(save_model_and_dicts(model, other.model, folder.file("missing/m.vocab"), {{"words", &words}}),
                    Catch::Contains("missing/m.vocab"));
  CHECK_THROWS_WITH(save_model_and_dicts(folder.file("missing/m.model"), other.model, vocab, {{"words", &words}}),
                    Catch::Contains("missing/m.model"));
  CHECK(read_file(model) == old_model);
  CHECK(read_file(vocab) == old_vocab);
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder.path())) files += entry.is_regular_file();
  CHECK(files == 2);
}
