//===- conformance_hivm.cpp - the peer suites' HIVM sections as a corpus ---===//
//
// Every `// -----` section (mlir-opt --split-input-file) of every file in
// ../shared/data/peer that holds `hivm.hir.` ops outside comments is run on
// its own through pipelines/bound_hivm.toml -- the extractor and the
// HIVM-only bound, as `perfbound run` runs them, in-process -- with one block
// (`launch.grid = [1]`) and no other launch value. A section is written to a
// file of its own in which every other section's lines are blank, so the
// lines the tool names are the lines of the original file.
//
// Outcomes, per section:
//   ok        a bound, and nothing silent (below);
//   no bound  the run succeeded but gave no number;
//   refused   the run failed with a message naming file:line: invalid IR
//             (the section is an `expected-error` test), invalid by the
//             verifier (IR MLIR's verifier refuses too: a second definition,
//             a non-positive constant loop step, ...), out of scope (the
//             section is not something the HIVM bound reads: no function
//             with HIVM work, no core a bound can be put on), or a gap (IR
//             we should read and do not);
//   unnamed   refused without naming file:line;
//   crash     the process died (a signal) or a node crashed;
//   hang      no answer within kSectionTimeout;
//   silent    a hivm.hir op of a function has no op record, a hivm.hir work
//             op is neither counted nor listed as not counted (with its line)
//             in the report's coverage, or a function with a body has no
//             function record and no warning naming it.
// The test fails on any crash, hang, silent or unnamed section. The table and
// one line per section (conformance_hivm.tsv) are written to the build
// directory; docs/validation.md ("Conformance") gives the figures.
//
// Crashes and hangs are contained: a child process runs the sections of one
// file and reports each before and after it runs; the parent kills a child
// that stays silent too long and starts another for the rest of the file.
// Two children run at a time (PB_CONFORMANCE_JOBS sets another number);
// PB_CONFORMANCE_ONLY=<part of a path> runs only the files that match.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "engine.hpp"
#include "paths.hpp"
#include "pipeline.hpp"
#include "plugin_loader.hpp"
#include "profile.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

constexpr int kSectionTimeoutSeconds = 60;

/// One `// -----` section: byte range [begin, end) of its file.
struct Section {
  size_t begin = 0, end = 0;
  uint32_t first_line = 1;  // 1-based line of `begin`
};

/// mlir-opt's split (mlir/lib/Support/ToolUtilities.cpp): the text is cut at
/// every "// ---" that is followed by "--" and one more character (other
/// than '0'); the marker's 8 characters belong to neither side.
std::vector<Section> split_sections(const std::string &text) {
  std::vector<Section> out;
  size_t begin = 0;
  size_t at = 0;
  while ((at = text.find("// ---", at)) != std::string::npos) {
    const size_t after = at + 6;
    if (after + 2 < text.size() && text[after] == '-' && text[after + 1] == '-' && text[after + 2] != '0') {
      out.push_back({begin, at, 0});
      begin = after + 2;
      at = begin;
    } else {
      at = after;
    }
  }
  out.push_back({begin, text.size(), 0});
  uint32_t line = 1;
  size_t pos = 0;
  for (Section &s : out) {
    for (; pos < s.begin; ++pos) line += text[pos] == '\n' ? 1 : 0;
    s.first_line = line;
  }
  return out;
}

/// The line without its `//` comment (a `//` inside a string literal is kept).
std::string code_of(const std::string &line) {
  bool in_string = false;
  for (size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '"' && (i == 0 || line[i - 1] != '\\')) in_string = !in_string;
    if (!in_string && line[i] == '/' && i + 1 < line.size() && line[i + 1] == '/') return line.substr(0, i);
  }
  return line;
}

/// What the section holds, read from its text.
struct SectionText {
  std::vector<std::pair<uint32_t, std::string>> hivm_ops;   // (line, "hivm.hir.x") outside comments
  std::vector<std::pair<uint32_t, std::string>> functions;  // (line, "@name") of every func.func
  bool expected_error = false;
};

