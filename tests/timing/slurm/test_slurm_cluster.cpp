//===- test_slurm_cluster.cpp - perfbound bench on a real Slurm -------------===//
//
// Starts munged, slurmctld and slurmd on localhost (Debian's slurm-wlm and
// munge) with a configuration generated in a temporary directory: its own
// munge key and socket, its own ports, state and spool directories, no system
// path touched. Then, on a CPU-backend plan made small by --shape-divisor:
//
//  1. `bench slurm --submit` a 4-shard array plus its merge job, wait, and
//     check the merged result holds every case of the plan exactly once;
//  2. a 2-shard array asking for 2 NPUs each (a generic "npu" gres backed by
//     files here), kill one array task with SIGKILL in the middle of a case,
//     check the merge reports its cases missing, resubmit that shard alone and
//     check it resumes (nothing measured twice) and the merge is complete;
//  3. a partition the cluster lacks is refused before anything is written.
//
// Every daemon and every process started under this cluster is stopped at
// the end, also when a check fails; a reaper process does the same if this
// test process dies. Every wait is bounded. Skips, with the reason, where the
// Slurm or munge daemons are not installed or the test does not run as root.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "support/test_support.hpp"

namespace fs = std::filesystem;
using json = nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

std::optional<std::string> missing_tool() {
  for (const char *tool : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "sinfo", "scontrol"}) {
    bool found = false;
    for (const char *dir : {"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin"})
      found = found || access((std::string(dir) + "/" + tool).c_str(), X_OK) == 0;
    if (!found) return std::string(tool);
  }
  return std::nullopt;
}

bool port_free(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_ANY);
  bool ok = bind(fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0;
  close(fd);
  return ok;
}

