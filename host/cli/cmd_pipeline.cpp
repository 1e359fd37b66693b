//===- cmd_pipeline.cpp - `perfbound run`, `lint`, `print-resolved` -------===//
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include <perfbound/sdk/number.hpp>

#include "commands.hpp"
#include "report.hpp"

namespace perfbound::cli {

namespace fs = std::filesystem;

namespace {

struct PipelineArgs {
  std::string pipeline;
  std::vector<std::string> sets;
  std::string profile;
};

void add_pipeline_args(CLI::App *cmd, PipelineArgs &args) {
  cmd->add_option("pipeline", args.pipeline, "Pipeline file (TOML)")->required();
  cmd->add_option("--set", args.sets,
                  "Override an input or parameter: INPUT=VALUE, INPUT.KEY=VALUE (tables) or NODE.PARAM=VALUE; "
                  "VALUE is read as TOML ([1,2], 3, true, \"s\") or else as a plain string")
      ->take_all()
      ->allow_extra_args(false);
  cmd->add_option("--profile", args.profile, "Hardware profile directory or bundled name (sets the pipeline's profile input)");
}

/// Writes `text` to `path`; "" on success, else why (a full disk, a
/// directory that went away): every write is checked.
std::string write_file(const fs::path &path, const std::string &text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return "cannot open " + path.string() + " for writing: " + std::strerror(errno != 0 ? errno : EIO);
  out << text;
  out.flush();
  out.close();
  if (!out) return "cannot write " + path.string() + ": " + std::strerror(errno != 0 ? errno : EIO);
  return {};
}

std::string extension_for(const std::string &format) {
  if (format == "json") return "json";
  if (format == "md") return "md";
  if (format == "html") return "html";
  if (format == "trace") return "trace.json";
  return "txt";
}

}  // namespace

void register_pipeline_commands(CLI::App &root, CommandContext &ctx) {
  // --- run -------------------------------------------------------------
  {
    auto args = std::make_shared<PipelineArgs>();
    auto formats = std::make_shared<std::vector<std::string>>();
    auto out_dir = std::make_shared<std::string>();
    auto jobs = std::make_shared<unsigned>(0);
    auto no_validate = std::make_shared<bool>(false);
    auto progress = std::make_shared<bool>(false);
    auto isolate = std::make_shared<std::string>("auto");
    auto node_deadline = std::make_shared<double>(0);
    CLI::App *cmd = root.add_subcommand("run", "Run a pipeline and print its report");
    add_pipeline_args(cmd, *args);
    cmd->add_option("--format", *formats, "Report format: text, json, md, html (one self-contained page with the pictures) or trace (the bound's "
                                        "schedule as Chrome trace-event JSON for Perfetto / MindStudio Insight) (repeatable)")
        ->check(CLI::IsMember(report_formats()))
        ->allow_extra_args(false);
    cmd->add_option("--out", *out_dir,
                    "Write every output document (<name>.json), the full run result (run.json) and the reports "
                    "(report.txt/.json/.md/.trace.json for each --format, and always report.html) into this directory");
    cmd->add_option("--jobs,-j", *jobs, "Nodes to run in parallel (default: number of CPUs)");
    cmd->add_flag("--no-validate", *no_validate, "Do not check documents against their published JSON Schemas");
    cmd->add_flag("--progress", *progress, "Print progress of long-running nodes to stderr");
    cmd->add_option("--isolate", *isolate,
                    "Where nodes run: auto (a node's 'isolate' key, else in a child process when its plugin is not "
                    "shipped with perfbound), all (every node in a child process: a crash, exit or hang there fails "
                    "the node, not perfbound), none (every node in perfbound's process)")
        ->check(CLI::IsMember({"auto", "all", "none"}));
    cmd->add_option("--node-deadline", *node_deadline,
                    "Seconds each node (create + run + destroy) may take, overriding the nodes' deadline_s "
                    "(default: deadline_s, else 600); a node past it is stopped and fails")
        ->check([](const std::string &text) -> std::string {
          std::optional<double> seconds = pb::sdk::parse_number(text);
          const pb::sdk::NumberRange range = pb::sdk::NumberRange::positive().at_most(kMaxNodeDeadlineSeconds);
          if (!seconds) return "not a number of seconds: " + text;
          return pb::sdk::number_problem(*seconds, range, text);
        });
    cmd->footer(
        "Exit status: 0 all nodes succeeded; 1 a node failed (crashed, called exit, passed its deadline in a child\n"
        "process, or returned an error), or the report could not be written; 2 usage error; 3 invalid pipeline or\n"
        "input (a node refusing its input included); 130 interrupted (Ctrl-C or SIGTERM: running nodes are asked to stop, the rest do not start).\n"
        "A node running in perfbound's own process that crashes or calls exit() ends perfbound (naming the node).\n"
        "Example: perfbound run pipelines/bound_hivm.toml --set hivm=kernel.npuir.mlir --profile ascend_910b3");
    cmd->callback([&ctx, args, formats, out_dir, jobs, no_validate, progress, isolate, node_deadline]() {
      ctx.action = [=](App &app) -> int {
        RunOptions ro;
        ro.jobs = *jobs;
        ro.isolation = isolation_from_name(*isolate).value_or(Isolation::Auto);
        ro.node_deadline = std::chrono::milliseconds(static_cast<long long>(*node_deadline * 1000.0));
        ro.validate_documents = !*no_validate;
        ro.cancel = &cancel_flag();
        if (*progress || isatty(STDERR_FILENO) != 0) ro.on_progress = [](const std::string &line) { std::cerr << line << "\n"; };
        install_interrupt_handler();
        RunResult result = app.run_pipeline(args->pipeline, args->sets, args->profile, ro);
        std::vector<std::string> fmts = formats->empty() ? std::vector<std::string>{"text"} : *formats;
        if (result.status == "invalid") {
          std::cerr << result.diagnostics.format();
          std::cerr << "perfbound: " << args->pipeline << ": not run (" << result.diagnostics.error_count() << " error(s))\n";
          return kExitInvalidInput;
        }
        if (!out_dir->empty()) {
          std::error_code ec;
          fs::create_directories(*out_dir, ec);
          if (ec) {
            std::cerr << "perfbound: cannot create output directory " << *out_dir << ": " << ec.message() << "\n";
            return kExitFailure;
          }
          std::vector<std::string> failed_writes;
          auto keep = [&failed_writes](const std::string &why) {
            if (!why.empty()) failed_writes.push_back(why);
          };
          for (const auto &[name, doc] : result.outputs) keep(write_file(fs::path(*out_dir) / (name + ".json"), doc->data() + "\n"));
          keep(write_file(fs::path(*out_dir) / "run.json", result.to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
          std::vector<std::string> file_formats = fmts;
          if (std::find(file_formats.begin(), file_formats.end(), "html") == file_formats.end()) file_formats.push_back("html");
          for (const std::string &f : file_formats)
            keep(write_file(fs::path(*out_dir) / ("report." + extension_for(f)), render_report(result, f, *app.plugins)));
          if (!failed_writes.empty()) {
            for (const std::string &why : failed_writes) std::cerr << "perfbound: " << why << "\n";
            return kExitFailure;
          }
          std::cerr << "perfbound: wrote " << result.outputs.size() << " output document(s) and reports to " << *out_dir
                    << " (open " << (fs::path(*out_dir) / "report.html").string() << ")\n";
        }
        if (out_dir->empty() || !formats->empty()) {
          for (const std::string &f : fmts) std::cout << render_report(result, f, *app.plugins);
          if (std::string why = flush_stdout(); !why.empty()) {
            std::cerr << "perfbound: cannot write the report to standard output: " << why << "\n";
            return kExitFailure;
          }
        }
        // A node that refused its input (a file of the wrong kind, a launch
        // value its argument cannot hold) is the user's input: exit 3.
        bool refused = false;
        for (const NodeResult &nr : result.nodes) {
          if (nr.status != NodeStatus::Failed) continue;
          refused = refused || nr.refused_input;
          std::cerr << "perfbound: node '" << nr.id << "' (" << nr.plugin << "/" << nr.kind << ") "
                    << (nr.refused_input ? "refused its input" : "failed") << ": " << nr.error << "\n";
        }
        if (cancel_flag().load()) {
          std::cerr << "perfbound: interrupted: running nodes were asked to stop, the others did not start\n";
          return kExitInterrupted;
        }
        if (!result.ok) return refused ? kExitInvalidInput : kExitFailure;
        return kExitOk;
      };
    });
  }
  // --- lint ------------------------------------------------------------
  {
    auto args = std::make_shared<PipelineArgs>();
    auto json_out = std::make_shared<bool>(false);
    CLI::App *cmd = root.add_subcommand("lint", "Check a pipeline without running it (all problems, with file:line)");
    add_pipeline_args(cmd, *args);
    cmd->add_flag("--json", *json_out, "Print diagnostics as JSON");
    cmd->footer("Exit status: 0 no errors (warnings allowed); 3 errors found; 2 usage error.");
    cmd->callback([&ctx, args, json_out]() {
      ctx.action = [=](App &app) -> int {
        App::LoadedPipeline loaded = app.load_pipeline(args->pipeline, args->sets, args->profile, ResolveMode::Check);
        if (*json_out) {
          json j{{"schema", "perfbound.lint_result/1"},
                 {"file", args->pipeline},
                 {"ok", !loaded.diagnostics.has_errors()},
                 {"diagnostics", loaded.diagnostics.to_json()}};
          std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        } else {
          std::cout << loaded.diagnostics.format();
          if (!loaded.diagnostics.has_errors() && loaded.resolved) {
            size_t edges = 0;
            for (const ResolvedNode &n : loaded.resolved->nodes)
              for (const auto &[port, refs] : n.inputs) edges += refs.size();
            std::cout << args->pipeline << ": ok (" << loaded.resolved->nodes.size() << " nodes, " << edges << " connections)\n";
          } else {
            std::cout << args->pipeline << ": " << loaded.diagnostics.error_count() << " error(s)\n";
          }
        }
        return loaded.diagnostics.has_errors() ? kExitInvalidInput : kExitOk;
      };
    });
  }
  // --- print-resolved --------------------------------------------------
  {
    auto args = std::make_shared<PipelineArgs>();
    auto json_out = std::make_shared<bool>(false);
    CLI::App *cmd = root.add_subcommand("print-resolved",
                                        "Print the pipeline with every parameter resolved and where each value came from");
    add_pipeline_args(cmd, *args);
    cmd->add_flag("--json", *json_out, "Print as JSON");
    cmd->callback([&ctx, args, json_out]() {
      ctx.action = [=](App &app) -> int {
        App::LoadedPipeline loaded = app.load_pipeline(args->pipeline, args->sets, args->profile, ResolveMode::Check);
        if (!loaded.resolved) {
          std::cerr << loaded.diagnostics.format();
          return kExitInvalidInput;
        }
        std::cerr << loaded.diagnostics.format();
        if (*json_out)
          std::cout << loaded.resolved->to_json().dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
        else
          std::cout << loaded.resolved->to_text();
        return kExitOk;
      };
    });
  }
}

}  // namespace perfbound::cli
