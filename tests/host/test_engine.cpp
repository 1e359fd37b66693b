//===- test_engine.cpp - pipelines resolved and run with real plugins -----===//
#include <doctest/doctest.h>

#include <atomic>

#include "engine.hpp"
#include "paths.hpp"
#include "support/test_support.hpp"

using namespace perfbound;
namespace fs = std::filesystem;

namespace {

/// Host pieces wired the way the CLI wires them, over chosen plugin dirs.
struct Harness {
  Logger logger;
  HostServices services{logger};
  PluginRegistry plugins{services};
  SchemaRegistry schemas;

  explicit Harness(const std::vector<std::string> &dirs) {
    logger.set_writer([](const std::string &) {});
    std::vector<SearchDir> search;
    for (const std::string &d : dirs) search.push_back({pbtest::plugin_dir(d), "--plugin-path"});
    plugins.discover(search);
    REQUIRE(schemas.load_dir(pbtest::source_dir() / "abi" / "schemas").empty());
    REQUIRE(schemas.load_dir(pbtest::test_source_dir() / "schemas").empty());
  }

  PluginCatalog catalog() {
    PluginCatalog c;
    c.find = [this](std::string_view id) { return plugins.find(id); };
    c.ids = plugins.ids();
    return c;
  }

  std::optional<ResolvedPipeline> resolve_text(const std::string &text, Diagnostics &diags,
                                               const std::vector<Override> &overrides = {}) {
    auto p = parse_pipeline_text(text, "test.toml", diags);
    if (!p) return std::nullopt;
    return resolve_pipeline(std::move(*p), catalog(), overrides, ResolveMode::Run, &locate_profile, diags);
  }

