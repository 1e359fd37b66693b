//===- test_golden.cpp - the extractor's documents stay byte-identical -----===//
//
// A refactoring guard: for every HIVM input we have, the perfbound.hivm_program/1
// text the plugin would write (plugin.cpp: the 910B3 profile of
// hardware_profiles/ascend_910b3 through apply_profile, the launch through
// apply_launch, import_des or analyze_text, then to_json_text) is hashed
// (64-bit FNV-1a and the byte length) and compared with the committed manifest
// tests/extract_hivm/golden/manifest.txt, one line per run:
//
//   <input id> <launch id> <fnv1a-64 hex> <bytes>
//
// Inputs: every file under ../shared/data/hivm (recursively; skipped with a
// message when ../shared is absent), tests/extract_hivm/data/**/*.mlir (each
// function of a lit file also on its own: launch "kernel.NAME:LINE"),
// examples/kernels/**/*.npuir.mlir, and each case of
// tests/corpus/shared_corpus.toml with its launch values. Every input runs
// without a launch ("none"); the inputs below also run with the launches,
// facts (trips, data) and budgets the other tests use, including launches
// the extractor refuses: a refusal's "document" is the line
// `error <line>:<col> <message>`. The input id is the path relative to the
// checkout ("shared/data/..." for ../shared) and is also the document's
// source.origin, so the manifest does not depend on where the checkout is.
//
// On a mismatch the test names the run and writes the actual text to
// <build>/golden_actual/<input id>.<launch id>.json; to see what changed,
// build the previous revision, run it with the same variable, and diff.
//
// Regenerate the manifest (only after a change that is meant to change the
// documents, and say so in the commit):
//
//   PERFBOUND_GOLDEN_UPDATE=1 build/bin/perfbound_extract_hivm_tests -tc='golden*'
//
// An update needs ../shared, so that no line is silently dropped.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <cstdio>
#include <map>
#include <sstream>

#include <toml++/toml.h>

#include "des_import.hpp"
#include "document.hpp"
#include "hivm_test_util.hpp"
#include "profile.hpp"

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

/// One way to run an input: a launch document (null: none) and budget overrides.
struct Launch {
  std::string id;
  json doc;
  uint64_t enumeration_budget = 0;  // 0: the default
  uint64_t grid_budget = 0;
};

struct Input {
  std::string id;  // relative to the checkout; "shared/data/..." for ../shared
  fs::path path;
  bool shared = false;
  std::vector<Launch> launches;
};

