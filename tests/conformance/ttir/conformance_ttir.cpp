//===- conformance_ttir.cpp - the TTIR front end over other people's IR ----===//
//
// The lit tests of the Ascend Triton backend and of AscendNPU-IR
// (../shared/data/peer, byte-exact copies) as a conformance corpus: every
// `tt.func` of every `// -----` section goes through what the plugin's node
// runs — analyze_ttir (split auto), select_kernel with "NAME:LINE",
// build_dsl_facts with a launch derived from the signature — in a child
// process per file, so that a crash or a hang is counted, not fatal.
//
// Each function written in the text (found by a scan of each section) ends
// as one of:
//   ok        DSL facts produced;
//   refused   MLIR's parser or verifier refused it, with file:line and why:
//             invalid      the section is a deliberately invalid test
//                          (`expected-error`), or MLIR names an error in
//                          the input itself that Triton's own parser would
//                          refuse too (an undefined alias or value, a symbol
//                          defined twice in a section, `!tt.ptr` without its
//                          pointee type, integers in a float constant);
//             scope        IR of a later stage than TTIR (TritonGPU layouts
//                          and memory descriptors, linalg/tensor/memref/hivm
//                          bodies), which the TTIR front end does not read;
//             gap          anything else: TTIR we should read and do not;
//   crash     the child died of a signal;
//   hang      the child did not finish within kFileSeconds;
//   silent    the function is neither analysed nor refused.
// The table is printed and written to <build>/tests/conformance/ttir/
// conformance_ttir.txt with every refusal. The test fails on any crash, hang
// or silent function, on a refusal that does not name file:line, and when
// fewer than 97 % of the functions that are valid IR produce facts.
//
//===----------------------------------------------------------------------===//
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>

#include "ttir_test_support.hpp"
#include "ttir_text.hpp"

using namespace ttirtest;

