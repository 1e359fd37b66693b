//===- test_limits.cpp - the host refuses hostile input with a message ----===//
//
// Issue 17: input files only from regular files and up to a stated size,
// UTF-8 checked where text is read, parameters inside their declared range
// (ABI 1.2), pipelines within their limits, --out never aborting on bytes
// that are not UTF-8.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>
#include <perfbound/sdk/input_file.hpp>
#include <perfbound/sdk/json.hpp>

#include "engine.hpp"
#include "paths.hpp"
#include "pipeline.hpp"
#include "plugin_loader.hpp"
#include "profile.hpp"
#include "support/test_support.hpp"

using namespace perfbound;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Catalog {
  Logger logger;
  HostServices services{logger};
  PluginRegistry plugins{services};
  Catalog() {
    logger.set_writer([](const std::string &) {});
    plugins.discover({{pbtest::plugin_dir("good"), "--plugin-path"}});
  }
  PluginCatalog catalog() {
    PluginCatalog c;
    c.find = [this](std::string_view id) { return plugins.find(id); };
    c.ids = plugins.ids();
    return c;
  }
  /// Lint messages of a pipeline text (empty when it resolves).
  std::string lint(const std::string &text, const std::vector<Override> &overrides = {}) {
    Diagnostics diags;
    auto p = parse_pipeline_text(text, "test.toml", diags);
    if (p) (void)resolve_pipeline(std::move(*p), catalog(), overrides, ResolveMode::Check, &locate_profile, diags);
    return diags.format();
  }
};

std::string scaled(const std::string &scale) {
  return "version = 1\n[nodes.a]\nplugin = \"perfbound_test.good\"\nkind = \"source\"\n"
         "[nodes.t]\nplugin = \"perfbound_test.good\"\nkind = \"add\"\nparams = { scale = " +
         scale + " }\ninputs = { terms = [\"a.out\"] }\n[outputs]\nt = \"t.out\"\n";
}

}  // namespace

TEST_CASE("a number parameter outside its declared range is refused by lint, naming node, parameter and range") {
  Catalog c;
  CHECK(c.lint(scaled("3.0")).empty());
  const std::string prefix = "test.toml:8:12: error: node 't': parameter 'scale' of perfbound_test.good/add must be ";
  CHECK(c.lint(scaled("0.0")) == prefix + ">= 1e-06 and <= 1000000, got 0\n");
  CHECK(c.lint(scaled("-1.0")) == prefix + ">= 1e-06 and <= 1000000, got -1\n");
  CHECK(c.lint(scaled("1e-308")) == prefix + ">= 1e-06 and <= 1000000, got 1e-308\n");
  CHECK(c.lint(scaled("nan")) == prefix + "a finite number, got nan\n");
  CHECK(c.lint(scaled("inf")) == prefix + "a finite number, got inf\n");
  CHECK(c.lint(scaled("-inf")) == prefix + "a finite number, got -inf\n");
  // --set values go through the same check.
  CHECK(c.lint(scaled("3.0"), {{"t.scale", "0"}}).find("parameter 'scale' of perfbound_test.good/add must be >= 1e-06") !=
        std::string::npos);
  // An exclusive maximum: delay.ms < 600000.
  const std::string delay =
      "version = 1\n[nodes.a]\nplugin = \"perfbound_test.good\"\nkind = \"source\"\n[nodes.d]\nplugin = \"perfbound_test.good\"\n"
      "kind = \"delay\"\nparams = { ms = 600000 }\ninputs = { in = \"a.out\" }\n[outputs]\nd = \"d.out\"\n";
  CHECK(c.lint(delay).find("parameter 'ms' of perfbound_test.good/delay must be >= 0 and < 600000, got 600000") != std::string::npos);
}

TEST_CASE("ranges are described, written to manifests and read back; nonsense ranges are descriptor violations") {
  Catalog c;
  const PluginInfo *good = c.plugins.find("perfbound_test.good");
  REQUIRE(good != nullptr);
  const ParamInfo *scale = good->find_kind("add")->find_param("scale");
  REQUIRE(scale != nullptr);
  CHECK(scale->minimum == 1e-6);
  CHECK(scale->maximum == 1e6);
  CHECK_FALSE(scale->minimum_exclusive);
  const ParamInfo *ms = good->find_kind("delay")->find_param("ms");
  CHECK(ms->maximum_exclusive);
  // The manifest the build wrote carries the range (described_by manifest).
  CHECK(good->described_by == "manifest");

  auto probed = probe_library(pbtest::plugin_dir("bad_descriptor") / "libpbtest_bad_descriptor.so", c.services, true);
  REQUIRE(probed.ok());
  const std::vector<std::string> &v = probed->violations;
  for (const char *expected : {"kind 'Broken-Kind' params 'rate': the range >= 2 and <= 1 is empty",
                               "kind 'Broken-Kind' params 'label': a range (minimum_json/maximum_json) is only meaningful on an int or float parameter",
                               "kind 'Broken-Kind' params 'issue': the default must be > 0, got 0"}) {
    INFO(expected);
    CHECK(std::find(v.begin(), v.end(), expected) != v.end());
  }
  // `old` has ABI 1.1's struct_size: its unparsable range is never read.
  for (const std::string &m : v) CHECK(m.find("'old'") == std::string::npos);
}