SectionText scan(const std::string &text, const Section &s) {
  SectionText out;
  static const std::regex op_re(R"re((?:^|[\s="(])"?(hivm\.hir\.[A-Za-z_][A-Za-z0-9_]*))re");
  static const std::regex func_re(R"re(^\s*(?:"?func\.func"?)\s+(?:(?:public|private|nested)\s+)?(@[A-Za-z0-9_$.\-]+|@"[^"]*"))re");
  std::istringstream in(text.substr(s.begin, s.end - s.begin));
  std::string line;
  uint32_t n = s.first_line;
  for (; std::getline(in, line); ++n) {
    if (line.find("expected-error") != std::string::npos) out.expected_error = true;
    std::string code = code_of(line);
    for (std::sregex_iterator it(code.begin(), code.end(), op_re), end; it != end; ++it)
      out.hivm_ops.emplace_back(n, (*it)[1].str());
    std::smatch m;
    if (std::regex_search(code, m, func_re)) out.functions.emplace_back(n, m[1].str());
  }
  return out;
}

/// hivm.hir ops that carry no work of their own: synchronisation, scalar
/// queries and settings, allocation and views. Everything else is a work op.
bool is_work_op(const std::string &name) {
  static const std::set<std::string> kNoWork = {
      "set_flag", "wait_flag", "pipe_barrier", "sync_block", "sync_block_set", "sync_block_wait",
      "create_sync_block_lock", "sync_block_lock", "sync_block_unlock", "free_lock_var", "get_block_idx",
      "get_block_num", "get_sub_block_idx", "get_sub_block_num", "get_sys_cnt", "set_mask_norm", "set_ctrl",
      "set_atomic", "set_ffts_base_addr", "init_debug", "finish_debug", "debug", "multi_buffer_counter",
      "pointer_cast", "bitcast", "dcci", "load_scalar", "convert_layout", "anchor"};
  const std::string m = name.substr(name.rfind('.') + 1);
  return kNoWork.count(m) == 0;
}

/// The outcome of one section.
struct Outcome {
  std::string kind;    // ok, no_bound, refused_invalid, refused_scope, refused_gap, unnamed, crash, hang, silent
  std::string detail;  // the message, or what was silent
  bool work = false;   // the section has hivm.hir work ops in a function
};

/// Refusals that are not gaps: the section is not something the HIVM bound reads.
bool out_of_scope(const std::string &message) {
  static const std::regex re(
      "no function with a body|no function runs on an AIC or an AIV core|has no core type|holds no HIVM|"
      "no hivm\\.hir|not a kernel|out of scope");
  return std::regex_search(message, re);
}

/// Refusals for IR that MLIR's own verifier refuses too (an input that is
/// not an expected-error test, but invalid all the same).
bool invalid_ir(const std::string &message) {
  static const std::regex re(
      "a loop step must be positive|is defined twice|redefinition of symbol|refers to itself|"
      "operand\\(s\\) but its type lists|result\\(s\\) but its type lists|does not fit its type|"
      "is not the last operation of its block");
  return std::regex_search(message, re);
}

// --- the child: runs sections in-process ------------------------------------

class Runner {
 public:
  Runner() : services_(logger_), plugins_(services_) {
    logger_.set_writer([](const std::string &) {});
    plugins_.discover({{perfbound::builtin_plugin_dir(), "built-in"}});
    schemas_.load_dir(pbtest::source_dir() / "abi" / "schemas");
  }