namespace {

constexpr int kFileSeconds = 60;

/// A launch for a kernel: grid [3, 2, 1] and every scalar argument a value
/// from its position (integers a multiple of their divisibility hint, i1
/// true, floats 0.5), as the golden test derives them.
json derived_launch(const perfbound::ttir::KernelModel &k) {
  json args = json::object();
  for (const perfbound::ttir::KernelArg &a : k.args) {
    if (a.kind != perfbound::ttir::ArgKind::Scalar) continue;
    const std::string key = "%arg" + std::to_string(a.index);
    if (a.is_float)
      args[key] = 0.5;
    else if (a.element_bits == 1)
      args[key] = true;
    else if (a.divisibility > 0)
      args[key] = a.divisibility * (4 + a.index % 5);
    else
      args[key] = 100 + 37 * a.index;
  }
  return {{"schema", "perfbound.launch/1"},
          {"kernel", k.name + ":" + std::to_string(k.ttir_line)},
          {"grid", {3, 2, 1}},
          {"args", args}};
}

std::string one_line(std::string text) {
  for (char &c : text)
    if (c == '\n' || c == '\t' || c == '\r') c = ' ';
  return text;
}

/// The child: every function of `path`, one line each on `fd`:
/// "<line>\t<name>\tok" or "<line>\t<name>\trefused\t<message>".
[[noreturn]] void run_child(const fs::path &path, const std::string &origin, int fd) {
  std::string out;
  const std::string text = pbtest::read_file(path);
  auto module = perfbound::ttir::analyze_ttir(text, origin);
  perfbound::ttir::FactsOptions options;
  options.row_budget = 200000;
  options.program_budget = 4096;
  if (!module) {
    // Every function refused (or the text refused as a whole).
    for (const perfbound::ttir::Refusal &r : module.error().refused)
      out += std::to_string(r.line) + "\t" + r.name + "\trefused\t" + one_line(r.message) + "\n";
    if (module.error().refused.empty()) out += "0\t\terror\t" + one_line(module.error().message) + "\n";
  } else {
    for (const perfbound::ttir::KernelModel &k : module->kernels) {
      out += std::to_string(k.ttir_line) + "\t" + k.name + "\t";
      try {
        json launch = derived_launch(k);
        const perfbound::ttir::KernelModel &chosen = perfbound::ttir::select_kernel(*module, launch);
        json doc = perfbound::ttir::build_dsl_facts(*module, chosen, launch, profile_910b3(), options);
        out += &chosen == &k && doc.is_object() ? "ok\n" : "refused\tselected another kernel\n";
      } catch (const std::exception &e) {
        out += "refused\t" + one_line(e.what()) + "\n";
      }
    }
    for (const perfbound::ttir::Refusal &r : module->refused)
      out += std::to_string(r.line) + "\t" + r.name + "\trefused\t" + one_line(r.message) + "\n";
  }
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::write(fd, out.data() + done, out.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  std::_Exit(0);
}

struct Outcome {
  enum Kind { Ok, Invalid, Scope, Gap, Crash, Hang, Silent } kind = Ok;
  std::string where;   // origin:line @name
  std::string detail;  // the refusal, or what happened
};

const char *kind_name(Outcome::Kind k) {
  switch (k) {
    case Outcome::Ok: return "ok";
    case Outcome::Invalid: return "refused: invalid IR";
    case Outcome::Scope: return "refused: out of scope";
    case Outcome::Gap: return "refused: gap";
    case Outcome::Crash: return "crash";
    case Outcome::Hang: return "hang";
    case Outcome::Silent: return "silent";
  }
  return "?";
}

/// A function as the text has it: its section and where it is.
struct Written {
  perfbound::ttir::FuncExtent extent;
  std::string section;  // the section's text
};

/// Why a refused function is refused: the test's own reading of the
/// section and the message (see the file comment).
Outcome::Kind classify(const std::string &section, const std::string &function_text, const std::string &message) {
  if (section.find("expected-error") != std::string::npos) return Outcome::Invalid;
  for (const char *invalid : {"undefined symbol alias", "use of undeclared SSA value", "redefinition of SSA value",
                              "times in one section", "does not dominate", "`!tt.ptr` without its pointee type",
                              "expected floating-point elements, but parsed integer"})
    if (message.find(invalid) != std::string::npos) return Outcome::Invalid;
  for (const char *later : {"!ttg.", "#ttg.", "ttg.local", "#blocked", "#shared", "#mma", "memref<", "linalg.",
                            "hivm.", "bufferization.", "!llvm.", "func.func"})
    if (function_text.find(later) != std::string::npos) return Outcome::Scope;
  return Outcome::Gap;
}

/// The text of lines [first, last] of `text`.
std::string lines_between(const std::string &text, int first, int last) {
  std::string out;
  int line = 1;
  size_t start = 0;
  while (start <= text.size() && line <= last) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (line >= first) out.append(text, start, end - start).push_back('\n');
    if (end == text.size()) break;
    start = end + 1;
    ++line;
  }
  return out;
}

/// The message names `origin:LINE` (first, or in MLIR's diagnostic after a
/// summary such as "pre-3.0 TTIR is not supported").
bool names_file_line(const std::string &message, const std::string &origin) {
  for (size_t at = message.find(origin + ":"); at != std::string::npos; at = message.find(origin + ":", at + 1)) {
    size_t pos = at + origin.size() + 1;
    if (pos < message.size() && std::isdigit(static_cast<unsigned char>(message[pos])) != 0) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("conformance: every tt.func of the peer suites is analysed or refused with file:line") {
  const fs::path peer = pbtest::shared_dir() / "data" / "peer";
  if (!fs::is_directory(peer)) {
    MESSAGE("SKIPPED: " << peer.string() << " not found (set PERFBOUND_SHARED_DIR); the TTIR conformance table needs it");
    return;
  }
  (void)profile_910b3();  // loaded before forking: the children share it
  std::vector<fs::path> files;
  for (const auto &e : fs::recursive_directory_iterator(peer)) {
    if (!e.is_regular_file() || e.path().extension() != ".mlir") continue;
    const std::string text = pbtest::read_file(e.path());
    for (const auto &[section, first] : perfbound::ttir::split_sections(text, perfbound::ttir::has_split_marker(text)))
      if (!perfbound::ttir::function_extents(section).empty()) {
        files.push_back(e.path());
        break;
      }
  }
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());

  std::vector<Outcome> outcomes;
  std::map<Outcome::Kind, size_t> counts;
  std::vector<std::string> unnamed;  // refusals without file:line
  const auto started = std::chrono::steady_clock::now();
  for (const fs::path &path : files) {
    const std::string origin = "peer/" + fs::relative(path, peer).generic_string();
    const std::string text = pbtest::read_file(path);
    // What the text holds: every tt.func of every section.
    std::map<int, Written> written;  // by line
    for (auto &[section, first] : perfbound::ttir::split_sections(text, perfbound::ttir::has_split_marker(text)))
      for (const perfbound::ttir::FuncExtent &f : perfbound::ttir::function_extents(section))
        written[f.first_line] = {f, section};
    int fds[2];
    REQUIRE(::pipe(fds) == 0);
    std::fflush(nullptr);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      ::close(fds[0]);
      run_child(path, origin, fds[1]);
    }
    ::close(fds[1]);
    std::string report;
    bool hung = false;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kFileSeconds);
    while (true) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        hung = true;
        ::kill(pid, SIGKILL);
        break;
      }
      pollfd p{fds[0], POLLIN, 0};
      int ready = ::poll(&p, 1, static_cast<int>(left.count()));
      if (ready <= 0) continue;
      char buf[65536];
      ssize_t n = ::read(fds[0], buf, sizeof buf);
      if (n <= 0) break;
      report.append(buf, static_cast<size_t>(n));
    }
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const bool crashed = !hung && WIFSIGNALED(status);
    // Map each reported function to the one written at its line.
    struct Reported {
      std::string name, status, message;
    };
    std::map<int, Reported> reported;  // by line
    std::string whole_error;
    std::istringstream lines(report);
    for (std::string l; std::getline(lines, l);) {
      std::vector<std::string> cols;
      std::istringstream ls(l);
      for (std::string c; std::getline(ls, c, '\t');) cols.push_back(c);
      if (cols.size() < 3) continue;
      if (cols[2] == "error") {
        whole_error = cols.size() > 3 ? cols[3] : "";
        continue;
      }
      reported[std::stoi(cols[0])] = {cols[1], cols[2], cols.size() > 3 ? cols[3] : ""};
    }
    for (const auto &[line, w] : written) {
      Outcome o;
      o.where = origin + ":" + std::to_string(line) + " @" + w.extent.name;
      auto it = reported.find(line);
      std::string message;
      if (hung) {
        o.kind = Outcome::Hang;
        o.detail = "no answer within " + std::to_string(kFileSeconds) + " s";
      } else if (crashed) {
        o.kind = Outcome::Crash;
        o.detail = std::string("signal ") + strsignal(WTERMSIG(status));
      } else if (it != reported.end() && it->second.status == "ok") {
        o.kind = Outcome::Ok;
      } else if (it != reported.end() || !whole_error.empty()) {
        message = it != reported.end() ? it->second.message : whole_error;
        o.kind = classify(w.section, lines_between(w.section, w.extent.first_line, w.extent.last_line), message);
        o.detail = message;
        if (!names_file_line(message, origin)) unnamed.push_back(o.where + ": " + message);
      } else {
        o.kind = Outcome::Silent;
        o.detail = "neither analysed nor refused";
      }
      ++counts[o.kind];
      outcomes.push_back(std::move(o));
    }
    // A function the front end reports that the text scan did not find (a
    // refusal of a section without any function has no name).
    for (const auto &[line, r] : reported)
      if (!r.name.empty() && written.count(line) == 0) {
        ++counts[Outcome::Silent];
        outcomes.push_back({Outcome::Silent, origin + ":" + std::to_string(line), "reported but not written there"});
      }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const size_t total = outcomes.size();
  const size_t ok = counts[Outcome::Ok];
  std::ostringstream table;
  table << "TTIR conformance over " << peer.string() << ": " << files.size() << " files, " << total
        << " tt.func, " << seconds << " s\n";
  table << "| outcome | functions |\n|---|---|\n";
  for (Outcome::Kind k : {Outcome::Ok, Outcome::Invalid, Outcome::Scope, Outcome::Gap, Outcome::Crash, Outcome::Hang,
                          Outcome::Silent})
    table << "| " << kind_name(k) << " | " << counts[k] << " |\n";
  char ratio[64];
  std::snprintf(ratio, sizeof ratio, "%.1f %%", total == 0 ? 0.0 : 100.0 * static_cast<double>(ok) / total);
  const size_t valid = total - counts[Outcome::Invalid];
  char valid_ratio[64];
  std::snprintf(valid_ratio, sizeof valid_ratio, "%.1f %%",
                valid == 0 ? 0.0 : 100.0 * static_cast<double>(ok) / static_cast<double>(valid));
  table << "facts produced: " << ok << " of " << total << " functions (" << ratio << "), " << ok << " of the "
        << valid << " that are valid IR (" << valid_ratio << ")\n";
  std::ostringstream details;
  for (const Outcome &o : outcomes)
    if (o.kind != Outcome::Ok) details << kind_name(o.kind) << "\t" << o.where << "\t" << o.detail << "\n";
  pbtest::write_file(fs::path(PB_CONFORMANCE_OUT) / "conformance_ttir.txt", table.str() + "\n" + details.str());
  MESSAGE(table.str() << "(every refusal: " << PB_CONFORMANCE_OUT << "/conformance_ttir.txt)");

  for (const Outcome &o : outcomes)
    if (o.kind == Outcome::Crash || o.kind == Outcome::Hang || o.kind == Outcome::Silent)
      FAIL_CHECK(kind_name(o.kind) << ": " << o.where << ": " << o.detail);
  for (const std::string &u : unnamed) FAIL_CHECK("a refusal that does not name file:line: " << u);
  CHECK_MESSAGE(static_cast<double>(ok) >= 0.97 * static_cast<double>(valid),
                "facts for " << ok << " of " << valid << " valid functions (" << valid_ratio << "), below 97 %");
}
