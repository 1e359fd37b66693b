//===- commands.cpp - `perfbound validate` and `perfbound counterfactual` --===//
#include "commands.hpp"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>

#include <perfbound/sdk/cancel.hpp>

#include "corpus.hpp"
#include "counterfactual.hpp"
#include "dashboard_html.hpp"
#include "measurement.hpp"
#include "process.hpp"

namespace perfbound::validate {

namespace fs = std::filesystem;

namespace {

constexpr const char *kValidateUsage =
    "usage: perfbound validate --corpus MANIFEST [--data DIR] [--case NAME]... [--profile DIR] [--json | --format text|json|html]\n"
    "       perfbound validate --report REPORT.json --measurement FILE --kernel NAME [--warmup N]\n"
    "                          [--bench-case NAME] [--device ID] [--json]\n"
    "\n"
    "Checks bounds against measurements. With --corpus, runs the bound pipeline of every case of the\n"
    "manifest and prints one line per case: status (PASS: bound <= the fastest kept launch; FAIL: the\n"
    "bound is above a measurement; INFRA_ERROR: no usable measurement or no bound), bound, measured\n"
    "median and minimum, tightness (measured / bound) and the binding component predicted vs the pipe\n"
    "msprof shows dominating. --data is the root of the manifest's relative paths (default: the\n"
    "manifest's data_root; without one, $PERFBOUND_SHARED_DIR/data). With --report, validates one saved bound\n"
    "report (perfbound.bound_report/1, or a run.json holding one) against one measurement file (msprof\n"
    "op_summary, torch_npu kernel_details, msprof op OpBasicInfo, or a perfbound bench result.json).\n"
    "--format html (with --corpus) prints one self-contained HTML dashboard: each case's strict, given and\n"
    "argued bound against the measured minimum and median on a log axis, tightness, status, binding unit.\n"
    "\n"
    "Exit status: 0 every validated case sound; 4 a case is FAIL (unsound); 5 every case is\n"
    "INFRA_ERROR; 3 invalid input; 2 usage error; 130 interrupted.\n";

constexpr const char *kCounterfactualUsage =
    "usage: perfbound counterfactual CONFIG.toml [--out DIR] [--predict-only] [--json]\n"
    "\n"
    "Edits a raw HIVM dump (remove a pipe_barrier, remove a set_flag/wait_flag pair, lower a buffer's\n"
    "multi-buffer count) by the line numbers perfbound.extract_hivm reports, checks by re-extraction\n"
    "that exactly the edited ops changed, and predicts the time delta. When the config has a [measure]\n"
    "section, builds, runs and profiles the baseline and the edited kernel (locally or over ssh),\n"
    "checks the edited kernel's .npy outputs against the baseline's, and compares the predicted with\n"
    "the measured delta. Artifacts go to --out (default: CONFIG's directory/<config name>.out).\n"
    "\n"
    "Exit status: 0 PASS or prediction only; 1 FAIL (outputs differ, or the re-extraction check\n"
    "failed); 5 INFRA_ERROR (a step could not run); 3 invalid config or a refused edit; 2 usage error;\n"
    "130 interrupted (the running step's process group is killed).\n";

/// Thrown between corpus cases once SIGINT/SIGTERM arrived.
struct Interrupted {};

/// Parses "--flag VALUE" options; repeated ones accumulate.
struct Args {
  std::map<std::string, std::vector<std::string>> values;
  std::vector<std::string> flags;
  std::vector<std::string> positional;
  std::string error;

