//===- fuzz_sbatch.cpp - libFuzzer target: the sbatch script generator ------===//
//
// `perfbound bench slurm` writes names and paths from outside (the plan's
// path, the run directory, plugin directories, the partition, the executable,
// run arguments) into a bash script. The input is split at NUL bytes into
// those fields (missing ones keep a default); a job slurm_job_problem refuses
// is skipped (the refusal is the answer). For every other job the oracle is
// structural and independent of the generator: the script is tokenised here
// the way bash reads it (quotes, escapes, `$(...)`, comments, `#SBATCH`
// directives), as is the script of the same job with every outside string
// replaced by the word "x". The two must have the same shape: the same
// lines, the same unquoted text, the same expansions, with only quoted
// literals, comment text and `#SBATCH` values allowed to differ. A fuzzed byte
// a shell would read as syntax changes the shape and is a finding. The merge
// job's `--wrap` command (a script sbatch hands to sh) is compared the same
// way, one level down. `#SBATCH` values must be one word.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_target.hpp"
#include "harness/slurm.hpp"

namespace {

namespace bench = pb::bench;

[[noreturn]] void finding(const std::string &what, const std::string &detail) {
  std::fprintf(stderr, "fuzz_sbatch: %s\n%s\n", what.c_str(), detail.c_str());
  std::abort();
}

/// The shape of a script as bash reads it, plus the decoded value of every
/// word that starts with "--wrap=".
struct Shape {
  std::string skeleton;
  std::vector<std::string> wraps;
};

/// Tokenises `text` as bash would read it: single-quoted spans and
/// backslash-escaped characters are literals (adjacent literals collapse into
/// one 'L'); double-quoted text, `$(`...`)` and everything unquoted is kept as
/// it is; a comment becomes "#C"; an `#SBATCH --opt=value` line becomes
/// "#SBATCH --opt=V" after checking the value is one word.
Shape shape_of(std::string_view text) {
  Shape shape;
  std::string &out = shape.skeleton;
  enum class Ctx { Top, Dq, Cmd };
  std::vector<Ctx> stack{Ctx::Top};
  std::vector<int> paren_depth{0};
  bool at_word_start = true;
  bool last_literal = false;
  std::string word_value;   // the decoded word, for --wrap=
  std::string word_unquoted;  // the word's unquoted start, up to its first quoted or escaped part
  bool word_quoted = false;
  bool word_is_plain = true;
  auto end_word = [&] {
    // Only an option written as such counts: `--wrap=` unquoted (the script
    // writes `--wrap='...'`). A quoted literal that reads "--wrap=..." is an
    // argument (a plugin directory of that name, found by the fuzzer), not an
    // option sbatch sees.
    if (word_unquoted.rfind("--wrap=", 0) == 0) shape.wraps.push_back(word_value.substr(7));
    word_value.clear();
    word_unquoted.clear();
    word_quoted = false;
    word_is_plain = true;
  };
  auto literal = [&](std::string_view decoded) {
    if (!last_literal) out += 'L';
    last_literal = true;
    word_value += decoded;
    word_quoted = true;
  };
  auto raw = [&](char c) {
    out += c;
    last_literal = false;
    word_value += c;
    if (!word_quoted) word_unquoted += c;
  };
  size_t pos = 0;
  while (pos < text.size()) {
    const char c = text[pos];
    const Ctx ctx = stack.back();
    if (ctx == Ctx::Dq) {
      word_is_plain = false;
      if (c == '"') {
        stack.pop_back();
        paren_depth.pop_back();
        raw(c);
        ++pos;
      } else if (c == '\\' && pos + 1 < text.size()) {
        raw(c);
        raw(text[pos + 1]);
        pos += 2;
      } else if (c == '$' && pos + 1 < text.size() && text[pos + 1] == '(') {
        stack.push_back(Ctx::Cmd);
        paren_depth.push_back(0);
        raw('$');
        raw('(');
        pos += 2;
      } else {
        raw(c);
        ++pos;
      }
      continue;
    }
    // Top level or inside $( ... ): the same rules.
    if (c == '\'') {
      const size_t close = text.find('\'', pos + 1);
      if (close == std::string_view::npos) finding("unterminated single quote", std::string(text.substr(pos, 200)));
      literal(text.substr(pos + 1, close - pos - 1));
      pos = close + 1;
      at_word_start = false;
      continue;
    }
    if (c == '\\' && pos + 1 < text.size()) {
      if (text[pos + 1] == '\n') {  // a line continuation
        out += "\\\n";
        last_literal = false;
      } else {
        literal(text.substr(pos + 1, 1));
      }
      pos += 2;
      at_word_start = false;
      continue;
    }
    if (c == '#' && at_word_start) {
      const size_t eol = text.find('\n', pos);
      const std::string_view comment = text.substr(pos, eol == std::string_view::npos ? std::string_view::npos : eol - pos);
      if (comment.rfind("#SBATCH ", 0) == 0) {
        const size_t eq = comment.find('=');
        if (eq == std::string_view::npos) finding("#SBATCH line without a value", std::string(comment));
        const std::string_view value = comment.substr(eq + 1);
        for (char v : value)
          if (static_cast<unsigned char>(v) <= ' ' || v == '\'' || v == '"' || v == '\\' || v == 0x7f)
            finding("#SBATCH value is not one word", std::string(comment));
        out += std::string(comment.substr(0, eq + 1)) + "V";
      } else {
        out += "#C";
      }
      last_literal = false;
      pos = eol == std::string_view::npos ? text.size() : eol;
      continue;
    }
    if (c == '"') {
      stack.push_back(Ctx::Dq);
      paren_depth.push_back(0);
      raw(c);
      ++pos;
      at_word_start = false;
      continue;
    }
    if (c == '$' && pos + 1 < text.size() && text[pos + 1] == '(') {
      stack.push_back(Ctx::Cmd);
      paren_depth.push_back(0);
      raw('$');
      raw('(');
      pos += 2;
      at_word_start = true;
      continue;
    }
    if (ctx == Ctx::Cmd && c == '(') ++paren_depth.back();
    if (ctx == Ctx::Cmd && c == ')') {
      if (paren_depth.back() == 0) {
        stack.pop_back();
        paren_depth.pop_back();
        raw(c);
        ++pos;
        at_word_start = false;
        continue;
      }
      --paren_depth.back();
    }
    const bool separator = c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&' || c == '(' || c == ')';
    if (separator) {
      end_word();
      out += c;
      last_literal = false;
    } else {
      raw(c);
    }
    at_word_start = separator;
    ++pos;
  }
  end_word();
  if (stack.size() != 1) finding("unbalanced quotes or $( at the end of the script", std::string(text.substr(0, 400)));
  (void)word_is_plain;
  return shape;
}

/// The job with every string from outside replaced by a plain word.
bench::SlurmJob benign(const bench::SlurmJob &job) {
  bench::SlurmJob plain = job;
  plain.plan = "/x/x.json";
  plain.plan_stem = "x";
  plain.run_dir = "/x/run";
  plain.script = "/x/job.sbatch";
  plain.perfbound = "/x/perfbound";
  for (auto &dir : plain.plugin_dirs) dir = "/x/plugins";
  for (std::string &arg : plain.run_args) arg = "x";
  if (!plain.partition.empty()) plain.partition = "x";
  return plain;
}

void compare(const Shape &fuzzed, const Shape &plain, const std::string &where) {
  if (fuzzed.skeleton != plain.skeleton) {
    size_t at = 0;
    while (at < fuzzed.skeleton.size() && at < plain.skeleton.size() && fuzzed.skeleton[at] == plain.skeleton[at]) ++at;
    const size_t from = at > 120 ? at - 120 : 0;
    finding("a name changed the shape of the " + where + " (text a shell reads as syntax)",
            "fuzzed: ..." + fuzzed.skeleton.substr(from, 240) + "\nplain:  ..." + plain.skeleton.substr(from, 240));
  }
  if (fuzzed.wraps.size() != plain.wraps.size()) finding("the number of --wrap words changed in the " + where, "");
  for (size_t idx = 0; idx < fuzzed.wraps.size(); ++idx)
    compare(shape_of(fuzzed.wraps[idx]), shape_of(plain.wraps[idx]), "merge job's --wrap command");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::string> fields;
  {
    std::string field;
    for (size_t idx = 0; idx < size; ++idx) {
      if (data[idx] == 0) {
        fields.push_back(field);
        field.clear();
      } else {
        field += static_cast<char>(data[idx]);
      }
    }
    fields.push_back(field);
  }
  auto field = [&](size_t idx, const char *fallback) { return idx < fields.size() ? fields[idx] : std::string(fallback); };
  bench::SlurmJob job;
  job.plan = field(0, "/runs/plan.json");
  job.plan_stem = job.plan.stem().string();
  job.run_dir = field(1, "/runs/campaign");
  job.partition = field(2, "");
  job.time = field(3, "");
  job.gres = field(4, "");
  job.perfbound = field(5, "/opt/perfbound/bin/perfbound");
  job.script = field(6, "/runs/job.sbatch");
  const std::string backend = field(7, "cpu");
  job.backend = backend.empty() ? "cpu" : backend;
  for (size_t idx = 8; idx < fields.size() && idx < 10; ++idx) job.plugin_dirs.emplace_back(fields[idx]);
  for (size_t idx = 10; idx < fields.size() && idx < 13; ++idx) job.run_args.push_back(fields[idx]);
  job.nodes = 2;
  job.devices_per_node = 4;
  job.shards = 3;
  if (!bench::slurm_job_problem(job).empty()) return 0;
  std::string script;
  try {
    script = bench::slurm_script(job);
  } catch (const std::invalid_argument &e) {
    finding("slurm_script refused a job slurm_job_problem accepted", e.what());
  }
  const bench::SlurmJob plain = benign(job);
  if (!bench::slurm_job_problem(plain).empty()) finding("the plain job is refused", bench::slurm_job_problem(plain));
  compare(shape_of(script), shape_of(bench::slurm_script(plain)), "script");
  return 0;
}