uint64_t fnv1a(std::string_view text) {
  uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

std::string hex64(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

/// The launches the other extract_hivm tests use, by input id (beyond "none").
std::map<std::string, std::vector<Launch>> test_launches() {
  auto j = [](const char *text) { return json::parse(text); };
  const json vector_add = j(R"({"grid":[8192],"args":{"3":16777216}})");
  const json vector_add_tail = j(R"({"grid":[8193],"args":{"3":16777217}})");
  const json kda = j(R"({"grid":[128,32]})");
  const json gap2 = j(R"({"grid":[2048],"args":{"2":2048}})");
  std::map<std::string, std::vector<Launch>> m;
  m["examples/kernels/vector_add/vector_add.npuir.mlir"] = {{"n16m", vector_add}, {"n16m+1", vector_add_tail}};
  m["tests/extract_hivm/data/vector_add.generic.mlir"] = {{"n16m", vector_add}, {"n16m+1", vector_add_tail}};
  m["examples/kernels/varlen_rows/varlen_rows.npuir.mlir"] = {
      {"grid4.data0", j(R"({"grid":[4],"data":{"0":[0,64,192,224,480]}})")},
      {"grid4.trips27", j(R"({"grid":[4],"trips":{"27":{"min":32}}})")}};
  m["tests/extract_hivm/data/uneven_split.npuir.mlir"] = {
      {"grid8", j(R"({"grid":[8]})")},
      {"grid8.grid_budget1", j(R"({"grid":[8]})"), 0, 1},
      {"trips26.min64", j(R"({"grid":[8],"trips":{"26":{"min":64}}})")},
      {"trips34.max2", j(R"({"grid":[8],"trips":{"34":{"max":2}}})")}};
  m["tests/extract_hivm/data/loaded_bound.npuir.mlir"] = {
      {"grid4", j(R"({"grid":[4]})")},
      {"trips22.min2", j(R"({"grid":[4],"trips":{"22":{"min":2}}})")},
      {"trips22.keyed", j(R"({"grid":[4],"trips":{"hivm:22":{"min":2},"ttir:7":{"min":1}}})")},
      {"trips22.sum_block", j(R"({"grid":[4],"trips":{"22":{"sum":6,"over":"block"}}})")},
      {"trips22.sum_grid", j(R"({"grid":[4],"trips":{"22":{"sum":12,"over":"grid"}}})")},
      {"trips23", j(R"({"grid":[4],"trips":{"23":{"min":1}}})")},
      {"data0", j(R"({"grid":[4],"data":{"0":[3,1,4,1]}})")},
      {"data0.trips22", j(R"({"grid":[4],"trips":{"22":{"min":2}},"data":{"0":[3,2,4,2]}})")},
      {"data0.trips22.clash", j(R"({"grid":[4],"trips":{"22":{"min":2}},"data":{"0":[3,1,4,1]}})")},
      {"data0.short", j(R"({"grid":[4],"data":{"0":[3]}})")},
      {"data7", j(R"({"grid":[4],"data":{"7":[1]}})")},
      {"data2.scalar", j(R"({"grid":[4],"data":{"2":[1]}})")},
      {"data.named", j(R"({"grid":[4],"data":{"counts":[1,1,1,1]}})")}};
  m["shared/data/hivm/chunk_kda.npuir.mlir"] = {{"grid128x32", kda}, {"grid128x32.budget64", kda, 64, 1}};
  m["shared/data/hivm/seeded_serial_on.npuir.mlir"] = {
      {"test", j(R"({"grid":[4096],"args":{"4":8388608,"5":65536}})")}};
  m["shared/data/hivm/seeded_gap2_strided.npuir.mlir"] = {{"test", gap2}};
  m["shared/data/hivm/seeded_gap2_coalesced.npuir.mlir"] = {{"test", gap2}};
  return m;
}

std::string relative_id(const fs::path &path, bool &shared) {
  const fs::path canon = fs::weakly_canonical(path);
  const fs::path shared_root = fs::weakly_canonical(pbtest::shared_dir());
  const fs::path source_root = fs::weakly_canonical(pbtest::source_dir());
  auto under = [&](const fs::path &root) {
    auto rel = canon.lexically_relative(root);
    return !rel.empty() && *rel.begin() != ".." ? rel.generic_string() : std::string();
  };
  if (std::string r = under(shared_root); !r.empty()) {
    shared = true;
    return "shared/" + r;
  }
  shared = false;
  std::string r = under(source_root);
  return r.empty() ? canon.generic_string() : r;
}

/// Every input with its launches, sorted by id.
std::vector<Input> collect_inputs() {
  std::map<std::string, Input> inputs;
  auto add = [&](const fs::path &path) -> Input & {
    bool shared = false;
    std::string id = relative_id(path, shared);
    Input &in = inputs[id];
    if (in.id.empty()) in = Input{id, path, shared, {{"none", json()}}};
    return in;
  };
  auto files_under = [](const fs::path &dir, auto keep) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    for (const auto &e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && keep(e.path())) out.push_back(e.path());
    return out;
  };
  auto ends_with = [](const fs::path &p, std::string_view suffix) {
    const std::string s = p.filename().string();
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  for (const fs::path &p : files_under(pbtest::shared_dir() / "data" / "hivm",
                                       [&](const fs::path &q) { return ends_with(q, ".mlir") || ends_with(q, ".json"); }))
    add(p);
  for (const fs::path &p : files_under(fs::path(PB_HIVM_TEST_DATA), [&](const fs::path &q) { return ends_with(q, ".mlir"); }))
    add(p);
  for (const fs::path &p : files_under(pbtest::source_dir() / "examples" / "kernels",
                                       [&](const fs::path &q) { return ends_with(q, ".npuir.mlir"); }))
    add(p);
  // A lit file is cut into its inputs (split = auto): each function is run on
  // its own, chosen by launch.kernel = "NAME:LINE" (a run without one lists them).
  for (auto &[id, in] : inputs) {
    if (in.path.extension() != ".mlir") continue;
    for (const std::string &kernel : hivmtest::kernels_of(pbtest::read_file(in.path)))
      if (!kernel.empty()) in.launches.push_back({"kernel." + kernel, json{{"kernel", kernel}}});
  }
  for (auto &[id, launches] : test_launches()) {
    auto it = inputs.find(id);
    if (it == inputs.end()) continue;  // a ../shared input when ../shared is absent
    for (Launch &l : launches) it->second.launches.push_back(std::move(l));
  }
  // The validation corpus: each case's hivm input with its launch values.
  const fs::path corpus = pbtest::source_dir() / "tests" / "corpus" / "shared_corpus.toml";
  const toml::table manifest = toml::parse_file(corpus.string());
  const fs::path data_root = pbtest::shared_dir() / "data";
  if (const toml::array *cases = manifest["case"].as_array())
    for (const toml::node &node : *cases) {
      const toml::table &c = *node.as_table();
      const auto hivm = c["inputs"]["hivm"].value<std::string>();
      if (!hivm) continue;
      const std::string prefix = "manifest:";
      const fs::path path = hivm->rfind(prefix, 0) == 0 ? corpus.parent_path() / hivm->substr(prefix.size())
                                                        : data_root / *hivm;
      std::error_code ec;
      if (!fs::is_regular_file(path, ec)) continue;  // ../shared absent
      json launch;
      if (const toml::table *t = c["launch"].as_table()) {
        std::ostringstream os;
        os << toml::json_formatter{*t};
        launch = json::parse(os.str());
      }
      add(path).launches.push_back({"corpus." + c["name"].value_or(std::string("?")), launch});
    }
  std::vector<Input> out;
  for (auto &[id, in] : inputs) out.push_back(std::move(in));
  return out;
}

const json &profile_910b3() {
  static const json doc = [] {
    perfbound::ProfileLoad load = perfbound::load_profile(pbtest::source_dir() / "hardware_profiles" / "ascend_910b3");
    REQUIRE_MESSAGE(!load.diagnostics.has_errors(), load.diagnostics.format());
    return load.document;
  }();
  return doc;
}

/// The document text plugin.cpp writes for this run, or `error <line>:<col> <message>`.
std::string document_text(const Input &in, const Launch &l) {
  const std::string text = pbtest::read_file(in.path);
  pb::hivm::AnalysisOptions options;
  pb::hivm::apply_profile(profile_910b3(), options);
  try {
    if (!l.doc.is_null()) pb::hivm::apply_launch(l.doc, options);
    if (l.enumeration_budget) options.enumeration_budget = l.enumeration_budget;
    if (l.grid_budget) options.grid_budget = l.grid_budget;
    pb::hivm::Program program =
        pb::hivm::looks_like_des(text) ? pb::hivm::import_des(text, options) : pb::hivm::analyze_text(text, options);
    return pb::hivm::to_json_text(program, {in.id, text.size()}, options);
  } catch (const pb::hivm::SourceError &e) {
    return "error " + std::to_string(e.line()) + ":" + std::to_string(e.col()) + " " + e.what();
  } catch (const std::exception &e) {
    return std::string("error 0:0 ") + e.what();
  }
}

fs::path manifest_path() { return pbtest::source_dir() / "tests" / "extract_hivm" / "golden" / "manifest.txt"; }

/// "<input id> <launch id>" -> "<hash> <bytes>".
std::map<std::string, std::string> read_manifest() {
  std::map<std::string, std::string> out;
  std::istringstream in(pbtest::read_file(manifest_path()));
  std::string input, launch, hash, bytes;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    ls >> input >> launch >> hash >> bytes;
    out[input + " " + launch] = hash + " " + bytes;
  }
  return out;
}

}  // namespace

