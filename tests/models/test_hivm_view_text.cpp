//===- test_hivm_view_text.cpp - the program aggregated while it is parsed -===//
//
// The `hivm_work` node reads the hivm_program from its text and adds each
// op record as soon as it is parsed (HivmView::from_text), instead of
// parsing the whole document first (HivmView::from_json). The two must give
// the same perfbound.hivm_work/1 document for every program: the real dumps
// (skipped without ../shared), our own fixtures, the same programs written
// with `ops` before `blocks` (the ops are then held until the parse ends),
// and hand-written ones; and the same errors for broken documents.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <filesystem>
#include <functional>
#include <map>

#include "hivm_view.hpp"
#include "models_test_util.hpp"

namespace m = pb::models;
using modelstest::json;

namespace {

/// The perfbound.hivm_program/1 text the extractor writes for `dump`.
std::string program_text(const std::filesystem::path &dump, const std::string &launch) {
  pbtest::TempDir out;
  std::vector<std::string> argv{"run", (pbtest::source_dir() / "tests" / "extract_hivm" / "data" / "hivm_program.toml").string(),
                                "--set", "hivm=" + dump.string()};
  if (!launch.empty()) argv.insert(argv.end(), {"--set", launch});
  argv.insert(argv.end(), {"--out", out.path().string(), "-q"});
  pbtest::CliResult r = pbtest::run_cli(argv);
  INFO("stderr: " << r.err);
  REQUIRE(r.code == 0);
  return pbtest::read_file(out / "program.json");
}

/// The same program with `ops` first: nlohmann writes members in key
/// order, so `blocks` always precedes `ops` in the extractor's text.
std::string ops_first(const std::string &text) {
  json doc = json::parse(text);
  REQUIRE(doc.contains("ops"));
  json ops = std::move(doc["ops"]);
  doc.erase("ops");
  std::string rest = doc.dump();
  REQUIRE(rest.size() > 2);
  return "{\"ops\":" + ops.dump() + "," + rest.substr(1);
}

/// from_text and from_json agree on `text`, in both member orders.
void check_same(const std::string &text, const std::string &what) {
  CAPTURE(what);
  json by_dom = m::HivmView::from_json(json::parse(text), "p.json").to_work();
  json by_text = m::HivmView::from_text(text, "p.json").to_work();
  CHECK(by_text == by_dom);
  CHECK(m::HivmView::from_text(ops_first(text), "p.json").to_work() == by_dom);
}

std::string error_of(const std::function<void()> &read) {
  try {
    read();
  } catch (const pb::sdk::InputError &e) {
    return e.what();
  }
  return "(no error)";
}

/// from_text and from_json throw the same InputError on `text`.
void check_same_error(const std::string &text, const std::string &expected) {
  CAPTURE(text);
  CHECK(error_of([&] { (void)m::HivmView::from_json(json::parse(text), "p.json"); }) == expected);
  CHECK(error_of([&] { (void)m::HivmView::from_text(text, "p.json"); }) == expected);
}

/// A small program written by hand: one AIV function, a GM load, a vector
/// op, a scalar fallback naming op 2, with `ops` before everything else, and
/// members the view does not read (skipped while parsing) that hold `ops`
/// and `blocks` members of their own.
const char *kOpsFirst = R"({
  "ops": [
    {"id": 0, "line": 10, "op": "hivm.hir.load", "core": "aiv", "class": "dma", "pipes": ["MTE2"], "loc": "k.py:3:4",
     "count": {"min": 2, "value": 2, "exact": true}, "exec": {"bytes": 4096, "path": "gm_to_ub", "src": "gm", "dst": "ub"},
     "block": {"bytes": 8192}, "grid": {"bytes": 65536}, "reads": [{"space": "gm", "kind": "arg"}],
     "instructions": {"issued": 1}},
    7,
    {"id": 2, "line": 12, "op": "hivm.hir.vadd", "core": "aiv", "class": "vector_binary", "pipes": ["V"], "loc": "k.py:5:8",
     "count": {"min": 2, "value": 2, "exact": true}, "exec": {"repeats": 8, "flop": 1024, "dtype": "f32"},
     "block": {"repeats": 16, "flop": 2048}, "instructions": {"issued": 1}},
    {"id": 3, "line": 14, "op": "memref.load", "core": "aiv", "class": "scalar", "scalar_kind": "ub_access",
     "count": {"min": 0, "value": 64, "block_dependent": true, "reason": "depends on the block index"},
     "instructions": {"issued": 1, "scalar": 1}}
  ],
  "estimates": [{"field": "count", "op": 0, "value": "2"}, [1, [2, {"ops": []}]], null],
  "summary": {"ops": {"blocks": 3}, "functions": "x"},
  "fallbacks": [{"line": 14, "op": 2, "name": "memref.load", "cause": "scalar access", "count_per_block": 64},
                {"line": 15, "op": 1, "name": "memref.store", "cause": "scalar access", "count_per_block": 3},
                {"line": 16, "op": 99, "name": "memref.load", "cause": "scalar access", "count_per_block": 1}],
  "functions": [{"name": "@k_mix_aiv", "core": "aiv", "instances_per_block": 2}],
  "blocks": {"value": 8},
  "schema": "perfbound.hivm_program/1",
  "source": {"origin": "k.npuir.mlir"}
})";

}  // namespace

