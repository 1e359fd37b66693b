//===- test_golden.cpp - the TTIR front end's output, byte for byte -------===//
//
// A golden comparison: for every TTIR input we have, the perfbound.dsl_facts/1
// document the plugin emits (plugin.cpp: analyze_ttir + select_kernel +
// build_dsl_facts, 910B3 profile, default node params) and its text and
// Markdown renderings are serialized and hashed (64-bit FNV-1a + length);
// the hashes must equal tests/extract_ttir/golden/manifest.txt. It guards
// refactorings of plugins/extract_ttir that must not change any output.
//
// Inputs: every TTIR file (.ttir, or .mlir holding `tt.func`) under
// ../shared/data but data/peer (skipped with a message when ../shared is
// absent; peer/ is tests/conformance/ttir's corpus), every file
// in tests/extract_ttir/kernels and tests/extract_ttir/syntax, every
// examples/kernels/*/*.ttir.mlir, and each TTIR case of
// tests/corpus/shared_corpus.toml with its own launch. Origins are paths
// relative to the checkout (or to ../shared), so the manifest does not depend
// on where the tree lives.
//
// Launches for files without one are derived from the kernel's signature:
// every kernel of the file (launch.kernel = "NAME:LINE"), grid [45, 3, 2],
// each scalar argument a value from its position and divisibility hint (see
// derived_launch). Where the strict document names loops with unknown trip
// counts (hint `give trips."ttir:N"`), a second case gives each of them
// trips = {min = 3}. A case whose analysis or evaluation fails is hashed as
// "error: MESSAGE".
//
// On a mismatch the case is named and its actual text is written to
// <build>/tests/extract_ttir/golden_actual/<case>.txt for diffing;
// PERFBOUND_GOLDEN_DUMP=1 writes the text of every case there (run it on the
// old tree first to diff a change case by case).
// To regenerate the manifest after an intended change of output, run
//   PERFBOUND_GOLDEN_UPDATE=1 build/bin/perfbound_ttir_tests -tc='golden*'
// with ../shared present, and commit the manifest with the change.
//
//===----------------------------------------------------------------------===//
#include <toml++/toml.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "ttir_test_support.hpp"

using namespace ttirtest;