  Args(const std::vector<std::string> &args, const std::vector<std::string> &with_value, const std::vector<std::string> &bare) {
    for (size_t idx = 1; idx < args.size(); ++idx) {
      const std::string &arg = args[idx];
      if (std::find(with_value.begin(), with_value.end(), arg) != with_value.end()) {
        if (idx + 1 >= args.size()) {
          error = arg + " needs a value";
          return;
        }
        values[arg].push_back(args[++idx]);
      } else if (std::find(bare.begin(), bare.end(), arg) != bare.end()) {
        flags.push_back(arg);
      } else if (!arg.empty() && arg[0] == '-') {
        error = "unknown option '" + arg + "'";
        return;
      } else {
        positional.push_back(arg);
      }
    }
  }
  [[nodiscard]] bool has(const std::string &flag) const {
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
  }
  [[nodiscard]] std::optional<std::string> one(const std::string &option) const {
    auto it = values.find(option);
    if (it == values.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
  }
};

void append_text(void *data, const char *text, size_t size) { static_cast<std::string *>(data)->append(text, size); }

/// Runs a pipeline through the host and returns the bound report in its
/// output `report_output` (or why there is none).
BoundOutcome bound_through_pipeline(const pb::sdk::Host &host, const fs::path &pipeline, const std::vector<std::string> &sets,
                                    const std::string &report_output) {
  const auto *runner = host.extension<pb_host_ext_pipeline>(PB_HOST_EXT_PIPELINE);
  if (runner == nullptr) throw pb::sdk::InfraError("the host does not offer " PB_HOST_EXT_PIPELINE);
  BoundOutcome out;
  out.origin.origin = "pipeline " + pipeline.string();
  out.origin.pipeline = pipeline.string();
  std::error_code ec;
  if (!fs::is_regular_file(pipeline, ec)) {
    out.error = "bound pipeline " + pipeline.string() + " not found";
    return out;
  }
  std::vector<const char *> raw;
  for (const std::string &s : sets) raw.push_back(s.c_str());
  std::string text;
  runner->run(host.raw(), pipeline.c_str(), static_cast<uint32_t>(raw.size()), raw.data(), append_text, &text);
  json result = json::parse(text, nullptr, false);
  if (result.is_discarded()) {
    out.error = "the host returned no run result for " + pipeline.string();
    return out;
  }
  BoundOutcome got = report_from_run_result(result, report_output, "pipeline " + pipeline.string());
  got.origin.pipeline = pipeline.string();
  return got;
}

json load_profile(const pb::sdk::Host &host, const std::string &name_or_dir) {
  const auto *profiles = host.extension<pb_host_ext_profile>(PB_HOST_EXT_PROFILE);
  if (profiles == nullptr) throw pb::sdk::InfraError("the host does not offer " PB_HOST_EXT_PROFILE);
  std::string text;
  if (profiles->load(host.raw(), name_or_dir.c_str(), append_text, &text) != PB_OK)
    throw pb::sdk::InputError("hardware profile '" + name_or_dir + "' could not be loaded");
  return json::parse(text);
}

/// The extractor pipeline the counterfactual runs on both dumps (written
/// into the output directory, so a user can rerun it by hand).
constexpr const char *kExtractPipeline = R"(# Written by perfbound counterfactual: the HIVM extractor alone.
version = 1
description = "HIVM extraction for a counterfactual"

[inputs]
hivm = { kind = "file", schema = "perfbound.hivm_text/1" }
launch = { kind = "table", schema = "perfbound.launch/1", required = false }
profile = { kind = "profile", default = "ascend_910b3" }

[nodes.ops]
plugin = "perfbound.extract_hivm"
kind = "hivm_program"
inputs = { hivm = "inputs.hivm", profile = "inputs.profile", launch = "inputs.launch" }

[outputs]
program = "ops.program"
)";

int validate_corpus(const pb::sdk::Host &host, const Args &args) {
  std::optional<fs::path> data, fallback;
  if (auto d = args.one("--data")) data = *d;
  if (const char *shared = std::getenv("PERFBOUND_SHARED_DIR"); shared != nullptr && *shared != '\0')
    fallback = fs::path(shared) / "data";
  Corpus corpus = load_corpus(*args.one("--corpus"), data, fallback);
  if (auto it = args.values.find("--case"); it != args.values.end()) {
    std::vector<CorpusCase> kept;
    for (const std::string &name : it->second) {
      auto found = std::find_if(corpus.cases.begin(), corpus.cases.end(), [&](const CorpusCase &c) { return c.name == name; });
      if (found == corpus.cases.end()) {
        std::string names;
        for (const CorpusCase &c : corpus.cases) names += (names.empty() ? "" : ", ") + c.name;
        throw pb::sdk::InputError(corpus.manifest.string() + ": no case '" + name + "'; cases: " + names);
      }
      kept.push_back(*found);
    }
    corpus.cases = kept;
  }
  const std::optional<std::string> profile = args.one("--profile");
  BoundSource source = [&](const CorpusCase &c) {
    if (interrupt_requested()) throw Interrupted{};
    if (c.report) return read_saved_report(*c.report, corpus.report_output);
    std::vector<std::string> sets;
    for (const auto &[input, path] : c.inputs) {
      std::error_code ec;
      if (!fs::is_regular_file(path, ec)) {
        BoundOutcome missing;
        missing.origin.origin = "pipeline " + c.pipeline.string();
        missing.error = "input '" + input + "' file " + path.string() + " not found";
        return missing;
      }
      sets.push_back(input + "=" + path.string());
    }
    if (!c.launch.is_null()) sets.push_back("launch=" + launch_to_toml(c.launch));
    if (profile) sets.push_back("profile=" + *profile);
    sets.insert(sets.end(), c.sets.begin(), c.sets.end());
    return bound_through_pipeline(host, c.pipeline, sets, corpus.report_output);
  };
  // The dashboard draws each case's strict/given bound and coverage from its report.
  std::map<std::string, json> reports;
  BoundSource keeping = [&](const CorpusCase &c) {
    BoundOutcome got = source(c);
    if (got.report.is_object()) reports[c.name] = got.report;
    return got;
  };
  json doc = run_corpus(corpus, keeping);
  if (args.one("--format").value_or("") == "html")
    std::cout << render_corpus_dashboard(doc, reports);
  else if (args.has("--json") || args.one("--format").value_or("") == "json")
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    std::cout << render_corpus_table(doc);
  return doc["exit_code"].get<int>();
}

int validate_one(const Args &args) {
  for (const char *required : {"--measurement", "--kernel"})
    if (!args.one(required)) {
      std::cerr << "perfbound validate: --report needs " << required << "\n" << kValidateUsage;
      return 2;
    }
  MeasureRequest request;
  request.kernel = *args.one("--kernel");
  if (auto warmup = args.one("--warmup")) {
    char *end = nullptr;
    long value = std::strtol(warmup->c_str(), &end, 10);
    if (end == warmup->c_str() || *end != '\0' || value < 0) {
      std::cerr << "perfbound validate: --warmup must be a whole number >= 0, got '" << *warmup << "'\n";
      return 2;
    }
    request.warmup = static_cast<size_t>(value);
  }
  request.device = args.one("--device");
  json measurement = measure_file(*args.one("--measurement"), request, args.one("--bench-case").value_or(""));
  pb::sdk::throw_if_cancelled();
  BoundOutcome bound = read_saved_report(*args.one("--report"), "bound");
  json validation = validate_bound(bound.report, measurement, bound.origin, "", bound.error);
  pb::sdk::throw_if_cancelled();
  if (args.has("--json") || args.one("--format").value_or("") == "json")
    std::cout << validation.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  else
    std::cout << render_validation(validation);
  const std::string status = validation["status"].get<std::string>();
  return status == "FAIL" ? 4 : status == "INFRA_ERROR" ? 5 : 0;
}

}  // namespace

int validate_main(const pb::sdk::Host &host, const std::vector<std::string> &argv) {
  Args args(argv, {"--corpus", "--data", "--case", "--profile", "--report", "--measurement", "--kernel", "--warmup",
                   "--bench-case", "--device", "--format"},
            {"--json", "-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kValidateUsage;
    return 0;
  }
  if (!args.error.empty() || !args.positional.empty() || (args.one("--corpus").has_value() == args.one("--report").has_value())) {
    std::cerr << "perfbound validate: "
              << (!args.error.empty()            ? args.error
                  : !args.positional.empty()     ? "unexpected argument '" + args.positional.front() + "'"
                                                 : std::string("give exactly one of --corpus and --report"))
              << "\n"
              << kValidateUsage;
    return 2;
  }
  if (auto format = args.one("--format"); format && *format != "text" && *format != "json" && (*format != "html" || !args.one("--corpus"))) {
    std::cerr << "perfbound validate: --format must be text or json" << (args.one("--corpus") ? ", or html" : " (html needs --corpus)")
              << ", got '" << *format << "'\n";
    return 2;
  }
  install_interrupt_handlers();
  // Readers poll it (a 1 GB profiler CSV stops within a poll, not at its end).
  pb::sdk::CancelScope cancel_scope([] { return interrupt_requested(); });
  try {
    return args.one("--corpus") ? validate_corpus(host, args) : validate_one(args);
  } catch (const Interrupted &) {
    std::cerr << "perfbound validate: interrupted\n";
    return 130;
  } catch (const pb::sdk::InputError &e) {
    std::cerr << "perfbound validate: " << e.what() << "\n";
    return 3;
  } catch (const pb::sdk::InfraError &e) {
    std::cerr << "perfbound validate: " << e.what() << "\n";
    return 5;
  } catch (const pb::sdk::Error &e) {
    if (e.status() != PB_ERR_CANCELLED) throw;
    std::cerr << "perfbound validate: interrupted\n";
    return 130;
  }
}

int counterfactual_main(const pb::sdk::Host &host, const std::vector<std::string> &argv) {
  Args args(argv, {"--out"}, {"--json", "--predict-only", "-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kCounterfactualUsage;
    return 0;
  }
  if (!args.error.empty() || args.positional.size() != 1) {
    std::cerr << "perfbound counterfactual: " << (!args.error.empty() ? args.error : std::string("give one CONFIG.toml")) << "\n"
              << kCounterfactualUsage;
    return 2;
  }
  try {
    CounterfactualConfig config = load_counterfactual(args.positional.front());
    fs::path out_dir = args.one("--out") ? fs::path(*args.one("--out"))
                                         : config.file.parent_path() / (config.file.stem().string() + ".out");
    fs::create_directories(out_dir);
    const fs::path extract_pipeline = fs::absolute(out_dir / "extract_hivm.toml");
    std::ofstream(extract_pipeline) << kExtractPipeline;
    std::vector<std::string> common;
    if (!config.launch.is_null()) common.push_back("launch=" + launch_to_toml(config.launch));
    common.push_back("profile=" + config.profile);
    CounterfactualServices services;
    services.profile = load_profile(host, config.profile);
    services.extract = [&](const fs::path &hivm) {
      const auto *runner = host.extension<pb_host_ext_pipeline>(PB_HOST_EXT_PIPELINE);
      if (runner == nullptr) throw pb::sdk::InfraError("the host does not offer " PB_HOST_EXT_PIPELINE);
      std::vector<std::string> sets = common;
      sets.push_back("hivm=" + hivm.string());
      std::vector<const char *> raw;
      for (const std::string &s : sets) raw.push_back(s.c_str());
      std::string text;
      runner->run(host.raw(), extract_pipeline.c_str(), static_cast<uint32_t>(raw.size()), raw.data(), append_text, &text);
      json result = json::parse(text, nullptr, false);
      if (result.is_discarded() || result.value("status", std::string()) != "ok" || !result["outputs"].contains("program")) {
        std::string why = result.is_discarded() ? "no run result" : "run " + result.value("status", std::string("?"));
        if (!result.is_discarded())
          for (const json &node : result.value("nodes", json::array()))
            if (const json error = node.value("error", json()); error.is_string()) why += ": " + error.get<std::string>();
        throw pb::sdk::InputError(hivm.string() + ": the HIVM extraction failed (" + why + ")");
      }
      return result["outputs"]["program"];
    };
    services.bound = [&](const fs::path &hivm) {
      std::vector<std::string> sets = common;
      sets.push_back(config.bound_hivm_input + "=" + hivm.string());
      return bound_through_pipeline(host, *config.bound_pipeline, sets, config.report_output);
    };
    install_interrupt_handlers();
    json doc = run_counterfactual(config, services, out_dir, args.has("--predict-only"));
    std::ofstream(out_dir / "counterfactual.json") << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (interrupt_requested()) {
      std::cerr << "perfbound counterfactual: interrupted; the partial record is in " << (out_dir / "counterfactual.json").string()
                << "\n";
      return 130;
    }
    if (args.has("--json"))
      std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    else
      std::cout << render_counterfactual(doc);
    return counterfactual_exit_code(doc);
  } catch (const pb::sdk::InputError &e) {
    std::cerr << "perfbound counterfactual: " << e.what() << "\n";
    return 3;
  } catch (const pb::sdk::InfraError &e) {
    std::cerr << "perfbound counterfactual: " << e.what() << "\n";
    return 5;
  }
}

}  // namespace perfbound::validate
