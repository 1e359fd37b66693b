//===- good_plugin.cpp - a well-behaved test plugin written with the SDK --===//
//
// Node kinds over "perfbound_test.number/1" documents ({"value": x}), used by
// the host tests to check loading, wiring, parameters, parallel execution
// and reporting with real shared libraries.
//
//===----------------------------------------------------------------------===//
#include <chrono>
#include <iostream>
#include <thread>

#include <perfbound/sdk/plugin.hpp>

namespace {

using pb::sdk::json;

constexpr const char *kNumber = "perfbound_test.number/1";
constexpr const char *kText = "perfbound_test.text/1";
constexpr const char *kConfig = "perfbound_test.config/1";

json number(double v) {
  json doc = pb::sdk::make_document(kNumber);
  doc["value"] = v;
  return doc;
}

class Source : public pb::sdk::Node {
 public:
  explicit Source(const pb::sdk::Params &p) : value_(p.number("value")) {}
  void run(pb::sdk::RunContext &ctx) override { ctx.set_output("out", number(value_)); }

 private:
  double value_;
};

class Add : public pb::sdk::Node {
 public:
  explicit Add(const pb::sdk::Params &p) : scale_(p.number("scale")) {
    // The descriptor's range is enforced by 1.2+ hosts at resolve time; create keeps its own check.
    if (!(scale_ > 0)) throw pb::sdk::InputError("node '" + p.node_id() + "': scale must be > 0");
  }
  void run(pb::sdk::RunContext &ctx) override {
    double sum = 0;
    for (const json *doc : ctx.json_inputs("terms")) sum += pb::sdk::require_number(*doc, "value", "terms");
    ctx.set_output("out", number(sum * scale_));
  }

 private:
  double scale_;
};

/// Sleeps, then forwards its input: lets tests observe parallel execution.
class Delay : public pb::sdk::Node {
 public:
  explicit Delay(const pb::sdk::Params &p) : ms_(p.integer("ms")) {}
  void run(pb::sdk::RunContext &ctx) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    double v = pb::sdk::require_number(ctx.json_input("in"), "value", "in");
    ctx.set_output("out", number(v));
  }

 private:
  std::int64_t ms_;
};

/// Counts the bytes and lines of a text document (a file input).
class TextStats : public pb::sdk::Node {
 public:
  explicit TextStats(const pb::sdk::Params &) {}
  void run(pb::sdk::RunContext &ctx) override {
    std::string_view text = ctx.text_input("text");
    if (text.find("SYNTAX ERROR") != std::string_view::npos) {
      size_t line = 1;
      for (char c : text.substr(0, text.find("SYNTAX ERROR"))) line += c == '\n' ? 1 : 0;
      throw pb::sdk::InputError(ctx.origin("text") + ":" + std::to_string(line) + ": unexpected 'SYNTAX ERROR'");
    }
    ctx.set_output("bytes", number(static_cast<double>(text.size())));
  }
};

/// Reads member "x" of a table input.
class TableValue : public pb::sdk::Node {
 public:
  explicit TableValue(const pb::sdk::Params &) {}
  void run(pb::sdk::RunContext &ctx) override {
    ctx.set_output("out", number(pb::sdk::require_number(ctx.json_input("config"), "x", "config")));
  }
};

/// Optional input: forwards it, or a default when unconnected.
class OrDefault : public pb::sdk::Node {
 public:
  explicit OrDefault(const pb::sdk::Params &p) : fallback_(p.number("fallback")) {}
  void run(pb::sdk::RunContext &ctx) override {
    double v = ctx.has_input("in") ? pb::sdk::require_number(ctx.json_input("in"), "value", "in") : fallback_;
    ctx.set_output("out", number(v));
  }

 private:
  double fallback_;
};