  RunResult run(const ResolvedPipeline &rp, unsigned jobs = 2, const std::atomic<bool> *cancel = nullptr,
                Isolation isolation = Isolation::Auto) {
    Engine engine(services, plugins, schemas, nullptr);
    RunOptions opts;
    opts.jobs = jobs;
    opts.cancel = cancel;
    opts.isolation = isolation;
    return engine.run(rp, opts);
  }
};

double value_of(const RunResult &r, const std::string &output) {
  return r.outputs.at(output)->parsed().at("value").get<double>();
}

const NodeResult &node(const RunResult &r, const std::string &id) {
  for (const NodeResult &n : r.nodes)
    if (n.id == id) return n;
  FAIL("no node " << id);
  throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a pipeline runs in dependency order and produces its outputs") {
  Harness h({"good"});
  Diagnostics diags;
  auto rp = h.resolve_text(pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/sum.toml"), diags);
  REQUIRE_MESSAGE(rp, diags.format());
  for (unsigned jobs : {1u, 4u}) {
    RunResult r = h.run(*rp, jobs);
    CHECK(r.status == "ok");
    // (2.0 + 5) * 3.0
    CHECK(value_of(r, "total") == doctest::Approx(21.0));
    CHECK(r.nodes.back().id == "total");
    CHECK(h.schemas.validate("perfbound.run_result/1", r.to_json()).empty());
  }
}

TEST_CASE("parameter precedence: --set over pipeline file over plugin default") {
  Harness h({"good"});
  Diagnostics diags;
  auto rp = h.resolve_text(pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/sum.toml"), diags,
                           {{"total.scale", "10"}, {"a.value", "0.5"}});
  REQUIRE_MESSAGE(rp, diags.format());
  const ResolvedNode *total = rp->find_node("total");
  CHECK(total->params["scale"] == 10);
  CHECK(total->param_origin.at("scale") == "--set");
  const ResolvedNode *b = rp->find_node("b");
  CHECK(b->param_origin.at("value") == "pipeline");
  RunResult r = h.run(*rp);
  CHECK(value_of(r, "total") == doctest::Approx((0.5 + 5) * 10));
  // A kind's defaults apply when neither file nor command line set a value.
  Diagnostics d2;
  auto rp2 = h.resolve_text("version = 1\n[nodes.s]\nplugin = \"perfbound_test.good\"\nkind = \"source\"\n[outputs]\no = \"s.out\"\n", d2);
  REQUIRE(rp2);
  CHECK(rp2->find_node("s")->param_origin.at("value") == "default");
  CHECK(value_of(h.run(*rp2), "o") == 1.0);
}

TEST_CASE("a cancelled run starts no node: each is skipped with the reason and the run is 'interrupted'") {
  Harness h({"good", "throwing"});
  Diagnostics diags;
  auto rp = h.resolve_text(pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/failure.toml"), diags);
  REQUIRE_MESSAGE(rp, diags.format());
  std::atomic<bool> cancel{true};  // as if Ctrl-C came before the first node
  RunResult r = h.run(*rp, 1, &cancel);
  CHECK(r.status == "interrupted");
  CHECK_FALSE(r.ok);
  // 'one' and 'alone' would have succeeded and 'bad' thrown: none started.
  CHECK(node(r, "one").status == NodeStatus::Skipped);
  CHECK(node(r, "one").skipped_because == "interrupted before it started");
  CHECK(node(r, "bad").status == NodeStatus::Skipped);
  CHECK(node(r, "bad").error.empty());
  CHECK(r.outputs.empty());
}

TEST_CASE("a node that throws fails alone: dependants are skipped, independent nodes keep their results") {
  Harness h({"good", "throwing"});
  Diagnostics diags;
  auto rp = h.resolve_text(pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/failure.toml"), diags);
  REQUIRE_MESSAGE(rp, diags.format());
  RunResult r = h.run(*rp);
  CHECK(r.status == "failed");
  CHECK_FALSE(r.ok);
  CHECK(node(r, "bad").status == NodeStatus::Failed);
  CHECK(node(r, "bad").error ==
        "perfbound_test.throwing/boom failed (internal plugin error): unexpected exception: kaboom: the test plugin threw on purpose");
  CHECK(node(r, "after").status == NodeStatus::Skipped);
  CHECK(node(r, "after").skipped_because == "upstream node 'bad' failed");
  CHECK(node(r, "alone").status == NodeStatus::Ok);
  CHECK(value_of(r, "alone") == 1.0);
  CHECK(r.outputs.count("after") == 0);
}

TEST_CASE("plugin misbehaviour on an output port is caught at the edge") {
  Harness h({"good", "misbehaving"});
  struct Case {
    std::string kind;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"malformed", "plugin misbehaviour in perfbound_test.misbehaving/malformed: output 'out' is not valid JSON at line 1, "
                    "column 48: syntax error while parsing value - unexpected end of input; expected '[', '{', or a literal"},
      {"wrong_schema",
       "plugin misbehaviour in perfbound_test.misbehaving/wrong_schema: output 'out' declares schema \"perfbound_test.config/1\" "
       "but the port carries \"perfbound_test.number/1\""},
      {"missing_output",
       "plugin misbehaviour in perfbound_test.misbehaving/missing_output: returned PB_OK without setting output 'out'"},
      {"violates_schema",
       "plugin misbehaviour in perfbound_test.misbehaving/violates_schema: output 'out' violates perfbound_test.number/1: "
       "/value: expected number, got string"},
      {"twice", "plugin misbehaviour in perfbound_test.misbehaving/twice: set_output called twice for port 'out'"},
  };
  for (const Case &c : cases) {
    INFO("kind " << c.kind);
    Diagnostics diags;
    auto rp = h.resolve_text("version = 1\n[nodes.m]\nplugin = \"perfbound_test.misbehaving\"\nkind = \"" + c.kind +
                                 "\"\n[outputs]\no = \"m.out\"\n",
                             diags);
    REQUIRE_MESSAGE(rp, diags.format());
    RunResult r = h.run(*rp);
    CHECK(r.status == "failed");
    CHECK(node(r, "m").error == c.error);
  }
}

TEST_CASE("create errors name the node, the kind and the plugin's reason") {
  Harness h({"throwing"});
  Diagnostics diags;
  auto rp = h.resolve_text(
      "version = 1\n[nodes.p]\nplugin = \"perfbound_test.throwing\"\nkind = \"picky\"\nparams = { level = 7 }\n[outputs]\no = \"p.out\"\n",
      diags);
  REQUIRE(rp);
  RunResult r = h.run(*rp);
  CHECK(node(r, "p").error == "perfbound_test.throwing/picky create failed (invalid input): level must be at most 3, got 7");
}

TEST_CASE("file and table inputs become documents; bad input in a file names its line") {
  Harness h({"good"});
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "in.txt", "line one\nline two\nSYNTAX ERROR here\n");
  Diagnostics diags;
  auto p = parse_pipeline_file(pbtest::test_source_dir() / "host/pipelines/file_input.toml", diags);
  REQUIRE(p);
  auto rp = resolve_pipeline(std::move(*p), h.catalog(), {{"text", (tmp / "in.txt").string()}, {"config.x", "2.5"}},
                             ResolveMode::Run, &locate_profile, diags);
  REQUIRE_MESSAGE(rp, diags.format());
  RunResult r = h.run(*rp);
  CHECK(node(r, "x").status == NodeStatus::Ok);
  CHECK(node(r, "count").error ==
        "perfbound_test.good/text_stats failed (invalid input): " + (tmp / "in.txt").string() + ":3: unexpected 'SYNTAX ERROR'");
  // Provenance records the input's hash and where its value came from.
  bool found = false;
  for (const auto &in : r.provenance["inputs"])
    if (in["name"] == "text") {
      found = true;
      CHECK(in["origin"] == "--set");
      CHECK(in["sha256"].get<std::string>().size() == 64);
    }
  CHECK(found);
}

TEST_CASE("a table input that violates its schema is rejected before anything runs") {
  Harness h({"good"});
  Diagnostics diags;
  auto p = parse_pipeline_file(pbtest::test_source_dir() / "host/pipelines/file_input.toml", diags);
  REQUIRE(p);
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "in.txt", "x");
  auto rp = resolve_pipeline(std::move(*p), h.catalog(), {{"text", (tmp / "in.txt").string()}, {"config.x", "\"ten\""}},
                             ResolveMode::Run, &locate_profile, diags);
  REQUIRE(rp);
  RunResult r = h.run(*rp);
  CHECK(r.status == "invalid");
  REQUIRE(r.diagnostics.items().size() == 1);
  // Named as the user wrote it (--set config.x), not as a JSON pointer (issue 26).
  CHECK(r.diagnostics.items()[0].message == "--set config: config.x: expected number, got string (perfbound_test.config/1)");
  CHECK(r.nodes.empty());
}

TEST_CASE("a JSON document schema on a raw-text file input is refused before anything runs") {
  Harness h({"good"});
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "config.json", R"({"schema":"perfbound_test.config/1","x":"ten"})");
  Diagnostics diags;
  auto rp = h.resolve_text(R"(version = 1
[inputs]
config = { kind = "file", schema = "perfbound_test.config/1" }
[nodes.x]
plugin = "perfbound_test.good"
kind = "table_value"
inputs = { config = "inputs.config" }
[outputs]
x = "x.out"
)",
                           diags, {{"config", (tmp / "config.json").string()}});
  REQUIRE_MESSAGE(rp, diags.format());
  RunResult r = h.run(*rp);
  CHECK(r.status == "invalid");
  REQUIRE(r.diagnostics.items().size() == 1);
  CHECK(r.diagnostics.items()[0].message ==
        "pipeline input 'config' has kind \"file\" (raw text) but carries perfbound_test.config/1, a JSON document schema: "
        "declare it kind = \"document\" so the file is parsed and checked against the schema");
  CHECK(r.nodes.empty());
}

