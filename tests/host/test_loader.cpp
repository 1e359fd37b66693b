//===- test_loader.cpp - the ABI contract, proven with real libraries -----===//
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>

#include "plugin_loader.hpp"
#include "support/test_support.hpp"

using namespace perfbound;
namespace fs = std::filesystem;

namespace {

struct Host {
  Logger logger;
  HostServices services{logger};
  Host() { logger.set_writer([](const std::string &) {}); }
};

fs::path lib(const std::string &dir, const std::string &name) { return pbtest::plugin_dir(dir) / ("libpbtest_" + name + ".so"); }

}  // namespace

TEST_CASE("a well-behaved SDK plugin negotiates and describes itself completely") {
  Host host;
  auto opened = LoadedLibrary::open(lib("good", "good"), host.services, {});
  REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
  const PluginInfo &info = opened->library->info();
  CHECK(info.id == "perfbound_test.good");
  CHECK(info.version == "1.2.3");
  CHECK(info.abi_major == PB_ABI_VERSION_MAJOR);
  CHECK(info.abi_minor == PB_ABI_VERSION_MINOR);
  CHECK(info.kind_names() == std::vector<std::string>{"source", "add", "delay", "text_stats", "table_value", "or_default"});
  const KindInfo *add = info.find_kind("add");
  REQUIRE(add != nullptr);
  REQUIRE(add->inputs.size() == 1);
  CHECK(add->inputs[0].multi());
  CHECK_FALSE(add->inputs[0].optional());
  CHECK(add->inputs[0].schema == "perfbound_test.number/1");
  REQUIRE(add->params.size() == 1);
  CHECK(add->params[0].type == PB_PARAM_FLOAT);
  CHECK(add->params[0].default_value == 1.0);
  const KindInfo *or_default = info.find_kind("or_default");
  REQUIRE(or_default != nullptr);
  CHECK(or_default->inputs[0].optional());
  REQUIRE(or_default->find_param("mode") != nullptr);
  CHECK(*or_default->find_param("mode")->choices == nlohmann::json::array({"plain", "fancy"}));
  REQUIRE(info.commands.size() == 2);
  CHECK(info.commands[0].name == "test-echo");
  CHECK(info.commands[1].name == "test-host");
  CHECK(info.extensions == std::vector<std::string>{PB_EXT_RENDER, PB_EXT_COMMAND, PB_EXT_EXAMPLES});
}

TEST_CASE("a plugin built for a newer minor ABI loads (append-only growth)") {
  Host host;
  auto opened = LoadedLibrary::open(lib("newer_minor", "newer_minor"), host.services, {});
  REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
  CHECK(opened->library->info().id == "perfbound_test.newer_minor");
  CHECK(opened->library->info().abi_minor == PB_ABI_VERSION_MINOR + 1);
  CHECK(opened->library->kind("identity") != nullptr);
}

TEST_CASE("a plugin built for a newer major ABI is refused with file and versions") {
  Host host;
  fs::path path = lib("newer_major", "newer_major");
  auto opened = LoadedLibrary::open(path, host.services, {});
  REQUIRE_FALSE(opened.ok());
  CHECK(opened.error().message == path.string() +
                                      ": built for perfbound plugin ABI 2.0, but this host speaks ABI " +
                                          std::to_string(PB_ABI_VERSION_MAJOR) + "." + std::to_string(PB_ABI_VERSION_MINOR) +
                                          " (majors must match); "
                                      "rebuild the plugin against this perfbound's headers");
}

TEST_CASE("a library without the entry symbol and a non-ELF file are refused, naming the file") {
  Host host;
  fs::path no_entry = lib("no_entry", "no_entry");
  auto opened = LoadedLibrary::open(no_entry, host.services, {});
  REQUIRE_FALSE(opened.ok());
  CHECK(opened.error().message == no_entry.string() + ": does not export 'perfbound_plugin_negotiate'; not a perfbound plugin");

  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "libfake.so", "this is a text file, not a library\n");
  auto fake = LoadedLibrary::open(tmp / "libfake.so", host.services, {});
  REQUIRE_FALSE(fake.ok());
  CHECK(fake.error().message == (tmp / "libfake.so").string() + ": not an ELF file");

  pbtest::write_file(tmp / "libempty.so", "");
  auto empty = LoadedLibrary::open(tmp / "libempty.so", host.services, {});
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.error().message == (tmp / "libempty.so").string() + ": not an ELF file");
}