TEST_CASE("hivm_view text: every real dump gives the same work document as the parsed program") {
  PBTEST_REQUIRE_SHARED();
  static const std::map<std::string, std::string> kLaunch = {
      {"chunk_kda.npuir.mlir", R"(launch={grid=[128,32],args={"20"=8192,"22"=8192}})"},
      {"seeded_serial_on.npuir.mlir", R"(launch={grid=[4096],args={"4"=8388608,"5"=65536}})"},
  };
  size_t files = 0;
  for (const auto &entry : std::filesystem::directory_iterator(pbtest::shared_dir() / "data" / "hivm")) {
    if (entry.path().extension() != ".mlir") continue;
    const std::string name = entry.path().filename().string();
    // A lit file of the peer suites ('// -----' sections, names repeated
    // across them) is one program per section: conformance_hivm reads those.
    if (pbtest::read_file(entry.path()).find("\n// -----") != std::string::npos) continue;
    auto it = kLaunch.find(name);
    check_same(program_text(entry.path(), it != kLaunch.end() ? it->second : "launch={grid=[40]}"), name);
    ++files;
  }
  CHECK(files >= 7);  // the four lit files apart
}

TEST_CASE("hivm_view text: our fixtures give the same work document as the parsed program") {
  const std::filesystem::path src = pbtest::source_dir();
  const std::filesystem::path dumps[] = {src / "tests" / "extract_hivm" / "data" / "loaded_bound.npuir.mlir",
                                         src / "tests" / "extract_hivm" / "data" / "uneven_split.npuir.mlir",
                                         src / "tests" / "extract_hivm" / "data" / "vector_add.generic.mlir",
                                         src / "examples" / "kernels" / "vector_add" / "vector_add.npuir.mlir"};
  for (const auto &dump : dumps) {
    // Without launch values (no block count: ops wait for the end when
    // `blocks` comes late) and with a grid.
    check_same(program_text(dump, ""), dump.filename().string() + " (no launch)");
    check_same(program_text(dump, "launch={grid=[48]}"), dump.filename().string());
  }
}

TEST_CASE("hivm_view text: a hand-written program with ops first, non-object records and fallbacks by id") {
  check_same(kOpsFirst, "ops first");
  m::HivmView view = m::HivmView::from_text(kOpsFirst, "p.json");
  CHECK(view.origin == "k.npuir.mlir");
  CHECK(view.blocks == 8);
  CHECK(view.kernel == "k");
  REQUIRE(view.fallbacks.size() == 3);
  // Op 2's core and loc come from the side table after the record is gone;
  // op 1 is not an object (no core), op 99 does not exist (aiv).
  CHECK(view.fallbacks[0].core == "aiv");
  CHECK(view.fallbacks[0].loc == "k.py:5:8");
  CHECK(view.fallbacks[1].core.empty());
  CHECK(view.fallbacks[1].loc.empty());
  CHECK(view.fallbacks[2].core == "aiv");
  CHECK(view.fallback_per_block.at("aiv") == 65);
  REQUIRE(view.find("aiv", "mte2") != nullptr);
  CHECK(view.find("aiv", "mte2")->total().uniform == 8192);

  // `blocks` first: the ops are added while parsing; same document.
  json doc = json::parse(kOpsFirst);
  std::string blocks_first = "{\"blocks\":{\"value\":8}," + doc.dump().substr(1);
  CHECK(m::HivmView::from_text(blocks_first, "p.json").to_work() == view.to_work());
  // No `blocks` at all: no block count, the reason from_json gives.
  doc.erase("blocks");
  check_same(doc.dump(), "no blocks");
  CHECK_FALSE(m::HivmView::from_text(doc.dump(), "p.json").blocks.has_value());
}

