//===- replay.cpp - run every hostile input of tests/regress/ --------------===//
//
//   perfbound_regress_replay --regress DIR --perfbound EXE --bin DIR
//                            [--area NAME] [--timeout S] [--work DIR]
//
// For every area folder of DIR (hivm, ttir, host, validate, ...) reads its
// CASES.toml (format: tests/regress/README.md) and runs every other file of
// the folder with its command line. Each run must:
//   - end by itself within the timeout (10 s),
//   - exit with a code below 128 (no signal: no crash, no abort),
//   - print no sanitizer report (ASan, UBSan, LeakSanitizer),
//   - when it fails (exit != 0), name the input in its output (or print the
//     case's `message`, for inputs given as text with {contents}),
//   - and match the case's `exit` and `message` when given.
// A case marked `xfail = "..."` (a known failure, not fixed yet) must still
// fail; it is listed on every run and fails the replay once it passes.
// Prints one line per file and "N passed, N failed"; exits 1 when any failed.
//
//===----------------------------------------------------------------------===//
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "process.hpp"

namespace fs = std::filesystem;
using perfbound::validate::CommandResult;
using perfbound::validate::CommandSpec;

namespace {

struct Options {
  fs::path regress;
  fs::path perfbound;
  fs::path bin;
  fs::path work;
  std::string area;
  double timeout_s = 10;
  bool sanitized = false;  // built with -fsanitize (the asan preset)
};

struct Case {
  std::vector<std::string> command;
  std::optional<int64_t> exit;
  std::string message;
  std::string breaks;
  std::string xfail;  // a known failure not fixed yet (who owns it); must still fail
  bool xfail_sanitized_only = false;  // the failure is a sanitizer report: expected only in sanitized builds
};

/// Splits a command string like a POSIX shell without expansions: blanks
/// separate words, '...' and "..." quote, backslash escapes one character.
std::vector<std::string> split_words(const std::string &text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < text.size()) {
        word += text[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(word);
  return words;
}

std::optional<std::vector<std::string>> read_command(const toml::node *node) {
  if (node == nullptr) return std::nullopt;
  if (const auto *s = node->as_string()) return split_words(s->get());
  if (const auto *a = node->as_array()) {
    std::vector<std::string> words;
    for (const toml::node &n : *a)
      if (const auto *s = n.as_string()) words.push_back(s->get());
    return words;
  }
  return std::nullopt;
}

void read_case_fields(const toml::table &t, Case &c) {
  if (auto cmd = read_command(t.get("command"))) c.command = *cmd;
  if (auto e = t["exit"].value<int64_t>()) c.exit = *e;
  c.message = t["message"].value_or(std::string());
  c.breaks = t["breaks"].value_or(t["comment"].value_or(std::string()));
  c.xfail = t["xfail"].value_or(std::string());
  c.xfail_sanitized_only = t["xfail_under"].value_or(std::string()) == "asan";
}

/// file name -> case, with the area's default command filled in. Accepts
/// `[[case]] file = ...` entries and `[cases."file"]` tables.
std::map<std::string, Case> read_manifest(const fs::path &path, std::vector<std::string> &defaults) {
  toml::table doc = toml::parse_file(path.string());
  if (auto cmd = read_command(doc.get("command"))) defaults = *cmd;
  std::map<std::string, Case> cases;
  if (const toml::array *list = doc["case"].as_array()) {
    for (const toml::node &n : *list) {
      const toml::table *t = n.as_table();
      if (t == nullptr) continue;
      std::string file = (*t)["file"].value_or(std::string());
      if (file.empty()) throw std::runtime_error(path.string() + ": a [[case]] has no file");
      Case c;
      c.command = defaults;
      read_case_fields(*t, c);
      cases[file] = c;
    }
  }
  if (const toml::table *table = doc["cases"].as_table()) {
    for (const auto &[key, n] : *table) {
      Case c;
      c.command = defaults;
      if (const toml::table *t = n.as_table()) read_case_fields(*t, c);
      cases[std::string(key.str())] = c;
    }
  }
  return cases;
}

std::string read_text(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

const char *const kSanitizerMarks[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
                                       "UndefinedBehaviorSanitizer", "ThreadSanitizer"};

/// Runs one file; an empty string when it passed, else why not.
std::string run_one(const Options &opt, const fs::path &area_dir, const fs::path &file, const Case &c, std::string &log_text,
                    CommandResult &result) {
  if (c.command.empty()) return "no command for it in " + (area_dir / "CASES.toml").string();
  std::vector<std::string> argv;
  for (std::string w : c.command) {
    w = replace_all(w, "{file}", file.string());
    w = replace_all(w, "{dir}", area_dir.string());
    w = replace_all(w, "{source}", opt.regress.parent_path().parent_path().string());
    w = replace_all(w, "{perfbound}", opt.perfbound.string());
    w = replace_all(w, "{bin}", opt.bin.string());
    if (w.find("{contents}") != std::string::npos) w = replace_all(w, "{contents}", read_text(file));
    argv.push_back(w);
  }
  if (argv[0] == "perfbound") argv[0] = opt.perfbound.string();
  else if (argv[0].rfind("perfbound_", 0) == 0) argv[0] = (opt.bin / argv[0]).string();
  CommandSpec spec;
  spec.argv = argv;
  spec.cwd = opt.regress.parent_path().parent_path();  // the source root: pipelines/... resolve
  spec.timeout_s = opt.timeout_s;
  spec.log = opt.work / area_dir.filename() / (file.filename().string() + ".log");
  fs::remove(spec.log);
  spec.env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0";
  spec.env["UBSAN_OPTIONS"] = "print_stacktrace=1";
  result = perfbound::validate::run_command(spec);
  log_text = read_text(spec.log);
  if (!result.start_error.empty()) return "could not start: " + result.start_error;
  if (result.timed_out) return "did not finish within " + std::to_string(static_cast<int>(opt.timeout_s)) + " s";
  if (result.signal) return "ended by signal " + std::to_string(*result.signal);
  if (result.exit_code && *result.exit_code >= 128) return "exit code " + std::to_string(*result.exit_code) + " (>= 128)";
  for (const char *mark : kSanitizerMarks)
    if (log_text.find(mark) != std::string::npos) return std::string("sanitizer report (") + mark + ")";
  const int code = result.exit_code.value_or(-1);
  if (c.exit && code != *c.exit)
    return "exit code " + std::to_string(code) + ", expected " + std::to_string(*c.exit);
  if (code != 0 && c.message.empty() && log_text.find(file.filename().string()) == std::string::npos)
    return "failed (exit " + std::to_string(code) + ") without naming the input " + file.filename().string();
  if (!c.message.empty() && log_text.find(c.message) == std::string::npos)
    return "the output does not contain '" + c.message + "'";
  return {};
}

}  // namespace

int main(int argc, char **argv) {
  Options opt;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string key = argv[i];
    std::string value = argv[i + 1];
    if (key == "--regress") opt.regress = fs::absolute(value);
    else if (key == "--perfbound") opt.perfbound = value;
    else if (key == "--bin") opt.bin = value;
    else if (key == "--area") opt.area = value;
    else if (key == "--timeout") opt.timeout_s = std::stod(value);
    else if (key == "--work") opt.work = value;
    else if (key == "--sanitized") opt.sanitized = value == "1" || value == "ON" || value == "TRUE";
    else {
      std::cerr << "usage: perfbound_regress_replay --regress DIR --perfbound EXE --bin DIR [--area NAME] [--timeout S] [--work DIR]\n";
      return 2;
    }
  }
  if (opt.regress.empty() || opt.perfbound.empty()) {
    std::cerr << "perfbound_regress_replay: --regress and --perfbound are required\n";
    return 2;
  }
  if (opt.work.empty()) opt.work = fs::temp_directory_path() / "perfbound_regress";
  size_t passed = 0, failed = 0;
  std::vector<fs::path> areas;
  for (const fs::directory_entry &e : fs::directory_iterator(opt.regress))
    if (e.is_directory() && (opt.area.empty() || e.path().filename() == opt.area)) areas.push_back(e.path());
  std::sort(areas.begin(), areas.end());
  if (areas.empty()) {
    std::cerr << "perfbound_regress_replay: no area " << (opt.area.empty() ? "" : "'" + opt.area + "' ") << "under "
              << opt.regress << "\n";
    return 1;
  }
  for (const fs::path &area : areas) {
    std::vector<std::string> defaults;
    std::map<std::string, Case> cases;
    try {
      if (fs::exists(area / "CASES.toml")) cases = read_manifest(area / "CASES.toml", defaults);
    } catch (const std::exception &e) {
      std::cout << "FAIL " << (area / "CASES.toml").string() << ": " << e.what() << "\n";
      ++failed;
      continue;
    }
    std::vector<fs::path> files;
    for (const fs::directory_entry &e : fs::recursive_directory_iterator(area)) {
      if (!e.is_regular_file()) continue;
      const std::string name = e.path().filename().string();
      if (name == "CASES.toml" || name.rfind("README", 0) == 0) continue;
      files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const fs::path &file : files) {
      const std::string rel = fs::relative(file, area).string();
      Case c;
      c.command = defaults;
      if (auto it = cases.find(rel); it != cases.end()) c = it->second;
      std::string log_text;
      CommandResult result;
      std::string why = run_one(opt, area, file, c, log_text, result);
      const std::string label = area.filename().string() + "/" + rel;
      if (c.xfail_sanitized_only && !opt.sanitized) c.xfail.clear();
      if (!c.xfail.empty()) {
        // A known failure: reported on every run, and an error once it passes
        // (remove the `xfail` line then).
        if (why.empty()) {
          why = "passes now although marked xfail (" + c.xfail + "): remove the xfail line";
        } else {
          ++passed;
          std::printf("xfail %-49s %s  [known, %s]\n", label.c_str(), why.c_str(), c.xfail.c_str());
          continue;
        }
      }
      if (why.empty()) {
        ++passed;
        std::printf("ok   %-50s exit %d  %.2f s\n", label.c_str(), result.exit_code.value_or(-1), result.wall_s);
      } else {
        ++failed;
        std::printf("FAIL %s: %s\n", label.c_str(), why.c_str());
        if (!c.breaks.empty()) std::printf("     (this input: %s)\n", c.breaks.c_str());
        std::printf("     $ %s\n", perfbound::validate::display_command(result.argv).c_str());
        const std::string tail = log_text.size() > 3000 ? log_text.substr(log_text.size() - 3000) : log_text;
        std::printf("%s\n", tail.c_str());
      }
    }
    for (const auto &[name, c] : cases)
      if (!fs::exists(area / name)) {
        ++failed;
        std::printf("FAIL %s/%s: listed in CASES.toml but missing\n", area.filename().string().c_str(), name.c_str());
      }
  }
  std::printf("%zu passed, %zu failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