TEST_CASE("a descriptor that breaks the rules is refused; every violation is collected for the checker") {
  Host host;
  fs::path path = lib("bad_descriptor", "bad_descriptor");
  auto refused = LoadedLibrary::open(path, host.services, {});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.rfind(path.string() + ": plugin descriptor breaks the ABI rules: ", 0) == 0);

  LoadedLibrary::OpenOptions keep;
  keep.keep_violations = true;
  auto opened = LoadedLibrary::open(path, host.services, keep);
  REQUIRE(opened.ok());
  const std::vector<std::string> &v = opened->violations;
  std::vector<std::string> expected = {
      "pb_plugin.id 'Bad Id!' is not a lowercase dotted id such as 'vendor.name'",
      "pb_plugin.version '1.0' is not MAJOR.MINOR.PATCH",
      "node_kinds[0]: kind name 'Broken-Kind' is not [a-z][a-z0-9_]*",
      "kind 'Broken-Kind': run is NULL",
      "kind 'Broken-Kind' inputs[1]: duplicate port name 'x'",
      "kind 'Broken-Kind' inputs 'x': schema id 'not a schema id' is not of the form 'vendor.name/N'",
      "kind 'Broken-Kind' params 'level': default_json is not valid JSON: {not json",
      "kind 'Broken-Kind' inputs 'y': an input of one_of group 'tier' must carry PB_PORT_OPTIONAL",
      "kind 'Broken-Kind' outputs 'out': one_of 'tier' on an output (groups of alternatives are for inputs)",
      "kind 'Broken-Kind' params 'rate': the range >= 2 and <= 1 is empty",
      "kind 'Broken-Kind' params 'label': a range (minimum_json/maximum_json) is only meaningful on an int or float parameter",
      "kind 'Broken-Kind' params 'issue': the default must be > 0, got 0",
  };
  for (const std::string &e : expected) {
    INFO("expected violation: " << e);
    CHECK(std::find(v.begin(), v.end(), e) != v.end());
  }
  CHECK(v.size() == expected.size());
}

TEST_CASE("discovery is lazy, reports refusals without stopping, and honours search order") {
  Host host;
  pbtest::TempDir junk;
  pbtest::write_file(junk / "libjunk.so", "not elf");
  PluginRegistry reg(host.services);
  reg.discover({{junk.path(), "--plugin-path"},
                {pbtest::plugin_dir("newer_major"), "--plugin-path"},
                {pbtest::plugin_dir("good"), "--plugin-path"},
                {pbtest::plugin_dir("throwing"), "--plugin-path"},
                {pbtest::plugin_dir("newer_minor"), "--plugin-path"}});
  CHECK(reg.ids() == std::vector<std::string>{"perfbound_test.good", "perfbound_test.throwing", "perfbound_test.newer_minor"});
  REQUIRE(reg.refusals().size() == 2);
  CHECK(reg.refusals()[0].reason == (junk / "libjunk.so").string() + ": not an ELF file");
  CHECK(reg.refusals()[1].reason.find("built for perfbound plugin ABI 2.0") != std::string::npos);
  // Plugins with a manifest were described without loading their code; the
  // one without a manifest was described by a child process: the host has
  // loaded nothing yet.
  CHECK(reg.find("perfbound_test.good")->described_by == "manifest");
  CHECK(reg.find("perfbound_test.newer_minor")->described_by == "library");
  CHECK(reg.loaded_ids().empty());
  auto good = reg.load("perfbound_test.good");
  REQUIRE(good.ok());
  CHECK(reg.loaded_ids() == std::vector<std::string>{"perfbound_test.good"});
  CHECK((*good)->initialized());
  // A library described by the child loads in-process when needed, matching
  // what the child saw.
  auto minor = reg.load("perfbound_test.newer_minor");
  REQUIRE_MESSAGE(minor.ok(), (minor.ok() ? "" : minor.error().message));
  CHECK(reg.loaded_ids() == std::vector<std::string>{"perfbound_test.good", "perfbound_test.newer_minor"});
}

TEST_CASE("the first plugin with an id wins; later copies are reported as shadowed") {
  Host host;
  pbtest::TempDir copy;
  fs::copy_file(lib("good", "good"), copy / "libpbtest_good.so");
  PluginRegistry reg(host.services);
  reg.discover({{pbtest::plugin_dir("good"), "--plugin-path"}, {copy.path(), "PERFBOUND_PLUGIN_PATH"}});
  CHECK(reg.ids() == std::vector<std::string>{"perfbound_test.good"});
  REQUIRE(reg.notes().size() == 1);
  CHECK(reg.notes()[0] == "plugin 'perfbound_test.good' from " + (copy / "libpbtest_good.so").string() + " is shadowed by " +
                              lib("good", "good").string() + " (found earlier in the search path)");
}