namespace {

/// 64-bit FNV-1a of `text`, as 16 hex digits followed by the length.
std::string fingerprint(const std::string &text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return std::string(buf) + " " + std::to_string(text.size());
}

/// One input file: where it is read from and the origin it is analyzed under.
struct Input {
  fs::path path;
  std::string origin;  // relative to the checkout, or "shared/..." for ../shared
  bool shared = false;
};

struct Case {
  std::string id;  // the manifest key
  std::string text;
  bool shared = false;
};

std::string facts_text(const json &doc) {
  std::string out = doc.dump(1) + "\n";
  for (const char *format : {"text", "md"}) {
    std::optional<std::string> r = perfbound::ttir::render_dsl_facts(doc, format);
    out += std::string("--- render ") + format + "\n" + (r ? *r : std::string("(none)")) + "\n";
  }
  return out;
}

/// The output of the plugin's node for one launch, or "error: ..." as the node would fail.
std::string run_case(const perfbound::ttir::TtirModule &module, const json &launch, json *doc_out = nullptr) {
  try {
    const perfbound::ttir::KernelModel &kernel = perfbound::ttir::select_kernel(module, launch);
    json doc = perfbound::ttir::build_dsl_facts(module, kernel, launch, profile_910b3(), {});
    std::string text = facts_text(doc);
    if (doc_out != nullptr) *doc_out = std::move(doc);
    return text;
  } catch (const std::exception &e) {
    return std::string("error: ") + e.what() + "\n";
  }
}

/// A launch for a kernel without one: grid [45, 3, 2] (several waves on 40
/// cores, every axis > 1) and every scalar argument a value from its position:
/// integers a multiple of their divisibility hint, i1 true, floats 0.5.
json derived_launch(const perfbound::ttir::KernelModel &k) {
  json args = json::object();
  for (const perfbound::ttir::KernelArg &a : k.args) {
    if (a.kind != perfbound::ttir::ArgKind::Scalar) continue;
    const std::string key = "%arg" + std::to_string(a.index);
    if (a.is_float) {
      args[key] = 0.5;
    } else if (a.element_bits == 1) {
      args[key] = true;
    } else if (a.divisibility > 0) {
      args[key] = a.divisibility * (4 + a.index % 5);
    } else {
      args[key] = 100 + 37 * a.index;
    }
  }
  return {{"schema", "perfbound.launch/1"},
          {"kernel", k.name + ":" + std::to_string(k.ttir_line)},
          {"grid", {45, 3, 2}},
          {"args", args}};
}

/// The loop lines of `give trips."ttir:N"` hints in a document's unresolved list.
std::vector<std::string> trips_hints(const json &doc) {
  std::set<std::string> keys;
  static const std::regex hint(R"(give trips\."(ttir:[0-9]+)\")");
  if (doc.contains("unresolved"))
    for (const json &u : doc["unresolved"]) {
      std::string h = u.value("hint", "");
      std::smatch m;
      if (std::regex_search(h, m, hint)) keys.insert(m[1].str());
    }
  return {keys.begin(), keys.end()};
}

/// Every case of one file with derived launches.
void derived_cases(const Input &in, std::vector<Case> &out) {
  auto module = perfbound::ttir::analyze_ttir(pbtest::read_file(in.path), in.origin);
  if (!module) {
    out.push_back({in.origin, "error: " + module.error().message + "\n", in.shared});
    return;
  }
  for (const perfbound::ttir::KernelModel &k : module->kernels) {
    const std::string id = in.origin + "#" + k.name + ":" + std::to_string(k.ttir_line);
    json launch = derived_launch(k);
    json doc;
    out.push_back({id, run_case(*module, launch, &doc), in.shared});
    std::vector<std::string> hints = trips_hints(doc);
    if (hints.empty()) continue;
    for (const std::string &key : hints) launch["trips"][key] = {{"min", 3}};
    out.push_back({id + "+trips", run_case(*module, launch), in.shared});
  }
}

/// The TTIR cases of tests/corpus/shared_corpus.toml, with their launches.
void corpus_cases(std::vector<Case> &out) {
  const fs::path manifest = pbtest::source_dir() / "tests" / "corpus" / "shared_corpus.toml";
  toml::table tbl = toml::parse_file(manifest.string());
  const toml::array *cases = tbl["case"].as_array();
  REQUIRE(cases != nullptr);
  for (const toml::node &node : *cases) {
    const toml::table &c = *node.as_table();
    std::optional<std::string> ttir = c["inputs"]["ttir"].value<std::string>();
    if (!ttir) continue;
    const std::string name = c["name"].value_or(std::string());
    REQUIRE_MESSAGE(ttir->rfind("manifest:", 0) == 0, "corpus case " << name << ": only manifest: TTIR paths are handled");
    const fs::path path = (manifest.parent_path() / ttir->substr(9)).lexically_normal();
    const std::string origin = fs::relative(path, pbtest::source_dir()).generic_string();
    json launch = json::object();
    if (const toml::table *l = c["launch"].as_table()) {
      std::ostringstream os;
      os << toml::json_formatter{*l};
      launch = json::parse(os.str());
    }
    launch["schema"] = "perfbound.launch/1";
    auto module = perfbound::ttir::analyze_ttir(pbtest::read_file(path), origin);
    std::string text = module ? run_case(*module, launch) : "error: " + module.error().message + "\n";
    out.push_back({"corpus:" + name, text, false});
  }
}

bool is_ttir_file(const fs::path &p) {
  const std::string name = p.filename().string();
  auto ends = [&](const char *s) {
    std::string suffix(s);
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends(".ttir")) return true;
  return ends(".mlir") && pbtest::read_file(p).find("tt.func") != std::string::npos;
}

/// The regular files under `dir` (sorted), TTIR ones only when `only_ttir`.
std::vector<fs::path> files_under(const fs::path &dir, bool only_ttir) {
  std::vector<fs::path> out;
  for (const auto &e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && (!only_ttir || is_ttir_file(e.path()))) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Case> all_cases(bool with_shared) {
  std::vector<Input> inputs;
  const fs::path src = pbtest::source_dir();
  for (const char *sub : {"kernels", "syntax"})
    for (const fs::path &p : files_under(test_dir() / sub, false))
      inputs.push_back({p, fs::relative(p, src).generic_string(), false});
  for (const fs::path &p : files_under(src / "examples" / "kernels", false))
    if (p.filename().string().find(".ttir") != std::string::npos)
      inputs.push_back({p, fs::relative(p, src).generic_string(), false});
  // ../shared/data/peer (other projects' lit tests, hundreds of kernels) is
  // the conformance corpus of tests/conformance/ttir, not part of the golden set.
  if (with_shared)
    for (const fs::path &p : files_under(pbtest::shared_dir() / "data", true))
      if (fs::relative(p, pbtest::shared_dir() / "data").begin()->string() != "peer")
        inputs.push_back({p, "shared/" + fs::relative(p, pbtest::shared_dir()).generic_string(), true});
  std::vector<Case> cases;
  for (const Input &in : inputs) derived_cases(in, cases);
  corpus_cases(cases);
  return cases;
}

fs::path manifest_path() { return test_dir() / "golden" / "manifest.txt"; }

/// The manifest: case id -> (fingerprint, whether it reads ../shared).
std::map<std::string, std::pair<std::string, bool>> read_manifest() {
  std::map<std::string, std::pair<std::string, bool>> out;
  for (const std::string &line : pbtest::lines(pbtest::read_file(manifest_path()))) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    std::string id, hash, size;
    ss >> id >> hash >> size;
    out[id] = {hash + " " + size, id.rfind("shared/", 0) == 0};
  }
  return out;
}

std::string safe_name(const std::string &id) {
  std::string out = id;
  for (char &c : out)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  return out;
}

}  // namespace