TEST_CASE("hivm_view text: a repeated ops or blocks member counts once, the last, as in a parsed document") {
  // nlohmann keeps the last of two equal keys; the text path reads the
  // whole document in that case.
  const std::string repeated_blocks = R"({"blocks": {"value": 2}, "functions": [{"name": "@k", "core": "aiv"}],
    "ops": [{"core": "aiv", "class": "dma", "pipes": ["MTE2"], "count": {"min": 1, "value": 1, "exact": true},
             "exec": {"bytes": 64, "path": "gm_to_ub", "src": "gm", "dst": "ub"}, "grid": {"bytes": 640}}],
    "blocks": {"value": 10}})";
  json work = m::HivmView::from_text(repeated_blocks, "p.json").to_work();
  CHECK(work == m::HivmView::from_json(json::parse(repeated_blocks), "p.json").to_work());
  CHECK(work["blocks"] == 10);
  const std::string repeated_ops = R"({"blocks": {"value": 2}, "functions": [{"name": "@k", "core": "aiv"}],
    "ops": [{"core": "aiv", "class": "dma", "pipes": ["MTE2"], "count": {"min": 1, "value": 1, "exact": true},
             "exec": {"bytes": 64, "path": "gm_to_ub", "src": "gm", "dst": "ub"}}],
    "ops": []})";
  json no_ops = m::HivmView::from_text(repeated_ops, "p.json").to_work();
  CHECK(no_ops == m::HivmView::from_json(json::parse(repeated_ops), "p.json").to_work());
  CHECK(no_ops["components"].empty());
}

TEST_CASE("hivm_view text: broken documents give the errors the parsed path gives") {
  const std::string where = "p.json: perfbound.hivm_program/1";
  check_same_error(R"({"ops": [], "blocks": {"value": 1}})", where + ".functions: missing required member");
  check_same_error(R"({"functions": [{"core": "aiv"}], "blocks": {"value": 1}})", where + ".ops: missing required member");
  check_same_error(R"({"functions": [{"core": "aiv"}], "ops": {"0": {}}})", where + ": 'functions' and 'ops' must be arrays");
  check_same_error(R"({"functions": "aiv", "ops": []})", where + ": 'functions' and 'ops' must be arrays");
  check_same_error(R"({"blocks": {"value": 1}, "ops": [{"core": "aiv"}], "functions": [{"core": "cpu"}]})",
                   where + ": no function runs on an AIC or an AIV core");
  check_same_error(R"([{"functions": [], "ops": []}])", where + ": expected a JSON object");
  // Invalid JSON, after ops were already added: the SDK's json_input message.
  const std::string truncated = R"({"blocks": {"value": 1}, "functions": [{"core": "aiv"}], "ops": [{"core": "aiv"}, {"core")";
  CHECK(error_of([&] { (void)m::HivmView::from_text(truncated, "p.json"); }) == "p.json: input 'hivm' is not valid JSON");
  CHECK(error_of([&] { (void)m::HivmView::from_text("{\"ops\": [] } x", "node.program", "program"); }) ==
        "node.program: input 'program' is not valid JSON");
  CHECK(error_of([&] { (void)m::HivmView::from_text("{\"ops\": [\"\xff\"]}", "p.json"); }) ==
        "p.json: input 'hivm' is not valid JSON");
}
