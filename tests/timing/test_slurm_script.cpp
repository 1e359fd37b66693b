//===- test_slurm_script.cpp - no name in an sbatch script is ever executed ===//
//
// `perfbound bench slurm` writes a bash script from a plan's path, a run
// directory, plugin directories, a partition and the executable's own path.
// Here every one of them is full of shell metacharacters (`$(touch pwned)`,
// backticks, quotes, `;`, `|`, `&`, globs, a line break), and the script is
// run for real: its submitting half (`--submit`, with a fake `sbatch` that
// runs the merge job's --wrap command through sh as Slurm does) and one array
// task (with a fake `perfbound` that records its arguments). No command
// hidden in a name may run (no file named pwned* appears) and every name
// must reach perfbound as exactly the word it was.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/slurm.hpp"
#include "support/test_support.hpp"

namespace bench = pb::bench;
namespace fs = std::filesystem;

namespace {

/// The NUL-separated words a fake program appended to `log`, one call per
/// line of the returned vector (each call ends with an empty word "\n").
std::vector<std::vector<std::string>> calls_in(const fs::path &log) {
  std::vector<std::vector<std::string>> calls;
  if (!fs::exists(log)) return calls;
  std::string text = pbtest::read_file(log);
  std::vector<std::string> words;
  size_t start = 0;
  for (size_t pos = 0; pos < text.size(); ++pos) {
    if (text[pos] != '\0') continue;
    std::string word = text.substr(start, pos - start);
    start = pos + 1;
    if (word == "--end-of-call--") {
      calls.push_back(words);
      words.clear();
    } else {
      words.push_back(word);
    }
  }
  return calls;
}

void write_program(const fs::path &path, const std::string &text) {
  pbtest::write_file(path, text);
  chmod(path.c_str(), 0755);
}

/// Files whose name starts with "pwned" anywhere under `root`: each is a
/// command hidden in a name that a shell ran.
std::vector<std::string> pwned_files(const fs::path &root) {
  std::vector<std::string> found;
  for (const auto &entry : fs::recursive_directory_iterator(root))
    if (entry.path().filename().string().rfind("pwned", 0) == 0) found.push_back(entry.path().string());
  return found;
}

// Metacharacters a shell would act on, each arming a `touch pwnedN` that
// runs in the working directory (the test's directory) if a shell reads it.
const std::string kEvil = "a $(touch pwned1) `touch pwned2`;touch pwned3|touch pwned4&touch pwned5 '$(touch pwned6)' \"$(touch pwned7)\" \\ * ? ~ #x\ntouch pwned8\n";

}  // namespace