  Outcome run(const fs::path &file, const SectionText &text) {
    Outcome out;
    perfbound::Diagnostics diags;
    auto pipeline = perfbound::parse_pipeline_file(pbtest::source_dir() / "pipelines" / "bound_hivm.toml", diags);
    if (!pipeline) return {"crash", "bound_hivm.toml does not parse: " + diags.format()};
    perfbound::PluginCatalog catalog;
    catalog.find = [this](std::string_view id) { return plugins_.find(id); };
    catalog.ids = plugins_.ids();
    std::vector<perfbound::Override> overrides{{"hivm", file.string()}, {"launch.grid", "[1]"}};
    auto resolved = perfbound::resolve_pipeline(std::move(*pipeline), catalog, overrides, perfbound::ResolveMode::Run,
                                                &perfbound::locate_profile, diags);
    if (!resolved) return {"crash", "the pipeline does not resolve: " + diags.format()};
    // The profile is read once per child (every section runs on the same one).
    perfbound::Engine engine(services_, plugins_, schemas_,
                             [this](const fs::path &dir) -> perfbound::Expected<perfbound::LoadedProfile> {
                               if (!profile_ || profile_dir_ != dir) {
                                 auto loaded = perfbound::load_profile_document(dir);
                                 if (!loaded) return loaded;
                                 profile_ = *loaded;
                                 profile_dir_ = dir;
                               }
                               return *profile_;
                             });
    perfbound::RunOptions options;
    options.jobs = 1;
    perfbound::RunResult result = engine.run(*resolved, options);
    if (!result.ok) {
      std::string message;
      for (const perfbound::NodeResult &n : result.nodes)
        if (n.status == perfbound::NodeStatus::Failed) message += (message.empty() ? "" : " | ") + n.id + ": " + n.error;
      if (message.empty()) message = result.status + ": " + result.diagnostics.format();
      if (message.find("crash") != std::string::npos && message.find("plugin") != std::string::npos)
        return {"crash", message};
      static const std::regex line_re(R"(\.mlir:[0-9]+)");
      if (!std::regex_search(message, line_re)) return {"unnamed", message};
      if (text.expected_error) return {"refused_invalid", message};
      if (invalid_ir(message)) return {"refused_verifier", message};
      if (out_of_scope(message)) return {"refused_scope", message};
      return {"refused_gap", message};
    }
    const json *program = nullptr;
    for (const perfbound::NodeResult &n : result.nodes)
      if (n.id == "ops" && n.outputs.count("program")) program = &n.outputs.at("program")->parsed();
    const json &report = result.outputs.at("bound")->parsed();
    if (program == nullptr) return {"crash", "no program document"};
    std::string silent = check_silent(*program, report, text);
    if (!silent.empty()) return {"silent", silent};
    const json &bound = report["bound"];
    if (!bound.contains("value") || !bound["value"].is_number()) return {"no_bound", bound.value("reason", "")};
    std::ostringstream value;
    value << bound["value"].get<double>();
    return {"ok", value.str()};
  }

 private:
  /// What the run left unsaid (empty when nothing).
  static std::string check_silent(const json &program, const json &report, const SectionText &text) {
    // Functions: every function has a record, or a warning names it (a declaration, a function left out).
    std::set<std::string> names;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    for (const json &f : program["functions"]) {
      names.insert(f.value("name", ""));
      ranges.emplace_back(f.value("line", 0), f.value("end_line", 0));
    }
    std::string warnings;
    for (const json &w : program["warnings"]) warnings += w.get<std::string>() + "\n";
    for (const auto &[line, name] : text.functions)
      if (!names.count(name) && warnings.find(name) == std::string::npos)
        return "function " + name + " (line " + std::to_string(line) + ") dropped without a word";
    // Ops: every hivm.hir op inside a function has a record.
    std::set<std::pair<int64_t, std::string>> records;
    for (const json &op : program["ops"]) records.emplace(op.value("line", 0), op.value("op", ""));
    for (const auto &[line, name] : text.hivm_ops) {
      bool in_function = false;
      for (const auto &[first, last] : ranges) in_function = in_function || (line >= first && line <= last);
      if (in_function && !records.count({line, name}))
        return name + " at line " + std::to_string(line) + " has no op record";
    }
    // Work ops: counted, or listed as not counted with their line.
    const json &coverage = report["coverage"]["hivm"];
    std::set<std::pair<int64_t, std::string>> listed;
    for (const json &u : coverage["not_counted"]) listed.emplace(u.value("line", 0), u.value("op", ""));
    const bool list_complete = coverage.value("not_counted_total", 0) <= static_cast<int64_t>(listed.size());
    for (const json &op : program["ops"]) {
      const std::string name = op.value("op", "");
      if (name.rfind("hivm.hir.", 0) != 0 || !is_work_op(name)) continue;
      const std::string core = op.value("core", "");
      const bool counted_kind = op.value("modelled", false) && (core == "aic" || core == "aiv");
      const json &count = op["count"];
      const bool never_runs = count.value("exact", false) && count["value"].is_number() && count["value"] == 0;
      if (counted_kind || never_runs || !list_complete) continue;
      if (!listed.count({op.value("line", 0), name}))
        return name + " at line " + std::to_string(op.value("line", 0)) + " (core " + core +
               (op.value("modelled", false) ? "" : ", not modelled") + ") is neither counted nor listed as not counted";
    }
    return {};
  }