TEST_CASE("an unconnected optional port runs with no input") {
  Harness h({"good"});
  Diagnostics diags;
  auto rp = h.resolve_text(
      "version = 1\n[nodes.d]\nplugin = \"perfbound_test.good\"\nkind = \"or_default\"\nparams = { fallback = 4.5 }\n[outputs]\no = \"d.out\"\n",
      diags);
  REQUIRE(rp);
  CHECK(value_of(h.run(*rp), "o") == 4.5);
}

TEST_CASE("override syntax and values") {
  Diagnostics diags;
  CHECK_FALSE(parse_override("novalue", diags));
  REQUIRE(diags.items().size() == 1);
  CHECK(diags.items()[0].format() == "<command line>: error: --set 'novalue' must be written KEY=VALUE");
  CHECK(parse_override_value("[128, 32]") == nlohmann::json::array({128, 32}));
  CHECK(parse_override_value("16777216") == 16777216);
  CHECK(parse_override_value("true") == true);
  CHECK(parse_override_value("kernel.npuir.mlir") == "kernel.npuir.mlir");
  CHECK(parse_override_value("\"quoted\"") == "quoted");
  CHECK(parse_override_value("{grid = [8192, 1, 1]}") == nlohmann::json{{"grid", {8192, 1, 1}}});
}