std::string trim(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

/// A one-node Slurm cluster on localhost, in a temporary directory.
class Cluster {
 public:
  Cluster() {
    std::random_device random;
    dir_ = fs::path("/tmp") / ("pb-slurm-" + std::to_string(getpid()) + "-" + std::to_string(random() % 100000));
    fs::create_directories(dir_ / "munge");
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::replace);
    fs::permissions(dir_ / "munge", fs::perms::owner_all, fs::perm_options::replace);
    conf_ = dir_ / "slurm.conf";
    env_ = {{"SLURM_CONF", conf_.string()}};
    write_stop_script();
    start_reaper();
  }
  ~Cluster() {
    pbtest::run_program("/bin/bash", {(dir_ / "stop.sh").string(), std::to_string(getpid())});
    if (reaper_ > 0) kill(reaper_, SIGKILL);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  Cluster(const Cluster &) = delete;
  Cluster &operator=(const Cluster &) = delete;

  /// Starts the daemons; false (with `why`) when the node never came up.
  bool start(std::string &why) {
    std::string key(1024, '\0');
    std::random_device random;
    for (char &c : key) c = static_cast<char>(random() & 0xff);
    pbtest::write_file(dir_ / "munge/munge.key", key);
    fs::permissions(dir_ / "munge/munge.key", fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
    auto munged = run("munged", {"--force", "--socket=" + socket().string(), "--key-file=" + (dir_ / "munge/munge.key").string(),
                                 "--log-file=" + (dir_ / "munge/munged.log").string(), "--pid-file=" + (dir_ / "munge/munged.pid").string(),
                                 "--seed-file=" + (dir_ / "munge/munged.seed").string()});
    if (munged.code != 0) {
      why = "munged did not start: " + munged.err;
      return false;
    }
    int port = 0;
    std::mt19937 pick(random());
    for (int attempt = 0; attempt < 50 && port == 0; ++attempt) {
      int candidate = 20000 + static_cast<int>(pick() % 20000) * 2;
      if (port_free(candidate) && port_free(candidate + 1)) port = candidate;
    }
    if (port == 0) {
      why = "no free pair of TCP ports";
      return false;
    }
    node_ = trim(pbtest::run_program("/bin/hostname", {"-s"}).out);
    fs::create_directories(dir_ / "state");
    fs::create_directories(dir_ / "spool");
    fs::create_directories(dir_ / "dev");
    for (int npu = 0; npu < 4; ++npu) pbtest::write_file(dir_ / "dev" / ("davinci" + std::to_string(npu)), "");
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    std::string conf = "ClusterName=pbtest\nSlurmctldHost=" + node_ + "(127.0.0.1)\nSlurmUser=root\nSlurmdUser=root\n"
                       "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" + socket().string() + "\n"
                       "SlurmctldPort=" + std::to_string(port) + "\nSlurmdPort=" + std::to_string(port + 1) + "\n"
                       "StateSaveLocation=" + (dir_ / "state").string() + "\nSlurmdSpoolDir=" + (dir_ / "spool").string() + "\n"
                       "SlurmctldPidFile=" + (dir_ / "slurmctld.pid").string() + "\nSlurmdPidFile=" + (dir_ / "slurmd.pid").string() + "\n"
                       "SlurmctldLogFile=" + (dir_ / "slurmctld.log").string() + "\nSlurmdLogFile=" + (dir_ / "slurmd.log").string() + "\n"
                       "PlugStackConfig=" + (dir_ / "plugstack.conf").string() + "\n"
                       "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/affinity\nSelectType=select/cons_tres\n"
                       "SelectTypeParameters=CR_CPU\nSchedulerType=sched/builtin\nJobCompType=jobcomp/none\n"
                       "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\nMpiDefault=none\n"
                       "ReturnToService=2\nKillWait=5\nGresTypes=npu\n"
                       "NodeName=" + node_ + " NodeAddr=127.0.0.1 CPUs=" + std::to_string(cpus) + " Gres=npu:4 State=UNKNOWN\n"
                       "PartitionName=pbtest Nodes=" + node_ + " Default=YES MaxTime=INFINITE State=UP\n";
    pbtest::write_file(conf_, conf);
    pbtest::write_file(dir_ / "plugstack.conf", "");
    pbtest::write_file(dir_ / "gres.conf", "Name=npu File=" + (dir_ / "dev/davinci[0-3]").string() + "\n");
    for (const char *daemon : {"slurmctld", "slurmd"}) {
      auto started = run(daemon, {"-f", conf_.string()});
      if (started.code != 0) {
        why = std::string(daemon) + " did not start: " + started.err;
        return false;
      }
    }
    auto deadline = Clock::now() + std::chrono::seconds(40);
    while (Clock::now() < deadline) {
      auto state = slurm("sinfo", {"--noheader", "--format=%t"});
      if (state.code == 0 && trim(state.out) == "idle") return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
    why = "the node never became idle; slurmd.log: " + pbtest::read_file(dir_ / "slurmd.log").substr(0, 2000);
    return false;
  }

  /// A Slurm client command against this cluster.
  pbtest::CliResult slurm(const std::string &tool, const std::vector<std::string> &args) const { return run(tool, args); }

  /// perfbound with this cluster's SLURM_CONF (and device locks of its own).
  pbtest::CliResult perfbound(const std::vector<std::string> &args) const {
    std::map<std::string, std::string> env = env_;
    env["PERFBOUND_LOCK_DIR"] = (dir_ / "locks").string();
    return pbtest::run_cli(args, {}, env);
  }

  /// Waits until none of `jobs` is queued or running; false after `seconds`.
  bool wait_for(const std::vector<std::string> &jobs, double seconds) const {
    auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
    std::string list;
    for (const std::string &job : jobs) list += (list.empty() ? "" : ",") + job;
    while (Clock::now() < deadline) {
      auto queued = slurm("squeue", {"--noheader", "--jobs=" + list, "--format=%i %T"});
      if (trim(queued.out).empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return false;
  }

  [[nodiscard]] const fs::path &dir() const { return dir_; }
  [[nodiscard]] std::string logs() const {
    return "slurmctld.log (tail): " + tail(dir_ / "slurmctld.log") + "\nslurmd.log (tail): " + tail(dir_ / "slurmd.log");
  }

 private:
  static std::string tail(const fs::path &path) {
    std::string text = pbtest::read_file(path);
    return text.size() > 3000 ? text.substr(text.size() - 3000) : text;
  }
  fs::path socket() const { return dir_ / "munge/munge.socket"; }
  static std::string tool_path(const std::string &tool) {
    for (const char *dir : {"/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/local/sbin", "/usr/local/bin"}) {
      std::string path = std::string(dir) + "/" + tool;
      if (access(path.c_str(), X_OK) == 0) return path;
    }
    return tool;
  }
  pbtest::CliResult run(const std::string &tool, const std::vector<std::string> &args) const {
    return pbtest::run_program(tool_path(tool), args, {}, env_);
  }

  /// stop.sh TESTPID: cancel the jobs, stop the daemons, then kill every
  /// process left that was started under this cluster (its environment
  /// names this SLURM_CONF), each by pid, each wait bounded.
  void write_stop_script() const {
    std::string text =
        "#!/bin/bash\n"
        "# Stops the test cluster in " + dir_.string() + " (perfbound tests/timing/slurm).\n"
        "conf=" + conf_.string() + "\n"
        "keep=\"$$ $PPID ${1:-}\"\n"
        "alive() { [ -e /proc/$1 ] && ! grep -qE '^[0-9]+ \\(.*\\) Z' /proc/$1/stat 2>/dev/null; }\n"
        "stop() { [ -f \"$1\" ] || return 0; local pid; pid=$(cat \"$1\"); kill -TERM \"$pid\" 2>/dev/null;\n"
        "  for _ in $(seq 50); do alive \"$pid\" || return 0; sleep 0.1; done; kill -KILL \"$pid\" 2>/dev/null; }\n"
        "sweep() { for p in /proc/[0-9]*; do pid=${p#/proc/}; case \" $keep \" in *\" $pid \"*) continue;; esac;\n"
        "  if tr '\\0' '\\n' < \"$p/environ\" 2>/dev/null | grep -qx \"SLURM_CONF=$conf\"; then kill -KILL \"$pid\" 2>/dev/null; fi; done; }\n"
        "if [ -f " + (dir_ / "slurmctld.pid").string() + " ]; then\n"
        "  SLURM_CONF=$conf timeout 10 scancel --quiet --user=root 2>/dev/null\n"
        "  for _ in $(seq 30); do [ -z \"$(SLURM_CONF=$conf timeout 5 squeue --noheader 2>/dev/null)\" ] && break; sleep 0.3; done\n"
        "fi\n"
        "stop " + (dir_ / "slurmd.pid").string() + "\n"
        "stop " + (dir_ / "slurmctld.pid").string() + "\n"
        "sweep\n"
        "stop " + (dir_ / "munge/munged.pid").string() + "\n"
        "sweep\n"
        "exit 0\n";
    pbtest::write_file(dir_ / "stop.sh", text);
  }

  /// A detached process that runs stop.sh when this test process is gone.
  void start_reaper() {
    pid_t test_pid = getpid();
    reaper_ = fork();
    if (reaper_ == 0) {
      setsid();
      std::string command = "while kill -0 " + std::to_string(test_pid) + " 2>/dev/null; do sleep 1; done; bash " +
                            (dir_ / "stop.sh").string() + " " + std::to_string(test_pid) + "; rm -rf " + dir_.string();
      execl("/bin/bash", "bash", "-c", command.c_str(), static_cast<char *>(nullptr));
      _exit(127);
    }
  }

  fs::path dir_;
  fs::path conf_;
  std::string node_;
  std::map<std::string, std::string> env_;
  pid_t reaper_ = -1;
};

std::string entry(int m, int n, int k, const std::string &dtype = "fp32") {
  return R"({"type": "gemm", "args": {"m": )" + std::to_string(m) + R"(, "n": )" + std::to_string(n) + R"(, "k": )" +
         std::to_string(k) + R"(, "a": {"dtype": ")" + dtype + R"("}, "b": {"dtype": ")" + dtype + R"("}, "out": ")" + dtype +
         R"("}, "sources": [], "name": []})";
}

fs::path testlist(const fs::path &dir, const std::string &name, const std::vector<std::string> &entries) {
  std::string text = "[\n";
  for (size_t idx = 0; idx < entries.size(); ++idx) text += "  " + entries[idx] + (idx + 1 < entries.size() ? ",\n" : "\n");
  pbtest::write_file(dir / name, text + "]\n");
  return dir / name;
}

/// "array job 12: ..." / "merge job 13 ...": the two job ids --submit prints.
std::pair<std::string, std::string> job_ids(const std::string &out) {
  std::smatch array;
  std::smatch merge;
  std::regex_search(out, array, std::regex(R"(array job (\d+))"));
  std::regex_search(out, merge, std::regex(R"(merge job (\d+))"));
  return {array.size() > 1 ? array[1].str() : "", merge.size() > 1 ? merge[1].str() : ""};
}

std::set<std::string> plan_ids(const fs::path &plan) {
  std::set<std::string> ids;
  json doc = json::parse(pbtest::read_file(plan));
  for (const json &plan_case : doc["cases"]) ids.insert(plan_case["id"].get<std::string>());
  return ids;
}

/// Checks that a merged result holds every plan case exactly once.
void check_every_case_once(const json &result, const std::set<std::string> &ids) {
  std::multiset<std::string> rows;
  for (const json &row : result["rows"]) rows.insert(row["case_id"].get<std::string>());
  CHECK(rows.size() == ids.size());
  CHECK(std::set<std::string>(rows.begin(), rows.end()) == ids);
  CHECK(result["missing"].empty());
  CHECK(result["duplicates"].empty());
  CHECK(result["state"] == "complete");
  for (const json &row : result["rows"]) CHECK_MESSAGE(row["status"] == "ok", row["case_id"]);
}

std::string shard_log(const fs::path &run_dir, int shard) {
  std::string text;
  for (const fs::directory_entry &entry : fs::directory_iterator(run_dir / "slurm"))
    if (entry.path().filename().string().rfind("shard-" + std::to_string(shard) + "-", 0) == 0)
      text += pbtest::read_file(entry.path());
  return text;
}

}  // namespace