  std::optional<perfbound::LoadedProfile> profile_;
  fs::path profile_dir_;
  perfbound::Logger logger_;
  perfbound::HostServices services_;
  perfbound::PluginRegistry plugins_;
  perfbound::SchemaRegistry schemas_;
};

/// A file with only section `s` of `text`; other lines blank.
std::string isolate(const std::string &text, const Section &s) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < s.begin; ++i)
    if (text[i] == '\n') out += '\n';
  out.append(text, s.begin, s.end - s.begin);
  return out;
}

std::string one_line(std::string text) {
  for (char &c : text)
    if (c == '\n' || c == '\t') c = ' ';
  return text.size() > 400 ? text.substr(0, 400) + "..." : text;
}

/// One file's sections, run by one child process at a time.
struct FileJob {
  fs::path rel, tmp_file;
  std::string text;
  std::vector<Section> sections;
  std::vector<SectionText> texts;
  std::vector<size_t> todo;  // the sections to run, in order
  std::map<size_t, Outcome> outcomes;
  // The child running todo[next...]:
  size_t next = 0;
  pid_t pid = -1;
  int fd = -1;
  std::string buffer;
  size_t current = 0;  // the section it last started
  bool started = false;
  std::chrono::steady_clock::time_point heard;
};

/// Starts a child that runs the job's sections from `next` on, reporting
/// "S <section>" before and "R <section> <kind> <detail>" after each.
void start_child(FileJob &job) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(fds[0]);
    FILE *out = ::fdopen(fds[1], "w");
    Runner runner;
    for (size_t k = job.next; k < job.todo.size(); ++k) {
      const size_t idx = job.todo[k];
      std::fprintf(out, "S %zu\n", idx);
      std::fflush(out);
      pbtest::write_file(job.tmp_file, isolate(job.text, job.sections[idx]));
      Outcome o = runner.run(job.tmp_file, job.texts[idx]);
      std::fprintf(out, "R %zu %s %s\n", idx, o.kind.c_str(), one_line(o.detail).c_str());
      std::fflush(out);
    }
    std::fclose(out);
    ::_exit(0);
  }
  ::close(fds[1]);
  job.pid = pid;
  job.fd = fds[0];
  job.buffer.clear();
  job.current = job.todo[job.next];
  job.started = false;
  job.heard = std::chrono::steady_clock::now();
}

