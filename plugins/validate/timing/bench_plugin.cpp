//===- bench_plugin.cpp - perfbound.bench: the `perfbound bench` command ----===//
//
//   perfbound bench prepare --testlist FILE... --backend NAME -o PLAN.json
//   perfbound bench run PLAN.json --out-dir DIR [--resume] [--health npu-smi]
//   perfbound bench report DIR/result.json [--format text|md|json]
//   perfbound bench backends [--json]
//
// The protocol is not configurable (harness/protocol.hpp); the protocol flags
// exist so a script may state them, and any other value is refused while the
// command line is parsed, before a plan, a backend or a device is touched.
//
//===----------------------------------------------------------------------===//
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include <perfbound/sdk/plugin.hpp>

#include "harness/backend.hpp"
#include <perfbound/sdk/sha256.hpp>
#include "harness/plan.hpp"
#include "harness/preflight.hpp"
#include "harness/process.hpp"
#include "harness/protocol.hpp"
#include "harness/result.hpp"
#include "harness/runner.hpp"

namespace {

using pb::sdk::json;
namespace bench = pb::bench;
namespace fs = std::filesystem;

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInvalidInput = 3;
constexpr int kExitInfra = 5;

/// Adds --samples, --warmups, --warmup-ms and --first-warmup-ms, each
/// accepting only the protocol's value.
void add_protocol_flags(CLI::App &command, std::vector<std::shared_ptr<std::string>> &storage) {
  struct Flag {
    const char *name;
    const char *help;
  };
  static const Flag kFlags[] = {
      {"--samples", "Timed samples; the protocol takes exactly 10"},
      {"--warmups", "Warmup calls; the protocol takes exactly 5"},
      {"--warmup-ms", "Wall-clock ramp in ms; the protocol takes exactly 25"},
      {"--first-warmup-ms", "Ramp of a worker's first case in ms; the protocol takes exactly 1000"},
  };
  for (const Flag &flag : kFlags) {
    auto value = std::make_shared<std::string>();
    storage.push_back(value);
    std::string name = flag.name;
    command.add_option(name, *value, flag.help)
        ->check(CLI::Validator(
            [name](std::string &text) -> std::string { return bench::check_protocol_flag(name, text).value_or(""); },
            "PROTOCOL"));
  }
}

void append_to_string(void *data, const char *text, size_t size) { static_cast<std::string *>(data)->append(text, size); }

int cmd_prepare(const pb::sdk::Host &host, const std::vector<std::string> &testlists, const std::string &backend_name,
                uint64_t divisor, const std::string &profile, const std::string &out, bool print_json) {
  bench::Backend backend = bench::Backend::load(host, backend_name);
  bench::PlanOptions options;
  for (const std::string &path : testlists) options.testlists.emplace_back(path);
  options.shape_divisor = divisor;
  if (!profile.empty()) {
    const auto *ext = host.extension<pb_host_ext_profile>(PB_HOST_EXT_PROFILE);
    if (ext == nullptr) throw pb::sdk::InfraError("the host does not offer " + std::string(PB_HOST_EXT_PROFILE));
    std::string text;
    if (ext->load(host.raw(), profile.c_str(), append_to_string, &text) != PB_OK)
      throw pb::sdk::InputError("--profile " + profile + ": the profile could not be loaded (see the messages above)");
    json document = json::parse(text);
    options.profile_capacities = bench::preflight_capacities(document);
    options.profile_ref = json{{"name", document.value("name", profile)}, {"sha256", pb::sdk::sha256_hex(document.dump())}};
  }
  json plan = bench::build_plan(options, backend);
  bench::write_file_durably(out, plan.dump(2) + "\n");
  if (print_json) {
    std::cout << plan.dump(2) << "\n";
    return kExitOk;
  }
  size_t planned = 0;
  size_t errors = 0;
  for (const json &plan_case : plan["cases"]) (plan_case["status"] == "planned" ? planned : errors) += 1;
  std::cout << "wrote " << out << ": " << plan["cases"].size() << " cases (" << planned << " planned, " << errors
            << " errors), backend " << backend.name() << ", shape divisor " << divisor << ", smoke cases "
            << plan["smoke_case_ids"].dump() << "\n";
  for (const json &plan_case : plan["cases"])
    if (plan_case["status"] == "error")
      std::cout << "  error " << plan_case["id"].get<std::string>() << ": " << plan_case["reason"].get<std::string>() << "\n";
  return kExitOk;
}

int cmd_report(const std::string &path, const std::string &format) {
  std::optional<std::string> text = bench::read_whole_file(path);
  if (!text) throw pb::sdk::InputError(path + ": cannot read");
  json result = json::parse(*text, nullptr, false);
  if (!result.is_object() || result.value("schema", "") != bench::kResultSchema)
    throw pb::sdk::InputError(path + ": not a " + std::string(bench::kResultSchema) + " document");
  if (format == "json")
    std::cout << result.dump(2) << "\n";
  else if (format == "md")
    std::cout << bench::render_markdown(result);
  else
    std::cout << bench::render_text(result);
  return kExitOk;
}

int cmd_backends(const pb::sdk::Host &host, bool print_json) {
  json list = json::array();
  for (const bench::BackendListing &listing : bench::list_backends(host)) {
    json entry{{"plugin", listing.plugin_id}, {"version", listing.version}, {"library", listing.library}};
    try {
      bench::Backend backend = bench::Backend::load(host, listing.plugin_id);
      entry["name"] = backend.name();
      entry["event_clock"] = backend.table().event_clock;
      entry["shield_method"] = backend.table().shield_method;
      uint32_t count = backend.device_count();
      entry["devices"] = json::array();
      for (uint32_t index = 0; index < count; ++index) entry["devices"].push_back(backend.describe_device(index));
      entry["usable"] = count > 0;
      entry["reason"] = count > 0 ? json(nullptr) : json("no device found");
    } catch (const pb::sdk::Error &e) {
      entry["usable"] = false;
      entry["reason"] = e.what();
    }
    list.push_back(entry);
  }
  if (print_json) {
    std::cout << list.dump(2) << "\n";
    return kExitOk;
  }
  if (list.empty()) std::cout << "no timing backend plugins found on the plugin search path\n";
  for (const json &entry : list) {
    std::cout << entry.value("name", std::string("?")) << "  (" << entry["plugin"].get<std::string>() << " "
              << entry["version"].get<std::string>() << ")  "
              << (entry["usable"].get<bool>() ? "usable" : "not usable: " + entry["reason"].get<std::string>()) << "\n";
    if (entry.contains("devices"))
      for (const json &device : entry["devices"])
        std::cout << "  device: " << (device.value("name", json(nullptr)).is_string() ? device["name"].get<std::string>() : "unknown")
                  << "\n";
  }
  return kExitOk;
}

int bench_main(const pb::sdk::Host &host, const std::vector<std::string> &args) {
  CLI::App app{"Queued GEMM timing harness: 5 warmups + a 25 ms ramp, 10 samples queued behind a launch shield "
               "with a cache flush before each, upper median; numerical check, resumable journal, watchdog, "
               "health gate, capacity preflight (docs/timing.md)",
               "perfbound bench"};
  app.require_subcommand(1);
  app.footer("Exit status: 0 every case ok or skipped; 1 a case failed (error, check_failed, timeout, contaminated); "
             "2 usage error; 3 invalid input (testlist, plan, refused resume); 5 no device, device locked; "
             "130 interrupted (resume with --resume).");
  std::vector<std::shared_ptr<std::string>> protocol_storage;
  int code = kExitOk;
  std::function<int()> action;

  // prepare
  auto testlists = std::make_shared<std::vector<std::string>>();
  auto backend_name = std::make_shared<std::string>();
  auto divisor = std::make_shared<uint64_t>(1);
  auto profile = std::make_shared<std::string>();
  auto plan_out = std::make_shared<std::string>();
  auto prepare_json = std::make_shared<bool>(false);
  CLI::App *prepare = app.add_subcommand("prepare", "Turn testlists into a plan file (cases, phases, smoke cases)");
  prepare->add_option("--testlist", *testlists, "OperatorX testlist JSON (repeatable)")->required()->check(CLI::ExistingFile);
  prepare->add_option("--backend", *backend_name, "Timing backend name (cpu, cuda, acl) or plugin id")->required();
  prepare->add_option("--shape-divisor", *divisor,
                      "Divide every m, n, k by this (at least 1 each); recorded in the plan and the fingerprint")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  prepare->add_option("--profile", *profile, "Hardware profile (name or directory) for the capacity preflight");
  prepare->add_option("-o,--out", *plan_out, "Plan file to write")->required();
  prepare->add_flag("--json", *prepare_json, "Print the plan as JSON");
  add_protocol_flags(*prepare, protocol_storage);
  prepare->callback([&] {
    action = [&] { return cmd_prepare(host, *testlists, *backend_name, *divisor, *profile, *plan_out, *prepare_json); };
  });

  // run
  auto options = std::make_shared<bench::RunOptions>();
  auto plan_path = std::make_shared<std::string>();
  auto out_dir = std::make_shared<std::string>();
  auto lock_dir = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  CLI::App *run = app.add_subcommand("run", "Run a prepared plan; journal, result.json and summary.md go to --out-dir");
  run->add_option("plan", *plan_path, "Plan file from perfbound bench prepare")->required()->check(CLI::ExistingFile);
  run->add_option("--out-dir", *out_dir, "Directory for journal.jsonl, result.json, summary.md, worker logs")->required();
  run->add_flag("--resume", options->resume, "Continue the journal in --out-dir (refused if plan, source or hardware changed)");
  run->add_option("--device", options->device_index, "Device index of the backend")->check(CLI::NonNegativeNumber);
  run->add_option("--case-timeout", options->case_timeout_s, "Watchdog deadline per case, seconds (default 600)")
      ->check(CLI::PositiveNumber);
  run->add_option("--cooldown", options->cooldown_s, "Pause between cases, seconds (default 0)")->check(CLI::NonNegativeNumber);
  run->add_option("--health", options->health_tool, "Health gate tool: none, npu-smi or nvidia-smi (default none)")
      ->check(CLI::IsMember({"none", "npu-smi", "nvidia-smi"}));
  run->add_option("--smi-program", options->smi_program, "The SMI program to run (default: the tool's name in PATH)");
  run->add_option("--smi-device", options->smi_device, "Device as the SMI tool names it: NPU[:CHIP] or GPU index (default: --device)");
  run->add_option("--idle-interval", options->idle_interval_s, "Seconds between the two idle observations (default 1)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--idle-timeout", options->idle_timeout_s,
                  "How long to wait for an idle device before skipping a case, seconds (default 60)")
      ->check(CLI::NonNegativeNumber);
  run->add_option("--health-interval", options->health_interval_s, "Seconds between observations during a case (default 2)")
      ->check(CLI::PositiveNumber);
  run->add_option("--lock-dir", *lock_dir, "Directory of device lock files (default $PERFBOUND_LOCK_DIR or /tmp/perfbound-locks)");
  run->add_flag("--keep-going", options->keep_going, "Run the measure phase even when a smoke case failed");
  run->add_flag("-q,--quiet", *quiet, "No progress lines on stderr");
  run->add_option("--format", options->format, "Report on stdout: text, md or json (default text)")
      ->check(CLI::IsMember({"text", "md", "json"}));
  add_protocol_flags(*run, protocol_storage);
  run->callback([&] {
    action = [&] {
      options->plan_path = *plan_path;
      options->out_dir = *out_dir;
      options->lock_dir = *lock_dir;
      options->progress = !*quiet;
      return bench::run_plan(host, *options, std::cout, std::cerr);
    };
  });

  // report
  auto result_path = std::make_shared<std::string>();
  auto report_format = std::make_shared<std::string>("text");
  CLI::App *report = app.add_subcommand("report", "Print a run's result.json as text, Markdown or JSON");
  report->add_option("result", *result_path, "result.json of a run")->required()->check(CLI::ExistingFile);
  report->add_option("--format", *report_format, "text, md or json")->check(CLI::IsMember({"text", "md", "json"}));
  report->callback([&] { action = [&] { return cmd_report(*result_path, *report_format); }; });

  // backends
  auto backends_json = std::make_shared<bool>(false);
  CLI::App *backends = app.add_subcommand("backends", "List timing backends, their devices, or why they cannot run");
  backends->add_flag("--json", *backends_json, "Print as JSON");
  backends->callback([&] { action = [&] { return cmd_backends(host, *backends_json); }; });

  // worker (hidden: started by `run`)
  auto worker_plugin = std::make_shared<std::string>();
  auto worker_device = std::make_shared<uint32_t>(0);
  CLI::App *worker = app.add_subcommand("worker", "");
  worker->group("");
  worker->add_option("--backend-plugin", *worker_plugin)->required();
  worker->add_option("--device", *worker_device);
  worker->callback([&] { action = [&] { return bench::worker_main(host, *worker_plugin, *worker_device); }; });

  std::vector<const char *> argv;
  for (const std::string &arg : args) argv.push_back(arg.c_str());
  try {
    app.parse(static_cast<int>(argv.size()), argv.data());
  } catch (const CLI::CallForHelp &e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp &e) {
    return app.exit(e);
  } catch (const CLI::ParseError &e) {
    std::cerr << "perfbound bench: " << e.what() << "\nRun 'perfbound bench --help' for usage.\n";
    return kExitUsage;
  }
  if (!action) {
    std::cerr << app.help();
    return kExitUsage;
  }
  try {
    code = action();
  } catch (const bench::UsageError &e) {
    std::cerr << "perfbound bench: " << e.what() << "\n";
    return kExitUsage;
  } catch (const pb::sdk::Error &e) {
    std::cerr << "perfbound bench: error: " << e.what() << "\n";
    if (e.status() == PB_ERR_INVALID_INPUT) return kExitInvalidInput;
    if (e.status() == PB_ERR_INFRA) return kExitInfra;
    return kExitFailure;
  } catch (const std::exception &e) {
    std::cerr << "perfbound bench: internal error: " << e.what() << "\n";
    return kExitFailure;
  }
  return code;
}

std::optional<std::string> render(std::string_view schema, const json &doc, std::string_view format) {
  if (schema != bench::kResultSchema) return std::nullopt;
  if (format == "md") return bench::render_markdown(doc);
  if (format == "text") return bench::render_text(doc);
  return std::nullopt;
}

pb::sdk::PluginSpec describe() {
  pb::sdk::PluginSpec spec{"perfbound.bench", "Queued GEMM timing harness", bench::kBenchVersion};
  spec.vendor = "perfbound";
  spec.description =
      "perfbound bench: OperatorX-protocol GEMM timing (5 warmups, 25 ms ramp, 10 shielded queued samples, upper "
      "median) with an FP64 check, a fingerprinted resumable journal, a per-case watchdog, a device health gate and "
      "a capacity preflight. Devices come from timing backend plugins (perfbound.ext.timing_backend/1).";
  spec.commands.push_back({"bench", "Queued GEMM timing harness: prepare a plan, run it, report it", bench_main});
  spec.render = render;
  return spec;
}

}  // namespace

PB_PLUGIN_ENTRY(describe)
