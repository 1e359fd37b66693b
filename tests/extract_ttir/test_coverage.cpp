//===- test_coverage.cpp - unmodelled ops, scf.while, given facts, locations ===//
//
// On kernels/coverage_forms.ttir (written by us): ops of dialects the
// extractor does not register are opaque, not fatal; scf.while trip counts
// in the affine and single-trip forms; loops bounded by loaded values with
// and without launch.trips / launch.data facts, and the facts the IR refuses;
// the TTIR line and the innermost Python location of every entry. Then every
// TTIR file of ../shared/data/ttir.
//
//===----------------------------------------------------------------------===//
#include <sstream>

#include "json_schema.hpp"
#include "ttir_test_support.hpp"

using namespace ttirtest;

namespace {

const fs::path kForms = kernel_file("coverage_forms.ttir");

/// The 1-based number of the first code line (not a comment) of `path` holding `needle`.
int line_with(const fs::path &path, const std::string &needle) {
  std::istringstream in(pbtest::read_file(path));
  std::string l;
  for (int n = 1; std::getline(in, l); ++n)
    if (l.find(needle) != std::string::npos && l.find("//") == std::string::npos) return n;
  FAIL("no line holds " << needle);
  return 0;
}

json launch_for(const std::string &kernel, std::initializer_list<std::int64_t> grid) {
  return {{"schema", "perfbound.launch/1"}, {"kernel", kernel}, {"grid", json(std::vector<std::int64_t>(grid))}};
}

const json *entry_with(const json &list, const std::string &key, const std::string &needle) {
  for (const json &e : list)
    if (e.value(key, std::string()).find(needle) != std::string::npos) return &e;
  return nullptr;
}

/// Checks `doc` against the published perfbound.dsl_facts/1 schema.
void check_schema(const json &doc) {
  static perfbound::SchemaRegistry registry = [] {
    perfbound::SchemaRegistry loaded;
    std::vector<std::string> problems = loaded.load_dir(pbtest::source_dir() / "abi/schemas");
    for (const std::string &problem : problems) MESSAGE("schema problem: " << problem);
    return loaded;
  }();
  std::vector<std::string> problems = registry.validate("perfbound.dsl_facts/1", doc);
  std::string text;
  for (const std::string &problem : problems) text += problem + "\n";
  CHECK_MESSAGE(problems.empty(), text);
}

/// The message of the InputError build_dsl_facts throws.
std::string refusal(const json &launch) {
  try {
    (void)facts(kForms, launch);
  } catch (const pb::sdk::InputError &e) {
    return e.what();
  }
  FAIL("the launch was accepted: " << launch.dump());
  return "";
}

}  // namespace

TEST_CASE("unregistered dialects: ttg.barrier and an unknown op extract, as not_counted entries") {
  json doc = facts(kForms, launch_for("barrier_add", {4}));
  check_schema(doc);
  const int barrier = line_with(kForms, "ttg.barrier local");
  const int chunk = line_with(kForms, "acme.chunk_count");
  const json &nc = doc.at("not_counted");
  const json *b = entry_with(nc, "op", "ttg.barrier");
  const json *c = entry_with(nc, "op", "acme.chunk_count");
  REQUIRE(b != nullptr);
  REQUIRE(c != nullptr);
  CHECK(b->at("ttir_line") == barrier);
  CHECK(c->at("ttir_line") == chunk);
  CHECK(b->at("reason").get<std::string>().find("dialect 'ttg'") != std::string::npos);
  // The loop runs acme.chunk_count's result times: its work is unknown, not 0.
  const json &add = doc.at("flop").at("vector").at("f32").at("total");
  CHECK(add.at("value").is_null());
  CHECK(doc.at("flop").at("total").at("value").is_null());
  const int loop = line_with(kForms, "scf.for %arg3 = %c0_i32 to %8");
  const json *u = entry_with(doc.at("unresolved"), "what", "trip count of the loop");
  REQUIRE(u != nullptr);
  CHECK(u->at("ttir_line") == loop);
  CHECK(u->at("reason").get<std::string>().find("acme.chunk_count") != std::string::npos);
  CHECK(u->at("hint") == "give trips.\"ttir:" + std::to_string(loop) + "\"");
  // Outside the loop everything is counted: 256 f32 loaded and stored per program.
  CHECK(value(doc.at("bytes").at("read").at("requested").at("total")) == 4 * 256 * 4);
}