TEST_CASE("input files: only regular files, only up to the stated size, UTF-8 with line and column") {
  std::string error;
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(pb::sdk::read_input_file("/dev/zero", pb::sdk::kMaxConfigFileBytes, error));
  CHECK(error == "not a regular file (a device, FIFO or socket is never read as input)");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(1));
  pbtest::TempDir tmp;
  CHECK_FALSE(pb::sdk::read_input_file(tmp.path(), 100, error));
  CHECK(error == "is a directory, not a file");
  pbtest::write_file(tmp / "big.txt", std::string(101, 'x'));
  CHECK_FALSE(pb::sdk::read_input_file(tmp / "big.txt", 100, error));
  CHECK(error == "101 bytes is more than the limit of 100 bytes for this kind of input");
  CHECK(pb::sdk::read_input_file(tmp / "big.txt", 101, error) == std::string(101, 'x'));

  CHECK(pb::sdk::utf8_error_message("a = 1\nb = \"\xC3\xA9\"\nc = \"\xFF\"\n", "f.toml") ==
        "f.toml:3:6: invalid UTF-8 byte 0xFF (the file must be UTF-8 text)");
  CHECK(pb::sdk::utf8_error_message("\xE2\x82", "f") == "f:1:1: invalid UTF-8 byte 0xE2 (the file must be UTF-8 text)");
  CHECK(pb::sdk::utf8_error_message("\xC0\xAF", "f").find("0xC0") != std::string::npos);      // overlong
  CHECK(pb::sdk::utf8_error_message("\xED\xA0\x80", "f").find(":1:2:") != std::string::npos);  // surrogate
  CHECK(pb::sdk::utf8_error_message("plain \xE2\x82\xAC text", "f").empty());

  std::string deep(300, '[');
  CHECK(pb::sdk::json_depth_error("{\"a\": \n" + deep, "t.json") == "t.json:2:256: JSON arrays and objects nested deeper than 256 levels");
  CHECK(pb::sdk::json_depth_error("[\"[[[[[[[\"]", "t.json", 2).empty());

  // Not JSON: the line and column of the first error json::parse would report, whatever its kind.
  CHECK(pb::sdk::json_syntax_error_message("{\"a\": [1,\n 2,", "t.json") ==
        "t.json:2:4: not valid JSON: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal");
  CHECK(pb::sdk::json_syntax_error_message("{\"a\":\n\n   1e999}", "t.json") == "t.json:3:8: not valid JSON: number overflow parsing '1e999'");
  CHECK(pb::sdk::json_syntax_error_message("{\"a\": tru}", "t.json") ==
        "t.json:1:10: not valid JSON: syntax error while parsing value - invalid literal; last read: '\"a\": tru}'");
  CHECK(pb::sdk::json_syntax_error_message("", "t.json").find("t.json:1:1: not valid JSON: ") == 0);
  CHECK(pb::sdk::json_syntax_error_message("{\"a\": [1, 2]}", "t.json").empty());
  CHECK(pb::sdk::json_syntax_error("[1] 2") == "line 1, column 5: syntax error while parsing value - unexpected number literal; expected end of input");
}

TEST_CASE("a pipeline file that is not UTF-8, not regular, or too large is refused naming the file") {
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "p.toml", "version = 1\n# caf\xFF\n");
  Diagnostics diags;
  CHECK_FALSE(parse_pipeline_file(tmp / "p.toml", diags));
  CHECK(diags.format() == (tmp / "p.toml").string() + ":2:6: error: invalid UTF-8 byte 0xFF (the file must be UTF-8 text)\n");
  Diagnostics dev;
  CHECK_FALSE(parse_pipeline_file("/dev/zero", dev));
  CHECK(dev.format().find("cannot read pipeline file: not a regular file") != std::string::npos);
}