TEST_CASE("--set targets that do not exist are errors with suggestions") {
  Harness h({"good"});
  Diagnostics diags;
  auto rp = h.resolve_text(pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/sum.toml"), diags,
                           {{"totl.scale", "2"}, {"total.scael", "2"}, {"total", "3"}});
  CHECK_FALSE(rp);
  std::vector<std::string> got;
  for (const Diagnostic &d : diags.items()) got.push_back(d.format());
  std::vector<std::string> expected = {
      "<command line>: error: --set totl.scale=2: 'totl' is neither a pipeline input nor a node; inputs and nodes: a, b, total "
      "(did you mean 'total'?)",
      "<command line>: error: node 'total': --set total.scael: unknown parameter 'scael' for perfbound_test.good/add; valid "
      "parameters: scale (did you mean 'scale'?)",
      "<command line>: error: node 'total': --set total=3: 'total' is a node; set one of its parameters with --set total.PARAM=VALUE",
  };
  for (const std::string &e : expected) {
    INFO(e);
    CHECK(std::find(got.begin(), got.end(), e) != got.end());
  }
  CHECK(got.size() == expected.size());
}

TEST_CASE("print-resolved text shows every value's origin and the execution order") {
  Harness h({"good"});
  Diagnostics diags;
  auto rp = h.resolve_text(pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/sum.toml"), diags, {{"total.scale", "4"}});
  REQUIRE(rp);
  std::string text = rp->to_text();
  CHECK(text.find("params.scale = 4  # --set\n") != std::string::npos);
  CHECK(text.find("params.value = 2.0  # pipeline\n") != std::string::npos);
  CHECK(text.find("inputs.terms = [\"a.out\",\"b.out\"]\n") != std::string::npos);
  CHECK(text.find("# execution order: a b total\n") != std::string::npos);
}

TEST_CASE("a node in a child process runs as it does in the host's: outputs, messages, failures, misuse") {
  Harness h({"good", "throwing", "misbehaving"});
  // What a run says, without what differs by design (timings, isolation).
  auto essence = [](const RunResult &r) {
    json j = r.to_json();
    j.erase("total_ms");
    j.erase("provenance");
    for (json &node : j["nodes"]) {
      node.erase("create_ms");
      node.erase("run_ms");
      node.erase("destroy_ms");
      node.erase("isolated");
    }
    return j;
  };
  std::vector<std::string> texts = {pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/sum.toml"),
                                    pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/failure.toml")};
  for (const char *kind : {"malformed", "wrong_schema", "missing_output", "violates_schema", "twice"})
    texts.push_back(std::string("version = 1\n[nodes.m]\nplugin = \"perfbound_test.misbehaving\"\nkind = \"") + kind +
                    "\"\n[outputs]\no = \"m.out\"\n");
  for (const std::string &text : texts) {
    Diagnostics diags;
    auto rp = h.resolve_text(text, diags);
    REQUIRE_MESSAGE(rp, diags.format());
    RunResult in_process = h.run(*rp, 2, nullptr, Isolation::None);
    RunResult isolated = h.run(*rp, 2, nullptr, Isolation::All);
    for (const NodeResult &n : in_process.nodes) CHECK_FALSE(n.isolated);
    for (const NodeResult &n : isolated.nodes) CHECK(n.isolated);
    CHECK(essence(in_process) == essence(isolated));
    CHECK(in_process.status == isolated.status);
  }
}

TEST_CASE("isolation by default: plugins not shipped with perfbound run in a child process, unless the node says") {
  Harness h({"good"});
  Diagnostics diags;
  auto rp = h.resolve_text(pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/sum.toml"), diags);
  REQUIRE(rp);
  for (const NodeResult &n : h.run(*rp).nodes) CHECK(n.isolated);  // the test plugins sit outside the build's plugin dir
  std::string text = pbtest::read_file(pbtest::test_source_dir() / "host/pipelines/sum.toml");
  const std::string add = "kind = \"add\"";
  text.replace(text.find(add), add.size(), add + "\nisolate = false");
  Diagnostics d2;
  auto chosen = h.resolve_text(text, d2);
  REQUIRE_MESSAGE(chosen, d2.format());
  RunResult r = h.run(*chosen);
  CHECK(node(r, "total").isolated == false);
  CHECK(node(r, "a").isolated == true);
  CHECK(value_of(r, "total") == doctest::Approx(21.0));
}