std::optional<std::string> render(std::string_view schema, const json &doc, std::string_view format) {
  if (schema != kNumber) return std::nullopt;
  if (format == "md") return "**value** = " + doc.at("value").dump() + "\n";
  if (format == "text") return "value = " + doc.at("value").dump() + "\n";
  return std::nullopt;
}

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound_test.good", "Test plugin: numbers", "1.2.3"};
  spec.vendor = "perfbound tests";
  spec.description = "Small arithmetic node kinds for host tests.";
  spec.kinds.push_back(pb::sdk::kind<Source>("source", "Emits a constant", {}, {pb::sdk::output("out", kNumber)},
                                             {pb::sdk::param("value", PB_PARAM_FLOAT, 1.0, "the constant")}));
  spec.kinds.push_back(pb::sdk::kind<Add>("add", "Sums its inputs", {pb::sdk::multi_input("terms", kNumber)},
                                          {pb::sdk::output("out", kNumber)},
                                          {pb::sdk::param("scale", PB_PARAM_FLOAT, 1.0, "multiplies the sum").at_least(1e-6).at_most(1e6)}));
  spec.kinds.push_back(pb::sdk::kind<Delay>("delay", "Forwards its input after a pause", {pb::sdk::input("in", kNumber)},
                                            {pb::sdk::output("out", kNumber)},
                                            {pb::sdk::param("ms", 50, "pause in milliseconds").at_least(0).below(600000)}));
  spec.kinds.push_back(pb::sdk::kind<TextStats>("text_stats", "Counts the bytes of a text file",
                                                {pb::sdk::input("text", kText)}, {pb::sdk::output("bytes", kNumber)}));
  spec.kinds.push_back(pb::sdk::kind<TableValue>("table_value", "Reads x from a table", {pb::sdk::input("config", kConfig)},
                                                 {pb::sdk::output("out", kNumber)}));
  spec.kinds.push_back(pb::sdk::kind<OrDefault>("or_default", "Forwards an optional input",
                                                {pb::sdk::optional_input("in", kNumber)}, {pb::sdk::output("out", kNumber)},
                                                {pb::sdk::param("fallback", PB_PARAM_FLOAT, -1.0, "used when unconnected"),
                                                 pb::sdk::choice_param("mode", "plain", {"plain", "fancy"}, "unused choice")}));
  spec.render = render;
  spec.commands.push_back({"test-echo", "Echoes its arguments (test command)",
                           [](const pb::sdk::Host &, const std::vector<std::string> &args) {
                             for (size_t idx = 1; idx < args.size(); ++idx) std::cout << (idx > 1 ? " " : "") << args[idx];
                             std::cout << "\n";
                             return args.size() > 1 && args[1] == "fail" ? 1 : 0;
                           }});
  // Exercises the host extensions from a command: profile, plugins, pipeline.
  spec.commands.push_back({"test-host", "Uses the host extensions (test command)",
                           [](const pb::sdk::Host &host, const std::vector<std::string> &args) {
                             auto sink = [](void *data, const char *text, size_t size) {
                               static_cast<std::string *>(data)->append(text, size);
                             };
                             const auto *profile = host.extension<pb_host_ext_profile>(PB_HOST_EXT_PROFILE);
                             const auto *plugins = host.extension<pb_host_ext_plugins>(PB_HOST_EXT_PLUGINS);
                             const auto *pipeline = host.extension<pb_host_ext_pipeline>(PB_HOST_EXT_PIPELINE);
                             if (profile == nullptr || plugins == nullptr || pipeline == nullptr) return 5;
                             std::string text;
                             if (profile->load(host.raw(), "ascend_910b3", sink, &text) != PB_OK) return 3;
                             std::cout << "aiv=" << json::parse(text)["cores"]["aiv"]["value"] << "\n";
                             text.clear();
                             plugins->find(host.raw(), PB_EXT_RENDER, sink, &text);
                             for (const json &p : json::parse(text)) std::cout << "render:" << p["id"].get<std::string>() << "\n";
                             if (plugins->get_extension(host.raw(), "perfbound_test.good", PB_EXT_RENDER) == nullptr) return 4;
                             if (args.size() > 1) {
                               text.clear();
                               const char *sets[] = {"b.value=1"};
                               pb_status st = pipeline->run(host.raw(), args[1].c_str(), 1, sets, sink, &text);
                               json result = json::parse(text);
                               std::cout << "pipeline=" << result["status"].get<std::string>() << " total="
                                         << result["outputs"]["total"]["value"] << " status=" << st << "\n";
                             }
                             return 0;
                           }});
  spec.examples.push_back({"add", "two numbers", json{{"scale", 2.0}},
                           {{"terms", kNumber, R"({"schema":"perfbound_test.number/1","value":1.5})"},
                            {"terms", kNumber, R"({"schema":"perfbound_test.number/1","value":2})"}},
                           PB_OK});
  spec.examples.push_back({"add", "a term that is not a number", std::nullopt,
                           {{"terms", kNumber, R"({"schema":"perfbound_test.number/1","value":"x"})"}},
                           PB_ERR_INVALID_INPUT});
  spec.examples.push_back({"add", "a scale of zero (refused by create)", json{{"scale", 0.0}}, {}, PB_ERR_INVALID_INPUT,
                           PB_EXAMPLE_AT_CREATE});
  spec.examples.push_back({"text_stats", "a short text", std::nullopt, {{"text", kText, "hello\n", PB_ENCODING_TEXT}}, PB_OK});
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