TEST_CASE("a trips fact makes the unknown loop count, as a given figure beside the strict one") {
  const int loop = line_with(kForms, "scf.for %arg3 = %c0_i32 to %8");
  json launch = launch_for("barrier_add", {4});
  launch["trips"] = {{"ttir:" + std::to_string(loop), {{"min", 3}}}, {"1234", {{"min", 9}}}};  // HIVM key: ignored
  json doc = facts(kForms, launch);
  check_schema(doc);
  const json &add = doc.at("flop").at("vector").at("f32").at("total");
  CHECK(add.at("value").is_null());  // the strict figure stays
  REQUIRE(add.contains("given"));
  CHECK(add.at("given").at("value") == 4 * 3 * 256);
  CHECK(add.at("given").at("assurance") == "given");
  CHECK(add.at("given").at("facts") == json::array({"trips.\"ttir:" + std::to_string(loop) + "\""}));
  CHECK(doc.at("given").at("used").size() == 1);
  // Quantities the fact does not touch have no given variant.
  CHECK_FALSE(doc.at("bytes").at("read").at("requested").at("total").contains("given"));
  // The text view echoes the fact and shows both figures.
  std::string text = perfbound::ttir::render_dsl_facts(doc, "text").value_or("");
  CHECK_MESSAGE(text.find("Given facts (assurance: given)") != std::string::npos, text);
  CHECK_MESSAGE(text.find("(strict: unknown (") != std::string::npos, text);
  CHECK_MESSAGE(text.find("give trips.\"ttir:" + std::to_string(loop) + "\"") != std::string::npos, text);
  CHECK_MESSAGE(text.find("acme.chunk_count") != std::string::npos, text);
}

TEST_CASE("scf.while: i < n with i += c, a single-trip loop, and one left unknown with its line") {
  json launch = launch_for("while_forms", {1});
  launch["args"] = {{"%arg1", 10}};
  json doc = facts(kForms, launch);
  check_schema(doc);
  const json &loops = doc.at("loops");
  REQUIRE(loops.size() == 6);  // before + after region of each scf.while
  CHECK(loops[0].at("region") == "before");
  CHECK(loops[1].at("region") == "after");
  // i = 0, 4, 8: the body 3 times, the condition 4 times.
  CHECK(loops[1].at("trip_count").at("per_program").at("min") == 3);
  CHECK(loops[1].at("trip_count").at("per_program").at("exact") == true);
  CHECK(loops[0].at("trip_count").at("per_program").at("min") == 4);
  CHECK(loops[3].at("trip_count").at("per_program").at("max") == 1);
  CHECK(loops[5].at("trip_count").at("status") == "unknown");
  const json &acc = doc.at("accesses");
  REQUIRE(acc.size() == 6);
  CHECK(acc[0].at("executions_per_program").at("max") == 3);
  CHECK(acc[2].at("executions_per_program").at("max") == 1);
  // The single-trip body reads x[counter after the first loop]: derived from n.
  CHECK(acc[2].at("offset").get<std::string>().find("%arg1") != std::string::npos);
  CHECK(acc[4].at("executions_per_program").at("max").is_null());
  const int doubling = line_with(kForms, "%7 = scf.while");
  const json *u = entry_with(doc.at("unresolved"), "what", "scf.while");
  REQUIRE(u != nullptr);
  CHECK(u->at("ttir_line") == doubling);
  CHECK(u->at("hint") == "give trips.\"ttir:" + std::to_string(doubling) + "\"");
  CHECK(loops[5].at("trip_pattern").get<std::string>().find("positive constant") != std::string::npos);

  SUBCASE("a trips fact on the unknown while counts its body") {
    launch["trips"] = {{"ttir:" + std::to_string(doubling), {{"min", 3}, {"max", 4}}}};
    json given = facts(kForms, launch);
    const json &e = given.at("accesses")[4].at("executions_per_program");
    CHECK(e.at("max").is_null());
    CHECK(e.at("given").at("min") == 3);
  }
  SUBCASE("a fact the IR contradicts is refused with the file and line") {
    const int affine = line_with(kForms, "%0 = scf.while");
    launch["trips"] = {{"ttir:" + std::to_string(affine), {{"min", 5}}}};
    std::string message = refusal(launch);
    CHECK_MESSAGE(message.find(kForms.string() + ":" + std::to_string(affine) + ": launch.trips.\"ttir:") !=
                      std::string::npos,
                  message);
    CHECK_MESSAGE(message.find("runs 3 times") != std::string::npos, message);
  }
}