/// Reads what the job's child said; true while it is still running.
bool read_child(FileJob &job) {
  char chunk[4096];
  const ssize_t n = ::read(job.fd, chunk, sizeof chunk);
  if (n <= 0) return false;
  job.heard = std::chrono::steady_clock::now();
  job.buffer.append(chunk, static_cast<size_t>(n));
  size_t nl;
  while ((nl = job.buffer.find('\n')) != std::string::npos) {
    std::string line = job.buffer.substr(0, nl);
    job.buffer.erase(0, nl + 1);
    if (line.rfind("S ", 0) == 0) {
      job.current = std::stoul(line.substr(2));
      job.started = true;
    } else if (line.rfind("R ", 0) == 0) {
      std::istringstream in(line.substr(2));
      size_t idx;
      Outcome o;
      in >> idx >> o.kind;
      std::getline(in, o.detail);
      if (!o.detail.empty() && o.detail[0] == ' ') o.detail.erase(0, 1);
      job.outcomes[idx] = o;
      ++job.next;
      job.started = false;
    }
  }
  return true;
}

/// The child has ended or was killed: the section it was in (if any) is a
/// crash or a hang, and a new child takes the rest. False when the job is done.
bool reap_child(FileJob &job, bool timed_out) {
  ::close(job.fd);
  int status = 0;
  ::waitpid(job.pid, &status, 0);
  job.pid = -1;
  if (job.next >= job.todo.size()) return false;
  Outcome o;
  if (timed_out) o = {"hang", "no answer within " + std::to_string(kSectionTimeoutSeconds) + " s"};
  else if (WIFSIGNALED(status)) o = {"crash", std::string("signal ") + strsignal(WTERMSIG(status))};
  else o = {"crash", "the child exited with status " + std::to_string(WEXITSTATUS(status))};
  job.outcomes[job.current] = o;
  ++job.next;
  if (job.next >= job.todo.size()) return false;
  start_child(job);
  return true;
}