TEST_CASE("a stale manifest is refused when the library is loaded") {
  Host host;
  pbtest::TempDir dir;
  fs::copy_file(lib("good", "good"), dir / "libpbtest_good.so");
  auto manifest = nlohmann::json::parse(pbtest::read_file(lib("good", "good").string() + ".pbplugin.json"));
  manifest["plugin"]["version"] = "9.9.9";
  pbtest::write_file(dir / "libpbtest_good.so.pbplugin.json", manifest.dump(2));
  PluginRegistry reg(host.services);
  reg.discover({{dir.path(), "--plugin-path"}});
  REQUIRE(reg.find("perfbound_test.good") != nullptr);
  CHECK(reg.find("perfbound_test.good")->version == "9.9.9");  // described from the manifest
  auto loaded = reg.load("perfbound_test.good");
  REQUIRE_FALSE(loaded.ok());
  CHECK(loaded.error().message == (dir / "libpbtest_good.so.pbplugin.json").string() +
                                      ": stale manifest: the library now describes itself differently (first difference at "
                                      "'/version'); regenerate it with 'perfbound plugin manifest " +
                                      (dir / "libpbtest_good.so").string() + " -o " +
                                      (dir / "libpbtest_good.so.pbplugin.json").string() + "'");
}

TEST_CASE("a manifest naming a missing library is refused") {
  Host host;
  pbtest::TempDir dir;
  auto manifest = nlohmann::json::parse(pbtest::read_file(lib("good", "good").string() + ".pbplugin.json"));
  pbtest::write_file(dir / "libgone.so.pbplugin.json", manifest.dump());
  PluginRegistry reg(host.services);
  reg.discover({{dir.path(), "--plugin-path"}});
  CHECK(reg.plugins().empty());
  REQUIRE(reg.refusals().size() == 1);
  CHECK(reg.refusals()[0].reason == "manifest names library " + (dir / "libpbtest_good.so").string() + ", which does not exist");
}

TEST_CASE("the ELF reader lists the exported entry symbol of a stripped plugin") {
  pbtest::TempDir dir;
  fs::copy_file(lib("good", "good"), dir / "libstripped.so");
  auto r = pbtest::run_program("/usr/bin/strip", {"--strip-all", (dir / "libstripped.so").string()});
  REQUIRE(r.code == 0);
  CHECK(inspect_library_file(dir / "libstripped.so").ok());
}

TEST_CASE("discovery survives libraries that crash, abort, spin or exit when inspected, and wild descriptors") {
  Host host;
  setenv("PERFBOUND_PLUGIN_TIMEOUT", "1", 1);
  PluginRegistry reg(host.services);
  std::vector<SearchDir> dirs;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"hostile_segv", "plugin crashed with SIGSEGV during load"},
      {"hostile_abort", "plugin crashed with SIGABRT during load"},
      {"hostile_spin", "plugin timed out after 1 s during load and was killed"},
      {"hostile_exit", "plugin called exit(0) during load"},
      {"hostile_negotiate_segv", "plugin crashed with SIGSEGV during negotiate"},
      {"hostile_wild", "plugin crashed with SIGSEGV during describe"},
  };
  for (const auto &[dir, message] : cases) dirs.push_back({pbtest::plugin_dir(dir), "--plugin-path"});
  dirs.push_back({pbtest::plugin_dir("newer_minor"), "--plugin-path"});
  auto start = std::chrono::steady_clock::now();
  reg.discover(dirs);
  auto took = std::chrono::steady_clock::now() - start;
  unsetenv("PERFBOUND_PLUGIN_TIMEOUT");
  CHECK(took < std::chrono::seconds(5));
  CHECK(reg.ids() == std::vector<std::string>{"perfbound_test.newer_minor"});
  REQUIRE(reg.refusals().size() == cases.size());
  for (size_t idx = 0; idx < cases.size(); ++idx) {
    const fs::path library = lib(cases[idx].first, cases[idx].first);
    CHECK(reg.refusals()[idx].reason == library.string() + ": " + cases[idx].second);
  }
  CHECK(reg.loaded_ids().empty());
  auto unknown = reg.load("perfbound_test.hostile");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().message.find("unknown plugin 'perfbound_test.hostile'; searched " + pbtest::plugin_dir("hostile_segv").string() +
                                     " (--plugin-path)") == 0);
}

TEST_CASE("probe_library describes a plugin from a child process, violations included") {
  Host host;
  auto probed = probe_library(lib("bad_descriptor", "bad_descriptor"), host.services, true);
  REQUIRE_MESSAGE(probed.ok(), (probed.ok() ? "" : probed.error().message));
  CHECK(probed->violations.size() == 12);
  auto refused = probe_library(lib("bad_descriptor", "bad_descriptor"), host.services, false);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find(": plugin descriptor breaks the ABI rules: ") != std::string::npos);
  auto good = probe_library(lib("good", "good"), host.services, false);
  REQUIRE(good.ok());
  auto in_process = LoadedLibrary::open(lib("good", "good"), host.services, {});
  REQUIRE(in_process.ok());
  CHECK(good->info.descriptor_json() == in_process->library->info().descriptor_json());
}