TEST_CASE("golden: dsl_facts of every TTIR input are unchanged") {
  const bool shared = pbtest::have_shared();
  const char *update = std::getenv("PERFBOUND_GOLDEN_UPDATE");
  std::vector<Case> cases = all_cases(shared);
  if (update != nullptr && std::string(update) == "1") {
    REQUIRE_MESSAGE(shared, "PERFBOUND_GOLDEN_UPDATE needs ../shared (the manifest covers its files)");
    std::string text =
        "# tests/extract_ttir/test_golden.cpp: case, FNV-1a 64 of the output, its length.\n"
        "# Regenerate: PERFBOUND_GOLDEN_UPDATE=1 build/bin/perfbound_ttir_tests -tc='golden*'\n";
    for (const Case &c : cases) text += c.id + " " + fingerprint(c.text) + "\n";
    pbtest::write_file(manifest_path(), text);
    MESSAGE("wrote " << manifest_path().string() << " (" << cases.size() << " cases)");
    return;
  }
  if (!shared)
    MESSAGE("SKIPPED (part): ../shared not found at " << pbtest::shared_dir().string()
                                                      << " (set PERFBOUND_SHARED_DIR); its TTIR files are not compared");
  auto manifest = read_manifest();
  REQUIRE_MESSAGE(!manifest.empty(), "no manifest at " << manifest_path().string());
  const fs::path actual_dir = pbtest::binary_dir() / "tests" / "extract_ttir" / "golden_actual";
  std::set<std::string> seen;
  int mismatches = 0;
  const char *dump = std::getenv("PERFBOUND_GOLDEN_DUMP");
  for (const Case &c : cases) {
    seen.insert(c.id);
    if (dump != nullptr && std::string(dump) == "1") pbtest::write_file(actual_dir / (safe_name(c.id) + ".txt"), c.text);
    auto it = manifest.find(c.id);
    const std::string got = fingerprint(c.text);
    if (it != manifest.end() && it->second.first == got) continue;
    ++mismatches;
    const fs::path file = actual_dir / (safe_name(c.id) + ".txt");
    pbtest::write_file(file, c.text);
    if (it == manifest.end())
      FAIL_CHECK("golden: case " << c.id << " is not in the manifest; its output is in " << file.string());
    else
      FAIL_CHECK("golden: " << c.id << ": expected " << it->second.first << ", got " << got
                                << "; the actual output is in " << file.string());
  }
  for (const auto &[id, entry] : manifest)
    if ((shared || !entry.second) && seen.count(id) == 0)
      FAIL_CHECK("golden: manifest case " << id << " was not produced (input removed or renamed?)");
  CHECK(mismatches == 0);
  MESSAGE(cases.size() << " golden cases compared");
}
