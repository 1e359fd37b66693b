//===- bench_plugin.cpp - perfbound.bench: the `perfbound bench` command ----===//
//
//   perfbound bench prepare --testlist FILE... --backend NAME -o PLAN.json
//   perfbound bench run PLAN.json --out-dir DIR [--resume] [--health npu-smi]
//   perfbound bench run PLAN.json --out-dir DIR --devices 0-7|all [--shard I/N]
//   perfbound bench merge DIR... -o OUT
//   perfbound bench slurm PLAN.json --nodes N --devices-per-node D -o job.sbatch [--submit]
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

#include <perfbound/sdk/text.hpp>
#include <perfbound/sdk/number.hpp>
#include <perfbound/sdk/plugin.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

#include "harness/backend.hpp"
#include "harness/merge.hpp"
#include "harness/shard.hpp"
#include "harness/slurm.hpp"
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

/// A CLI11 check for a number of seconds read from the command line: CLI11's
/// PositiveNumber takes "nan" (nan <= 0 is false) and "1e400" (inf); this
/// takes a finite number in `range` only, said in the same words as every
/// other reader (pb::sdk::number_problem).
CLI::Validator seconds_in(const pb::sdk::NumberRange &range) {
  return CLI::Validator(
      [range](std::string &text) -> std::string {
        std::optional<double> value = pb::sdk::parse_number(text);
        if (!value) return "not a number of seconds: " + text;
        return pb::sdk::number_problem(*value, range, text);
      },
      "SECONDS");
}

void append_to_string(void *data, const char *text, size_t size) { static_cast<std::string *>(data)->append(text, size); }

int cmd_prepare(const pb::sdk::Host &host, const std::vector<std::string> &testlists, const std::string &backend_name,
                uint64_t divisor, const std::string &profile, const std::string &out, bool print_json, uint32_t shards) {
  bench::Backend backend = bench::Backend::load(host, backend_name);
  bench::PlanOptions options;
  options.shards = shards;
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
    options.profile_document = document;
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
  if (plan.contains("sharding")) {
    const json &sharding = plan["sharding"];
    std::cout << "shards: " << sharding["count"] << " (run one with --shard I/" << sharding["count"]
              << "), predicted cost in " << sharding["cost_unit"].get<std::string>() << " per shard:";
    for (const json &shard : sharding["shards"])
      std::cout << " " << shard["index"] << ":" << shard["cases"] << " cases/" << shard["predicted_cost"].get<double>();
    std::cout << "; max/min " << (sharding["balance"]["max_over_min"].is_number() ? sharding["balance"]["max_over_min"].dump() : "-")
              << "\n";
  }
  return kExitOk;
}