TEST_CASE("a loop bounded by loaded values: unknown without facts, counted with data or trips") {
  const int loop = line_with(kForms, "%6 = scf.for %arg3 = %2 to %5");
  json launch = launch_for("segment_sum", {3});
  json strict = facts(kForms, launch);
  const json &inner = strict.at("accesses")[2];  // x[i] inside the loop
  REQUIRE(inner.at("arg_key") == "%arg0");
  CHECK(inner.at("executions_per_program").at("max").is_null());
  CHECK(strict.at("loops")[0].at("trip_count").at("status") == "data-dependent");
  const json *u = entry_with(strict.at("unresolved"), "what", "trip count of the loop");
  REQUIRE(u != nullptr);
  CHECK(u->at("ttir_line") == loop);
  CHECK(u->at("hint") == "give trips.\"ttir:" + std::to_string(loop) + "\"");

  SUBCASE("data: the offsets of each segment, as an array") {
    launch["data"] = {{"%arg1", {0, 64, 128, 200}}};
    json doc = facts(kForms, launch);
    check_schema(doc);
    const json &e = doc.at("accesses")[2].at("executions_per_program");
    CHECK(e.at("max").is_null());  // strict stays
    CHECK(e.at("given").at("min") == 64);
    CHECK(e.at("given").at("max") == 72);
    CHECK(e.at("given").at("facts") == json::array({"data.%arg1"}));
    CHECK(doc.at("accesses")[2].at("requested_bytes").at("total").at("given").at("value") == 200 * 4);
    CHECK(doc.at("given").at("unresolved").size() < strict.at("unresolved").size());
  }
  SUBCASE("data from a .npy file (little-endian i4)") {
    pbtest::TempDir tmp;
    std::string header = "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }";
    header.append(128 - 10 - header.size() - 1, ' ');  // magic + header: a multiple of 64 bytes
    header += '\n';
    std::string bytes = std::string("\x93NUMPY\x01\x00", 8);
    bytes += static_cast<char>(header.size());
    bytes += '\0';
    bytes += header;
    for (std::int32_t v : {0, 64, 128, 200}) bytes.append(reinterpret_cast<const char *>(&v), 4);
    pbtest::write_file(tmp / "cu_seqlens.npy", bytes);
    launch["data"] = {{"%arg1", {{"npy", (tmp / "cu_seqlens.npy").string()}}}};
    json doc = facts(kForms, launch);
    CHECK(doc.at("accesses")[2].at("requested_bytes").at("total").at("given").at("value") == 200 * 4);
  }
  SUBCASE("trips: a minimum per entry") {
    launch["trips"] = {{"ttir:" + std::to_string(loop), {{"min", 50}}}};
    json doc = facts(kForms, launch);
    CHECK(doc.at("accesses")[2].at("requested_bytes").at("total").at("given").at("value") == 3 * 50 * 4);
  }
  SUBCASE("trips: a sum over the grid") {
    launch["trips"] = {{"ttir:" + std::to_string(loop), {{"sum", 200}, {"over", "grid"}}}};
    json doc = facts(kForms, launch);
    CHECK(doc.at("accesses")[2].at("requested_bytes").at("total").at("given").at("value") == 200 * 4);
  }
  SUBCASE("refusals: a load beyond the given data, a line without a loop, a fact above the data") {
    launch["data"] = {{"%arg1", {0, 64, 128}}};
    std::string message = refusal(launch);
    const int end_load = line_with(kForms, "%5 = tt.load %4");
    CHECK_MESSAGE(message.find(kForms.string() + ":" + std::to_string(end_load) + ": launch.data.%arg1") !=
                      std::string::npos,
                  message);
    CHECK_MESSAGE(message.find("element 3") != std::string::npos, message);
    launch.erase("data");
    launch["trips"] = {{"ttir:" + std::to_string(end_load), {{"min", 1}}}};
    message = refusal(launch);
    CHECK_MESSAGE(message.find(kForms.string() + ":" + std::to_string(end_load) + ":") != std::string::npos, message);
    CHECK_MESSAGE(message.find("no scf.for or scf.while") != std::string::npos, message);
    launch["data"] = {{"%arg1", {0, 64, 128, 200}}};
    launch["trips"] = {{"ttir:" + std::to_string(loop), {{"min", 70}}}};
    message = refusal(launch);
    CHECK_MESSAGE(message.find("min = 70, but the loop at this line runs 64 times") != std::string::npos, message);
  }
}