TEST_CASE("bench slurm: names full of shell metacharacters reach perfbound as literal words, and none runs") {
  pbtest::TempDir dir;
  const fs::path base = fs::canonical(dir.path());
  const fs::path evil_dir = base / ("d" + kEvil);
  fs::create_directories(evil_dir);
  const fs::path plugin_dir = base / ("plug'in " + kEvil);
  fs::create_directories(plugin_dir);
  // The run directory sits in #SBATCH --output, read without a shell: no
  // spaces, quotes, backslashes or '%' there, but everything else.
  const fs::path run_dir = base / "run$(touch${IFS}pwned9);touch${IFS}pwned10|&<>*?`touch${IFS}pwned11`";
  const fs::path bin = base / "bin";
  fs::create_directories(bin);
  // A fake perfbound and a fake sbatch: each appends its arguments to a log.
  const fs::path perfbound = evil_dir / ("perf bound " + kEvil);
  write_program(perfbound, "#!/bin/bash\nprintf '%s\\0' \"$@\" --end-of-call-- >> \"$PB_ARGS_LOG\"\n");
  write_program(bin / "sbatch",
                "#!/bin/bash\n"
                "printf '%s\\0' \"$@\" --end-of-call-- >> \"$PB_SBATCH_LOG\"\n"
                "for arg in \"$@\"; do\n"
                "  case \"$arg\" in --wrap=*) sh -c \"${arg#--wrap=}\" || exit 1;; esac\n"
                "done\n"
                "echo 4242\n");

  bench::SlurmJob job;
  job.plan = evil_dir / ("plan " + kEvil + ".json");
  job.plan_stem = job.plan.stem().string();
  job.backend = "acl";
  job.nodes = 1;
  job.devices_per_node = 2;
  job.shards = 2;
  job.partition = "part$(touch${IFS}pwned12);touch${IFS}pwned13";
  job.time = "1:00";
  job.gres = "npu";
  job.run_dir = run_dir;
  job.script = evil_dir / ("job " + kEvil + ".sbatch");
  job.perfbound = perfbound;
  job.plugin_dirs = {plugin_dir};
  job.run_args = {"--case-timeout", "5$(touch pwned14)"};
  REQUIRE(bench::slurm_job_problem(job).empty());
  const std::string script = bench::slurm_script(job);
  pbtest::write_file(job.script, script);
  const std::string path_env = bin.string() + ":/usr/bin:/bin";

  // One array task, as Slurm starts it.
  pbtest::CliResult task = pbtest::run_program(
      "/bin/bash", {job.script.string()}, base,
      {{"PATH", path_env}, {"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_JOB_ID", "7"}, {"SLURM_JOB_GPUS", "0,1"},
       {"PB_ARGS_LOG", (base / "args.log").string()}});
  CHECK_MESSAGE(task.code == 0, task.err);
  auto runs = calls_in(base / "args.log");
  REQUIRE(runs.size() == 1);
  const std::vector<std::string> want_run = {"--plugin-path", plugin_dir.string(), "bench", "run", job.plan.string(),
                                             "--shard", "0/2", "--devices", "all", "--out-dir", (run_dir / "shard-0").string(),
                                             "--case-timeout", "5$(touch pwned14)"};
  CHECK(runs[0] == want_run);
  CHECK(fs::is_directory(run_dir / "shard-0"));
  CHECK(task.out.find("ASCEND_RT_VISIBLE_DEVICES=0,1") != std::string::npos);

  // Submission: the array, then the merge job whose --wrap sh runs.
  pbtest::CliResult submit = pbtest::run_program(
      "/bin/bash", {job.script.string(), "--submit"}, base,
      {{"PATH", path_env}, {"PB_ARGS_LOG", (base / "args.log").string()}, {"PB_SBATCH_LOG", (base / "sbatch.log").string()}});
  CHECK_MESSAGE(submit.code == 0, submit.err);
  auto submissions = calls_in(base / "sbatch.log");
  REQUIRE(submissions.size() == 2);
  CHECK(submissions[0] == std::vector<std::string>{"--parsable", job.script.string()});
  const std::vector<std::string> &merge = submissions[1];
  auto has = [&](const std::string &word) { return std::find(merge.begin(), merge.end(), word) != merge.end(); };
  CHECK(has("--partition=" + job.partition));
  CHECK(has("--time=1:00"));
  CHECK(has("--dependency=afterany:4242"));
  CHECK(has("--output=" + (run_dir / "slurm" / "merge-job-%j.out").string()));
  // The job name is a label: every character a shell or sbatch reads became '_'.
  for (const std::string &word : merge)
    if (word.rfind("--job-name=", 0) == 0) CHECK(word.find_first_of(" $`;|&'\"\\\n()") == std::string::npos);
  runs = calls_in(base / "args.log");
  REQUIRE(runs.size() == 2);
  const std::vector<std::string> want_merge = {"--plugin-path", plugin_dir.string(), "bench", "merge",
                                               (run_dir / "shard-0").string(), "-o", (run_dir / "merged").string()};
  CHECK(runs[1] == want_merge);

  // A device list from Slurm that is not a list of numbers is refused, not exported.
  pbtest::CliResult odd = pbtest::run_program(
      "/bin/bash", {job.script.string()}, base,
      {{"PATH", path_env}, {"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_JOB_ID", "7"}, {"SLURM_JOB_GPUS", "0,1;touch pwned15"},
       {"PB_ARGS_LOG", (base / "args.log").string()}});
  CHECK(odd.code == 5);
  CHECK(odd.err.find("not a list of device numbers") != std::string::npos);
  CHECK(calls_in(base / "args.log").size() == 2);

  const std::vector<std::string> pwned = pwned_files(base);
  CHECK_MESSAGE(pwned.empty(), "a name was executed: " << (pwned.empty() ? "" : pwned.front()));
  // Every #SBATCH line is one directive (sbatch reads them word by word).
  for (const std::string &line : pbtest::lines(script))
    if (line.rfind("#SBATCH", 0) == 0) CHECK_MESSAGE(line.find(' ', 8) == std::string::npos, line);
}

TEST_CASE("bench slurm: a value that cannot be one word of an #SBATCH line is refused, naming it") {
  bench::SlurmJob job;
  job.plan = "/runs/plan.json";
  job.plan_stem = "plan";
  job.backend = "cpu";
  job.run_dir = "/runs/campaign";
  job.script = "/runs/job.sbatch";
  job.perfbound = "/opt/perfbound/bin/perfbound";
  CHECK(bench::slurm_job_problem(job).empty());
  for (const char *run_dir : {"/runs/with space", "/runs/line\nbreak", "/runs/quote'd", "/runs/dq\"", "/runs/back\\slash", "/runs/50%"}) {
    bench::SlurmJob bad = job;
    bad.run_dir = run_dir;
    const std::string problem = bench::slurm_job_problem(bad);
    CHECK_MESSAGE(problem.find("run directory") != std::string::npos, run_dir);
    CHECK_MESSAGE(problem.find("#SBATCH --output") != std::string::npos, problem);
    CHECK_THROWS_AS(bench::slurm_script(bad), std::invalid_argument);
  }
  bench::SlurmJob partition = job;
  partition.partition = "gpu debug";
  CHECK(bench::slurm_job_problem(partition).find("--partition") != std::string::npos);
  bench::SlurmJob gres = job;
  gres.gres = "npu.*";
  CHECK(bench::slurm_job_problem(gres).find("--gres") != std::string::npos);
  bench::SlurmJob time = job;
  time.time = "1:00;reboot";
  CHECK(bench::slurm_job_problem(time).find("--time") != std::string::npos);
}