/// Runs every job, `parallel` children at a time.
void run_jobs(std::vector<FileJob> &jobs, size_t parallel) {
  size_t next_job = 0;
  std::vector<FileJob *> active;
  while (next_job < jobs.size() || !active.empty()) {
    while (active.size() < parallel && next_job < jobs.size()) {
      FileJob &job = jobs[next_job++];
      start_child(job);
      active.push_back(&job);
    }
    std::vector<pollfd> fds;
    for (FileJob *job : active) fds.push_back({job->fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 1000);
    const auto now = std::chrono::steady_clock::now();
    for (size_t k = 0; k < active.size();) {
      FileJob &job = *active[k];
      bool running = true;
      if (fds[k].revents != 0) {
        running = read_child(job) || reap_child(job, false);
      } else if (now - job.heard > std::chrono::seconds(kSectionTimeoutSeconds)) {
        ::kill(job.pid, SIGKILL);
        running = reap_child(job, true);
      }
      if (running) {
        ++k;
      } else {
        active.erase(active.begin() + static_cast<std::ptrdiff_t>(k));
        fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
  }
}

}  // namespace

TEST_CASE("conformance_hivm: every HIVM section of the peer suites is read, bounded or refused with its line") {
  const fs::path peer = pbtest::shared_dir() / "data" / "peer";
  if (!fs::is_directory(peer)) {
    MESSAGE("SKIPPED: " << peer.string() << " not found (set PERFBOUND_SHARED_DIR); conformance corpus not run");
    return;
  }
  const auto started = std::chrono::steady_clock::now();
  // The files, in SOURCES.tsv order.
  std::vector<fs::path> files;
  {
    std::istringstream in(pbtest::read_file(peer / "SOURCES.tsv"));
    std::string row;
    std::getline(in, row);  // header
    while (std::getline(in, row)) {
      std::vector<std::string> cols;
      std::istringstream cells(row);
      for (std::string c; std::getline(cells, c, '\t');) cols.push_back(c);
      if (cols.size() >= 4) files.push_back(fs::path(cols[0]) / cols[3]);
    }
  }
  REQUIRE(!files.empty());
  pbtest::TempDir tmp;
  struct Row {
    std::string file;
    uint32_t line;
    Outcome outcome;
  };
  const char *only = std::getenv("PB_CONFORMANCE_ONLY");  // a substring of the file paths to run (for debugging)
  std::vector<FileJob> jobs;
  for (const fs::path &rel : files) {
    if (only != nullptr && rel.string().find(only) == std::string::npos) continue;
    FileJob job;
    job.rel = rel;
    job.tmp_file = tmp / rel.string();
    job.text = pbtest::read_file(peer / rel);
    job.sections = split_sections(job.text);
    for (size_t idx = 0; idx < job.sections.size(); ++idx) {
      job.texts.push_back(scan(job.text, job.sections[idx]));
      if (!job.texts.back().hivm_ops.empty()) job.todo.push_back(idx);
    }
    if (!job.todo.empty()) jobs.push_back(std::move(job));
  }
  // Children at a time: the cores ctest gives us (PB_CONFORMANCE_JOBS), else 2.
  size_t parallel = 2;
  if (const char *env = std::getenv("PB_CONFORMANCE_JOBS"); env != nullptr && std::atoi(env) > 0)
    parallel = static_cast<size_t>(std::atoi(env));
  run_jobs(jobs, parallel);
  std::vector<Row> rows;
  for (FileJob &job : jobs)
    for (size_t idx : job.todo) {
      Outcome o = job.outcomes.count(idx) ? job.outcomes[idx] : Outcome{"crash", "no outcome"};
      for (const auto &[line, name] : job.texts[idx].hivm_ops)
        if (is_work_op(name)) o.work = o.work || !job.texts[idx].functions.empty();
      rows.push_back({job.rel.string(), job.sections[idx].first_line, o});
    }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // The table.
  std::map<std::string, int> count, count_work;
  for (const Row &r : rows) {
    ++count[r.outcome.kind];
    if (r.outcome.work) ++count_work[r.outcome.kind];
  }
  int work_sections = 0;
  for (const Row &r : rows) work_sections += r.outcome.work ? 1 : 0;
  const char *kinds[] = {"ok",          "no_bound", "refused_invalid", "refused_verifier", "refused_scope",
                         "refused_gap", "unnamed",  "crash",           "hang",             "silent"};
  std::ostringstream table;
  table << "HIVM conformance over " << peer.string() << " (" << std::fixed << std::setprecision(1) << seconds << " s)\n";
  table << std::left << std::setw(18) << "outcome" << std::right << std::setw(10) << "sections" << std::setw(14)
        << "with work ops" << "\n";
  table << std::left << std::setw(18) << "all" << std::right << std::setw(10) << rows.size() << std::setw(14)
        << work_sections << "\n";
  for (const char *k : kinds)
    table << std::left << std::setw(18) << k << std::right << std::setw(10) << count[k] << std::setw(14)
          << count_work[k] << "\n";
  const int good_work = count_work["ok"] + count_work["refused_invalid"] + count_work["refused_verifier"];
  table << "sections with hivm.hir work ops in functions that give a bound or are refused as invalid IR: " << good_work
        << " of " << work_sections << " ("
        << std::setprecision(1) << (work_sections ? 100.0 * good_work / work_sections : 100.0) << " %)\n";
  std::cout << table.str();
  {
    std::ofstream tsv(fs::path(PB_CONFORMANCE_OUT) / "conformance_hivm.tsv");
    tsv << "file\tline\toutcome\twork\tdetail\n";
    for (const Row &r : rows)
      tsv << r.file << '\t' << r.line << '\t' << r.outcome.kind << '\t' << (r.outcome.work ? 1 : 0) << '\t'
          << r.outcome.detail << '\n';
    std::ofstream(fs::path(PB_CONFORMANCE_OUT) / "conformance_hivm.txt") << table.str();
  }
  for (const Row &r : rows)
    if (r.outcome.kind == "crash" || r.outcome.kind == "hang" || r.outcome.kind == "silent" || r.outcome.kind == "unnamed")
      MESSAGE(r.outcome.kind << ": " << r.file << ":" << r.line << ": " << r.outcome.detail);
  CHECK(count["crash"] == 0);
  CHECK(count["hang"] == 0);
  CHECK(count["silent"] == 0);
  CHECK(count["unnamed"] == 0);
}