TEST_CASE("a real Slurm: a sharded plan as a job array, merged; a killed shard resumes when resubmitted") {
  if (auto tool = missing_tool()) {
    MESSAGE("SKIPPED: " << *tool << " not found; install the Debian packages slurm-wlm and munge (scripts/debian-packages.txt) to run the Slurm test");
    return;
  }
  if (geteuid() != 0) {
    MESSAGE("SKIPPED: the Slurm test starts slurmd, which runs jobs as their users; it needs root");
    return;
  }
  auto started_at = Clock::now();
  Cluster cluster;
  std::string why;
  REQUIRE_MESSAGE(cluster.start(why), why);
  const fs::path &dir = cluster.dir();
  fs::path profile = pbtest::source_dir() / "hardware_profiles/ascend_910b3";

  {  // A 4-shard array and its merge job; every case once; a missing partition is refused.
    std::vector<std::string> entries;
    for (int m : {64, 128, 192, 256, 320, 384, 448, 512, 576, 640}) entries.push_back(entry(m, 256, 256));
    entries.push_back(entry(64, 64, 64, "bf16"));
    entries.push_back(entry(128, 64, 64, "bf16"));
    fs::path list = testlist(dir, "campaign.json", entries);
    fs::path plan = dir / "plan.json";
    auto prepared = cluster.perfbound({"bench", "prepare", "--testlist", list.string(), "--backend", "cpu", "--shape-divisor", "4",
                                       "--profile", profile.string(), "--shards", "4", "-o", plan.string()});
    REQUIRE_MESSAGE(prepared.code == 0, prepared.err);
    fs::path run_dir = dir / "run";
    auto submitted = cluster.perfbound({"bench", "slurm", plan.string(), "--nodes", "2", "--devices-per-node", "1", "--partition",
                                        "pbtest", "--time", "10", "--run-dir", run_dir.string(), "-o", (dir / "job.sbatch").string(),
                                        "--submit"});
    REQUIRE_MESSAGE(submitted.code == 0, (submitted.err + submitted.out));
    auto [array, merge] = job_ids(submitted.out);
    REQUIRE_MESSAGE(!array.empty(), submitted.out);
    REQUIRE_MESSAGE(!merge.empty(), submitted.out);
    REQUIRE_MESSAGE(cluster.wait_for({array, merge}, 150), cluster.logs());
    REQUIRE_MESSAGE(fs::exists(run_dir / "merged/result.json"), (cluster.logs() + "\n" + shard_log(run_dir, 0)));
    json result = json::parse(pbtest::read_file(run_dir / "merged/result.json"));
    check_every_case_once(result, plan_ids(plan));
    CHECK(result["run"]["sources"].size() >= 4);  // a journal per shard (and per CPU it ran on)
    std::set<std::string> shards;
    for (const json &source : result["run"]["sources"]) shards.insert(source["shard"].get<std::string>());
    CHECK(shards == std::set<std::string>{"0/4", "1/4", "2/4", "3/4"});
    for (int shard = 0; shard < 4; ++shard) {
      std::string log = shard_log(run_dir, shard);
      CHECK_MESSAGE(log.find("(array " + array + " task " + std::to_string(shard) + ")") != std::string::npos, log);
      CHECK_MESSAGE(log.find("CPUs allowed: ") != std::string::npos, log);
    }

    auto refused = cluster.perfbound({"bench", "slurm", plan.string(), "--nodes", "1", "--devices-per-node", "1", "--partition",
                                      "nosuch", "--run-dir", (dir / "run2").string(), "-o", (dir / "refused.sbatch").string()});
    CHECK(refused.code == 5);
    CHECK(refused.err == "perfbound bench: error: --partition nosuch: this Slurm has no such partition (it has: pbtest)\n");
    CHECK_FALSE(fs::exists(dir / "refused.sbatch"));
    CHECK_FALSE(fs::exists(dir / "run2"));
  }

  {  // NPUs from the gres allocation; a shard killed mid-case resumes when resubmitted.
    // Cases of a second or more each on one core, so the kill lands inside one.
    std::vector<std::string> entries = {entry(64, 64, 64)};
    for (int idx = 0; idx < 6; ++idx) entries.push_back(entry(1024 + 8 * idx, 1024, 1024));
    fs::path list = testlist(dir, "slow.json", entries);
    fs::path plan = dir / "slow-plan.json";
    REQUIRE(cluster.perfbound({"bench", "prepare", "--testlist", list.string(), "--backend", "cpu", "--shards", "2", "-o",
                               plan.string()}).code == 0);
    fs::path run_dir = dir / "slow";
    fs::path script = dir / "slow.sbatch";
    auto submitted = cluster.perfbound({"bench", "slurm", plan.string(), "--nodes", "2", "--devices-per-node", "2", "--gres", "npu",
                                        "--run-dir", run_dir.string(), "-o", script.string(), "--submit"});
    REQUIRE_MESSAGE(submitted.code == 0, (submitted.err + submitted.out));
    auto [array, merge] = job_ids(submitted.out);
    REQUIRE(!array.empty());
    // Wait for shard 0 to record its smoke case and be inside the next one.
    auto deadline = Clock::now() + std::chrono::seconds(60);
    size_t recorded = 0;
    while (Clock::now() < deadline && recorded < 2) {
      recorded = 0;
      std::error_code ec;
      if (fs::is_directory(run_dir / "shard-0/lanes", ec))
        for (const fs::directory_entry &lane : fs::directory_iterator(run_dir / "shard-0/lanes", ec))
          recorded += pbtest::lines(pbtest::read_file(lane.path() / "journal.jsonl")).size();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    REQUIRE_MESSAGE(recorded >= 2, (cluster.logs() + "\n" + shard_log(run_dir, 0)));
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    auto killed = cluster.slurm("scancel", {"--signal=KILL", "--full", array + "_0"});
    CHECK_MESSAGE(killed.code == 0, killed.err);
    REQUIRE_MESSAGE(cluster.wait_for({array, merge}, 150), cluster.logs());
    // The merge job ran after the array (afterany) and found shard 0 short.
    json partial = json::parse(pbtest::read_file(run_dir / "merged/result.json"));
    CHECK(partial["state"] == "incomplete");
    REQUIRE_FALSE(partial["missing"].empty());
    CHECK(partial["duplicates"].empty());
    // Each task saw the NPUs Slurm gave it, as ACL numbers them.
    std::regex npus(R"(ASCEND_RT_VISIBLE_DEVICES=([0-3]),([0-3]))");
    std::smatch match;
    std::string log0 = shard_log(run_dir, 0);
    std::string log1 = shard_log(run_dir, 1);
    CHECK_MESSAGE(std::regex_search(log0, match, npus), log0);
    CHECK_MESSAGE(std::regex_search(log1, match, npus), log1);

    // Resubmit the killed shard alone: it resumes its journal.
    auto again = cluster.slurm("sbatch", {"--parsable", "--array=0", script.string()});
    REQUIRE_MESSAGE(again.code == 0, again.err);
    std::string job = trim(again.out);
    job = job.substr(0, job.find(';'));
    REQUIRE_MESSAGE(cluster.wait_for({job}, 150), cluster.logs());
    std::string resumed_log = shard_log(run_dir, 0);
    CHECK_MESSAGE(resumed_log.find("already recorded") != std::string::npos, resumed_log);
    auto merged = cluster.perfbound({"bench", "merge", (run_dir / "shard-0").string(), (run_dir / "shard-1").string(), "-o",
                                     (run_dir / "merged-again").string()});
    CHECK_MESSAGE(merged.code == 0, (merged.out + merged.err));
    check_every_case_once(json::parse(pbtest::read_file(run_dir / "merged-again/result.json")), plan_ids(plan));
  }
  MESSAGE("Slurm test wall time (cluster start to end): " << std::chrono::duration<double>(Clock::now() - started_at).count() << " s");
}