TEST_CASE("a pipeline past its limits is refused: 100k term references in one port") {
  Catalog c;
  std::string text = "version = 1\n[nodes.a]\nplugin = \"perfbound_test.good\"\nkind = \"source\"\n"
                     "[nodes.t]\nplugin = \"perfbound_test.good\"\nkind = \"add\"\ninputs = { terms = [";
  for (int idx = 0; idx < 100000; ++idx) text += idx == 0 ? "\"a.out\"" : ",\"a.out\"";
  text += "] }\n";
  auto start = std::chrono::steady_clock::now();
  std::string out = c.lint(text);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  CHECK(out.find("test.toml:8:20: error: node 't': input 'terms' lists 100000 connections, more than the limit of 4096 per port") !=
        std::string::npos);
}

TEST_CASE("a profile whose calibration_file is /dev/zero fails fast with a message") {
  pbtest::TempDir tmp;
  // The directory keeps the profile's name (a profile is found by it).
  const fs::path dir = tmp / "calibration_above_peak";
  fs::copy(pbtest::test_source_dir() / "profiles" / "fixtures" / "calibration_above_peak", dir);
  std::string profile = pbtest::read_file(dir / "profile.toml");
  size_t at = profile.find("\"calibration.json\"");
  REQUIRE(at != std::string::npos);
  profile.replace(at, std::string("\"calibration.json\"").size(), "\"../../../../../../../../dev/zero\"");
  pbtest::write_file(dir / "profile.toml", profile);
  auto start = std::chrono::steady_clock::now();
  ProfileLoad load = load_profile(dir);
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  CHECK(load.diagnostics.has_errors());
  CHECK(load.diagnostics.format().find("key 'calibration_file': '" + dir.string() +
                                       "/../../../../../../../../dev/zero': not a regular file") != std::string::npos);
}

TEST_CASE("a document input nested too deep or not UTF-8 is refused at its line and column") {
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "p.toml", "version = 1\n[inputs]\nconfig = { kind = \"document\", schema = \"perfbound_test.config/1\" }\n"
                                     "[nodes.t]\nplugin = \"perfbound_test.good\"\nkind = \"table_value\"\n"
                                     "inputs = { config = \"inputs.config\" }\n[outputs]\nx = \"t.out\"\n");
  pbtest::write_file(tmp / "deep.json", std::string(100000, '[') + std::string(100000, ']'));
  pbtest::write_file(tmp / "bytes.json", "{\"schema\": \"perfbound_test.config/1\",\n \"x\": \"\xFF\"}");
  auto run = [&](const char *file) {
    return pbtest::run_cli({"--no-builtin-plugins", "--plugin-path", pbtest::plugin_dir("good").string(), "run",
                            (tmp / "p.toml").string(), "--set", "config=" + (tmp / file).string()});
  };
  auto deep = run("deep.json");
  CHECK(deep.code == 3);
  CHECK(deep.err.find("pipeline input 'config': " + (tmp / "deep.json").string() +
                      ":1:257: JSON arrays and objects nested deeper than 256 levels") != std::string::npos);
  auto bytes = run("bytes.json");
  CHECK(bytes.code == 3);
  CHECK(bytes.err.find((tmp / "bytes.json").string() + ":2:8: invalid UTF-8 byte 0xFF") != std::string::npos);
}

TEST_CASE("nlohmann::json checks throw in every build type: a missing member read through const operator[]") {
  // Under NDEBUG nlohmann's default check compiles to nothing and this read
  // dereferences the end iterator; the project's JSON_ASSERT makes it an
  // exception the plugin barrier and the host report as an internal error.
  const json doc = {{"present", 1}};
  CHECK_THROWS_WITH_AS(static_cast<void>(doc["absent"]), doctest::Contains("no such value"), std::logic_error);
  CHECK(doc["present"] == 1);
  const json object_in_array = json::array({json::object()});
  CHECK_THROWS_AS(static_cast<void>(object_in_array[0]["absent"]), std::logic_error);
}

TEST_CASE("a plugin manifest that is not JSON or nests too deep is refused at its line and column") {
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "libdeep.so.pbplugin.json", "{\"manifest_format\": " + std::string(5000, '[') + std::string(5000, ']') + "}");
  pbtest::write_file(tmp / "libcut.so.pbplugin.json", "{\"manifest_format\": 1,\n \"plugin\": {");
  auto r = pbtest::run_cli({"--no-builtin-plugins", "--plugin-path", tmp.path().string(), "plugins"});
  CHECK(r.err.find((tmp / "libdeep.so.pbplugin.json").string() + ":1:276: JSON arrays and objects nested deeper than 256 levels") !=
        std::string::npos);
  CHECK(r.err.find((tmp / "libcut.so.pbplugin.json").string() + ":2:13: not valid JSON: syntax error while parsing object key") !=
        std::string::npos);
}