/// "0-7", "0,2,5", "0-3,6": device indices, each named once.
std::vector<uint32_t> parse_device_list(const std::string &text) {
  std::vector<uint32_t> devices;
  std::set<uint32_t> seen;
  if (text.find_first_not_of(" \t") == std::string::npos)
    throw bench::UsageError("--devices '" + text + "': no device named; give indices such as 0-7, 0,2,5, or all");
  auto number = [&](const std::string &digits) -> uint32_t {
    if (digits.empty() || digits.size() > 6 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw bench::UsageError("--devices " + text + ": expected device indices such as 0-7, 0,2,5 or all");
    return static_cast<uint32_t>(std::stoul(digits));
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t dash = item.find('-');
    uint32_t first = number(item.substr(0, dash));
    uint32_t last = dash == std::string::npos ? first : number(item.substr(dash + 1));
    if (last < first) throw bench::UsageError("--devices " + text + ": the range " + item + " runs backwards");
    if (last - first > 4096) throw bench::UsageError("--devices " + text + ": the range " + item + " is too long");
    for (uint32_t device = first; device <= last; ++device) {
      if (!seen.insert(device).second)
        throw bench::UsageError("--devices " + text + ": device " + std::to_string(device) + " is named twice");
      devices.push_back(device);
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return devices;
}

int cmd_merge(const std::vector<std::string> &dirs, const std::string &out, const std::string &format) {
  std::error_code ec;
  fs::path out_dir(out);
  if (fs::exists(out_dir / "journal.jsonl", ec) || fs::exists(out_dir / "lanes", ec))
    throw bench::UsageError("-o " + out + " is a run directory; merge into a new one");
  std::vector<bench::MergeSource> sources;
  for (const std::string &dir : dirs) {
    if (fs::exists(out_dir, ec) && fs::equivalent(dir, out_dir, ec))
      throw bench::UsageError("-o " + out + " is also an input directory");
    for (const fs::path &journal : bench::journals_in(dir)) sources.push_back(bench::load_source(journal));
  }
  bench::MergeOptions options;
  options.id = "merge-" + bench::utc_now_iso();
  for (char &c : options.id)
    if (c == ':') c = '-';
  json result = bench::merge_sources(sources, options);
  fs::create_directories(out_dir, ec);
  if (ec) throw pb::sdk::InfraError("cannot create " + out + ": " + ec.message());
  bench::write_file_durably(out_dir / "result.json", result.dump(2) + "\n");
  bench::write_file_durably(out_dir / "summary.md", bench::render_markdown(result));
  if (format == "json") {
    std::cout << result.dump(2) << "\n";
  } else if (format == "md") {
    std::cout << bench::render_markdown(result);
  } else {
    const json &summary = result["summary"];
    std::cout << "merged " << sources.size() << " journal(s) from " << dirs.size() << " run dir(s), "
              << result["devices"].size() << " device(s): " << summary["cases"] << " of "
              << summary["cases"].get<size_t>() + result["missing"].size() << " cases, ok " << summary["ok"] << ", missing "
              << result["missing"].size() << ", duplicates " << result["duplicates"].size() << ", replicas "
              << result["replicas"].size() << "\n";
    for (const json &duplicate : result["duplicates"]) {
      std::cout << "duplicate: " << duplicate["case_id"].get<std::string>() << " was measured " << duplicate["others"].size() + 1
                << " times; using " << duplicate["used"]["journal"].get<std::string>() << " ("
                << duplicate["used"]["device"].get<std::string>() << ")";
      for (const json &other : duplicate["others"])
        std::cout << "; also " << other["journal"].get<std::string>() << " (" << other["status"].get<std::string>() << ")";
      std::cout << "\n";
    }
    size_t listed = 0;
    for (const json &case_id : result["missing"])
      if (listed++ < 20) std::cout << "missing: " << case_id.get<std::string>() << "\n";
    if (result["missing"].size() > 20) std::cout << "missing: ... and " << result["missing"].size() - 20 << " more\n";
    for (const json &device : result["devices"])
      if (device["sick_card"]["suspect"].get<bool>())
        std::cout << (device["sick_card"]["flag"].get<bool>() ? "sick card: " : "suspect card: ")
                  << device["device"].get<std::string>() << ": " << device["sick_card"]["reason"].get<std::string>() << "\n";
    std::cout << "result: " << (out_dir / "result.json").string() << "\n";
  }
  bool failed = !result["missing"].empty();
  for (const json &row : result["rows"]) failed = failed || bench::is_failure_status(row.value("status", ""));
  return failed ? kExitFailure : kExitOk;
}

struct SlurmArgs {
  std::string plan;
  uint32_t nodes = 0;
  uint32_t devices_per_node = 0;
  uint32_t shards = 0;
  std::string partition;
  std::string time;
  std::string gres;
  bool gres_given = false;
  std::string run_dir;
  std::string out;
  bool submit = false;
  double case_timeout_s = 0;
};

int cmd_slurm(const pb::sdk::Host &host, const SlurmArgs &args) {
  if (!args.time.empty() && !bench::valid_slurm_time(args.time))
    throw bench::UsageError("--time " + args.time + ": not a Slurm time limit (M, M:S, H:M:S, D-H, D-H:M, D-H:M:S)");
  json plan = bench::load_plan(args.plan);
  bench::SlurmJob job;
  job.plan = fs::absolute(args.plan).lexically_normal();
  job.plan_stem = job.plan.stem().string();
  job.backend = plan["backend"].value("name", "");
  job.nodes = args.nodes;
  job.devices_per_node = args.devices_per_node;
  uint32_t recorded = plan.contains("sharding") ? plan["sharding"].value("count", 0u) : 0u;
  job.shards = args.shards > 0 ? args.shards : recorded > 0 ? recorded : args.nodes;
  if (recorded > 0 && job.shards != recorded)
    throw bench::UsageError("--shards " + std::to_string(job.shards) + ": the plan was prepared with --shards " +
                            std::to_string(recorded));
  job.partition = args.partition;
  job.time = args.time;
  job.gres = args.gres_given ? args.gres : bench::default_gres(job.backend);
  job.run_dir = fs::absolute(args.run_dir.empty() ? "runs/" + job.plan_stem : args.run_dir).lexically_normal();
  job.script = fs::absolute(args.out).lexically_normal();
  job.perfbound = bench::self_executable();
  bench::Backend backend = bench::Backend::load(host, plan["backend"].value("plugin", ""));
  static const int kAnchor = 0;
  job.plugin_dirs = {bench::library_containing(&kAnchor).parent_path(), fs::path(backend.listing().library).parent_path()};
  if (job.plugin_dirs[0] == job.plugin_dirs[1]) job.plugin_dirs.pop_back();
  if (args.case_timeout_s > 0) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", args.case_timeout_s);
    job.run_args = {"--case-timeout", text};
  }
  if (std::string problem = bench::slurm_job_problem(job); !problem.empty()) throw bench::UsageError(problem);
  // The partition must exist where the job goes; checked before anything is written.
  std::string why;
  std::optional<std::vector<std::string>> partitions = bench::slurm_partitions(why);
  if (!partitions && args.submit) throw pb::sdk::InfraError("--submit: cannot reach Slurm: " + why);
  if (partitions && !args.partition.empty() &&
      std::find(partitions->begin(), partitions->end(), args.partition) == partitions->end()) {
    std::string known;
    for (const std::string &name : *partitions) known += (known.empty() ? "" : ", ") + name;
    throw pb::sdk::InfraError("--partition " + args.partition + ": this Slurm has no such partition (it has: " +
                              (known.empty() ? "none" : known) + ")");
  }
  std::error_code ec;
  fs::create_directories(job.run_dir / "slurm", ec);
  if (ec) throw pb::sdk::InfraError("cannot create " + (job.run_dir / "slurm").string() + ": " + ec.message());
  bench::write_file_durably(job.script, bench::slurm_script(job));
  chmod(job.script.c_str(), 0755);
  std::cout << "wrote " << job.script.string() << ": " << job.shards << " array task(s), one per shard, at most "
            << job.nodes << " at once, " << job.devices_per_node << " "
            << (job.gres.empty() ? std::string("CPU(s)") : job.gres + "(s)") << " each; results in "
            << job.run_dir.string() << "/shard-*, merged into " << (job.run_dir / "merged").string() << "\n";
  if (!partitions) std::cout << "note: partition not checked (" << why << ")\n";
  if (!args.submit) {
    std::cout << "submit with: bash " << job.script.string() << " --submit\n";
    return kExitOk;
  }
  bench::CaptureResult submitted = bench::run_capture({"bash", job.script.string(), "--submit"}, 120);
  std::cout << submitted.out;
  if (!submitted.ok()) {
    std::cerr << submitted.err;
    throw pb::sdk::InfraError("submitting " + job.script.string() + " failed: " + submitted.describe(120));
  }
  return kExitOk;
}

int cmd_report(const std::string &path, const std::string &format) {
  std::optional<std::string> text = bench::read_whole_file(path);
  if (!text) throw pb::sdk::InputError(path + ": cannot read");
  json result = json::parse(*text, nullptr, false);
  if (result.is_discarded()) throw pb::sdk::InputError(pb::sdk::json_syntax_error_message(*text, path));
  if (!result.is_object() || result.value("schema", "") != bench::kResultSchema)
    throw pb::sdk::InputError(path + ": not a " + std::string(bench::kResultSchema) + " document");
  if (result.contains("rows") && result["rows"].is_array()) {
    const pb::sdk::JsonSource source(path, *text);
    for (size_t idx = 0; idx < result["rows"].size(); ++idx)
      bench::check_row_numbers(result, json::json_pointer("/rows") / idx, source);
  }
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
  std::ostringstream os;
  if (list.empty()) os << "no timing backend plugins found on the plugin search path\n";
  for (const json &entry : list) {
    os << entry.value("name", std::string("?")) << "  (" << entry["plugin"].get<std::string>() << " "
       << entry["version"].get<std::string>() << ")  "
       << (entry["usable"].get<bool>() ? "usable" : "not usable: " + entry["reason"].get<std::string>()) << "\n";
    if (entry.contains("devices"))
      for (const json &device : entry["devices"])
        os << "  device: " << (device.value("name", json(nullptr)).is_string() ? device["name"].get<std::string>() : "unknown") << "\n";
  }
  std::cout << pb::sdk::text::wrap_lines(os.str());  // 100 columns
  return kExitOk;
}

int bench_main(const pb::sdk::Host &host, const std::vector<std::string> &args) {
  CLI::App app{"Queued GEMM timing harness: 5 warmups + a 25 ms ramp, 10 samples queued behind a launch shield "
               "with a cache flush before each, upper median; numerical check, resumable journal, watchdog, "
               "health gate, capacity preflight (docs/timing.md)",
               "perfbound bench"};
  app.require_subcommand(1);
  app.footer("Exit status: 0 every case ok or skipped; 1 a case failed (error, check_failed, timeout, contaminated) "
             "or a merge lacks cases; 2 usage error (a device named twice, a shard index out of range); 3 invalid "
             "input (testlist, plan, refused resume, journals of different plans merged); 5 no device, device "
             "locked, a Slurm partition that does not exist; 130 interrupted (resume with --resume).");
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
  auto prepare_shards = std::make_shared<uint32_t>(0);
  CLI::App *prepare = app.add_subcommand("prepare", "Turn testlists into a plan file (cases, phases, smoke cases)");
  prepare->add_option("--testlist", *testlists, "OperatorX testlist JSON (repeatable)")->required()->check(CLI::ExistingFile);
  prepare->add_option("--backend", *backend_name, "Timing backend name (cpu, cuda, acl) or plugin id")->required();
  prepare->add_option("--shape-divisor", *divisor,
                      "Divide every m, n, k by this (at least 1 each); recorded in the plan and the fingerprint")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 20));
  prepare->add_option("--profile", *profile, "Hardware profile (name or directory) for the capacity preflight");
  prepare->add_option("-o,--out", *plan_out, "Plan file to write")->required();
  prepare->add_flag("--json", *prepare_json, "Print the plan as JSON");
  prepare->add_option("--shards", *prepare_shards,
                      "Record a split into N shards balanced by predicted cost (run one with bench run --shard I/N)")
      ->check(CLI::Range(uint32_t{1}, bench::kMaxShards));
  add_protocol_flags(*prepare, protocol_storage);
  prepare->callback([&] {
    action = [&] { return cmd_prepare(host, *testlists, *backend_name, *divisor, *profile, *plan_out, *prepare_json,
                                          *prepare_shards); };
  });

  // run
  auto options = std::make_shared<bench::RunOptions>();
  auto plan_path = std::make_shared<std::string>();
  auto out_dir = std::make_shared<std::string>();
  auto lock_dir = std::make_shared<std::string>();
  auto quiet = std::make_shared<bool>(false);
  auto devices_text = std::make_shared<std::string>();
  auto shard_text = std::make_shared<std::string>();
  CLI::App *run = app.add_subcommand("run", "Run a prepared plan; journal, result.json and summary.md go to --out-dir");
  run->add_option("plan", *plan_path, "Plan file from perfbound bench prepare")->required()->check(CLI::ExistingFile);
  run->add_option("--out-dir", *out_dir, "Directory for journal.jsonl, result.json, summary.md, worker logs")->required();
  run->add_flag("--resume", options->resume, "Continue the journal in --out-dir (refused if plan, source or hardware changed)");
  CLI::Option *device_option =
      run->add_option("--device", options->device_index, "Device index of the backend")->check(CLI::NonNegativeNumber);
  run->add_option("--devices", *devices_text,
                  "Run on several devices at once, one worker each (0-7, 0,2,5 or all); journals under OUT/lanes/, "
                  "result.json merged")
      ->excludes(device_option);
  run->add_option("--shard", *shard_text, "Run shard I of N (0-based, e.g. 0/4) of the plan; smoke cases run in every shard");
  run->add_option("--case-timeout", options->case_timeout_s, "Watchdog deadline per case, seconds (default 600)")
      ->check(seconds_in(pb::sdk::NumberRange::positive().at_most(604800)));
  run->add_option("--cooldown", options->cooldown_s, "Pause between cases, seconds (default 0)")->check(seconds_in(pb::sdk::NumberRange::non_negative().at_most(604800)));
  run->add_option("--health", options->health_tool, "Health gate tool: none, npu-smi or nvidia-smi (default none)")
      ->check(CLI::IsMember({"none", "npu-smi", "nvidia-smi"}));
  run->add_option("--smi-program", options->smi_program, "The SMI program to run (default: the tool's name in PATH)");
  run->add_option("--smi-device", options->smi_device,
                  "Device as the SMI tool names it: NPU[:CHIP] or GPU index (default: --device); with --devices, a "
                  "comma-separated list in the same order");
  run->add_option("--idle-interval", options->idle_interval_s, "Seconds between the two idle observations (default 1)")
      ->check(seconds_in(pb::sdk::NumberRange::non_negative().at_most(604800)));
  run->add_option("--idle-timeout", options->idle_timeout_s,
                  "How long to wait for an idle device before skipping a case, seconds (default 60)")
      ->check(seconds_in(pb::sdk::NumberRange::non_negative().at_most(604800)));
  run->add_option("--health-interval", options->health_interval_s, "Seconds between observations during a case (default 2)")
      ->check(seconds_in(pb::sdk::NumberRange::positive().at_most(604800)));
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
      if (!shard_text->empty()) {
        std::string error;
        options->shard = bench::parse_shard(*shard_text, error);
        if (!options->shard) throw bench::UsageError(error);
      }
      if (*devices_text == "all") {
        options->all_devices = true;
      } else if (run->count("--devices") > 0) {
        // Given, even as "": an empty list would run on no device and pass.
        options->devices = parse_device_list(*devices_text);
      }
      if ((options->all_devices || !options->devices.empty()) && !options->smi_device.empty()) {
        std::string list = options->smi_device;
        options->smi_device.clear();
        for (size_t start = 0; start <= list.size();) {
          size_t comma = list.find(',', start);
          options->smi_devices.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
      }
      return bench::run_plan(host, *options, std::cout, std::cerr);
    };
  });

  // merge
  auto merge_dirs = std::make_shared<std::vector<std::string>>();
  auto merge_out = std::make_shared<std::string>();
  auto merge_format = std::make_shared<std::string>("text");
  CLI::App *merge = app.add_subcommand("merge", "Combine the journals of shards and devices of one plan into one result");
  merge->add_option("dirs", *merge_dirs, "Run directories (--out-dir of bench run, any number)")->required()->check(CLI::ExistingDirectory);
  merge->add_option("-o,--out", *merge_out, "Directory for the merged result.json and summary.md")->required();
  merge->add_option("--format", *merge_format, "Report on stdout: text, md or json")->check(CLI::IsMember({"text", "md", "json"}));
  merge->callback([&] { action = [&] { return cmd_merge(*merge_dirs, *merge_out, *merge_format); }; });

  // slurm
  auto slurm = std::make_shared<SlurmArgs>();
  CLI::App *slurm_cmd = app.add_subcommand("slurm", "Write (and --submit) a Slurm array job: one task per shard, then a merge job");
  slurm_cmd->add_option("plan", slurm->plan, "Plan file from perfbound bench prepare")->required()->check(CLI::ExistingFile);
  slurm_cmd->add_option("--nodes", slurm->nodes, "Nodes (array tasks running at once, one node each)")->required()
      ->check(CLI::Range(1u, 100000u));
  slurm_cmd->add_option("--devices-per-node", slurm->devices_per_node, "Devices each array task asks for and runs on")
      ->required()->check(CLI::Range(1u, 4096u));
  slurm_cmd->add_option("--shards", slurm->shards, "Array tasks (default: the plan's --shards, else --nodes)")
      ->check(CLI::Range(uint32_t{1}, bench::kMaxShards));
  slurm_cmd->add_option("--partition", slurm->partition, "Slurm partition (checked with sinfo where Slurm is reachable)");
  slurm_cmd->add_option("--time", slurm->time, "Time limit per array task, as sbatch --time takes it");
  slurm_cmd->add_option("--gres", slurm->gres, "Gres name of the devices (default: gpu for cuda, npu for acl, none for cpu)")
      ->each([slurm](const std::string &) { slurm->gres_given = true; });
  slurm_cmd->add_option("--run-dir", slurm->run_dir, "Where shards write (RUN/shard-I) and the merge goes (RUN/merged); default runs/<plan>");
  slurm_cmd->add_option("--case-timeout", slurm->case_timeout_s, "Passed to bench run")->check(seconds_in(pb::sdk::NumberRange::positive().at_most(604800)));
  slurm_cmd->add_option("-o,--out", slurm->out, "The sbatch script to write")->required();
  slurm_cmd->add_flag("--submit", slurm->submit, "Submit the array and the merge job now and print their job ids");
  slurm_cmd->callback([&] { action = [&] { return cmd_slurm(host, *slurm); }; });

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
  } catch (const CLI::CallForHelp &) {
    std::cout << pb::sdk::text::wrap_lines(app.help());  // 100 columns
    return kExitOk;
  } catch (const CLI::CallForAllHelp &) {
    std::cout << pb::sdk::text::wrap_lines(app.help("", CLI::AppFormatMode::All));
    return kExitOk;
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