TEST_CASE("golden: every HIVM input gives the document the manifest records, byte for byte") {
  const bool update = std::getenv("PERFBOUND_GOLDEN_UPDATE") != nullptr;
  const bool shared = pbtest::have_shared();
  if (!shared) {
    MESSAGE("SKIPPED for ../shared inputs: ../shared not found at " << pbtest::shared_dir().string()
                                                                    << " (set PERFBOUND_SHARED_DIR); only our fixtures are compared");
    REQUIRE_MESSAGE(!update, "PERFBOUND_GOLDEN_UPDATE needs ../shared, or the manifest would lose its lines");
  }
  const std::map<std::string, std::string> expected = read_manifest();
  std::map<std::string, std::string> actual;
  for (const Input &in : collect_inputs())
    for (const Launch &l : in.launches) {
      const std::string key = in.id + " " + l.id;
      const std::string text = document_text(in, l);
      const std::string value = hex64(fnv1a(text)) + " " + std::to_string(text.size());
      actual[key] = value;
      if (update) continue;
      auto it = expected.find(key);
      if (it != expected.end() && it->second == value) continue;
      const fs::path out = pbtest::binary_dir() / "golden_actual" / (key.substr(0, key.find(' ')) + "." + l.id + ".json");
      pbtest::write_file(out, text);
      CHECK_MESSAGE(false, key << ": " << (it == expected.end() ? "not in the manifest" : "expected " + it->second)
                               << ", got " << value << "; the text is in " << out.string());
    }
  if (update) {
    std::ostringstream os;
    os << "# perfbound.hivm_program/1 text per input and launch: <input id> <launch id> <fnv1a-64> <bytes>\n"
       << "# Written by PERFBOUND_GOLDEN_UPDATE=1 perfbound_extract_hivm_tests -tc='golden*' (test_golden.cpp).\n";
    for (const auto &[key, value] : actual) os << key << " " << value << "\n";
    pbtest::write_file(manifest_path(), os.str());
    MESSAGE("wrote " << actual.size() << " lines to " << manifest_path().string());
    return;
  }
  for (const auto &[key, value] : expected) {
    if (actual.count(key)) continue;
    if (!shared && key.rfind("shared/", 0) == 0) continue;
    CHECK_MESSAGE(false, key << ": in the manifest but no longer run (an input or launch was removed?)");
  }
  CHECK(actual.size() >= (shared ? 40u : 20u));
}