TEST_CASE("locations: the TTIR line and the innermost Python location, labelled in unresolved") {
  json doc = facts(kForms, launch_for("located_loop", {1}));
  check_schema(doc);
  const int load = line_with(kForms, "%0 = tt.load %arg1");
  const int loop = line_with(kForms, "scf.for %arg2 = %c0_i32 to %0");
  const json &count_load = doc.at("accesses")[0];
  // `source` is the kernel's line (the caller); python_loc the inlined callee.
  CHECK(count_load.at("source").at("line") == 12);
  CHECK(count_load.at("ttir_line") == load);
  CHECK(count_load.at("python_loc") == "/work/lib.py:40:12");
  CHECK(doc.at("loops")[0].at("ttir_line") == loop);
  CHECK(doc.at("loops")[0].at("python_loc") == "/work/k.py:13:4");
  const json *u = entry_with(doc.at("unresolved"), "what", "trip count of the loop");
  REQUIRE(u != nullptr);
  CHECK(u->at("line") == 13);
  CHECK(u->at("line_is") == "python");
  CHECK(u->at("ttir_line") == loop);
  CHECK(u->at("python_loc") == "/work/k.py:13:4");
  // Without Python locations the line is the TTIR line, and says so.
  json nolocs = facts(kForms, launch_for("barrier_add", {1}));
  const json *v = entry_with(nolocs.at("unresolved"), "what", "trip count of the loop");
  REQUIRE(v != nullptr);
  CHECK(v->at("line_is") == "ttir");
  CHECK(v->at("python_loc").is_null());
}

TEST_CASE("every TTIR file in ../shared/data/ttir extracts, and every unresolved entry has a TTIR line") {
  PBTEST_REQUIRE_SHARED();
  const fs::path dir = pbtest::shared_dir() / "data" / "ttir";
  size_t documents = 0;
  for (const fs::directory_entry &entry : fs::directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() == ".md") continue;
    const std::string origin = entry.path().string();
    CAPTURE(origin);
    auto module = perfbound::ttir::analyze_ttir(pbtest::read_file(entry.path()), origin);
    if (!module) {
      CHECK_MESSAGE(module.error().message.find("pre-3.0 TTIR is not supported") != std::string::npos,
                    module.error().message);
      continue;
    }
    for (const perfbound::ttir::KernelModel &k : module->kernels) {
      if (!k.is_public) continue;
      json launch{{"schema", "perfbound.launch/1"}, {"grid", {2}}, {"kernel", k.name + ":" + std::to_string(k.ttir_line)}};
      CAPTURE(k.name);
      json doc;
      CHECK_NOTHROW(doc = perfbound::ttir::build_dsl_facts(*module, k, launch, profile_910b3(), {}));
      if (doc.is_null()) continue;
      ++documents;
      check_schema(doc);
      for (const json &u : doc.at("unresolved")) CHECK_MESSAGE(u.at("ttir_line").is_number_integer(), u.dump());
      for (const json &n : doc.at("not_counted")) CHECK_MESSAGE(n.at("ttir_line").is_number_integer(), n.dump());
    }
  }
  CHECK(documents >= 13);
}
