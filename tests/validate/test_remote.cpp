//===- test_remote.cpp - the remote runner against a real sshd on loopback ===//
//
// Each test starts its own OpenSSH server (Debian `openssh-server`) on a free
// 127.0.0.1 port with a throwaway host key and a throwaway client key, runs
// perfbound's ssh/scp steps against it, and stops it. Skips with a message
// when sshd or ssh is not installed.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <perfbound/sdk/json.hpp>

#include "npy.hpp"
#include "remote.hpp"
#include "support/test_support.hpp"

namespace fs = std::filesystem;
namespace pv = perfbound::validate;
using pb::sdk::json;

namespace {

constexpr const char *kSshd = "/usr/sbin/sshd";
constexpr const char *kPrivsepDir = "/run/sshd";

bool have_openssh() {
  std::error_code ec;
  return fs::exists(kSshd, ec) && fs::exists("/usr/bin/ssh", ec) && fs::exists("/usr/bin/scp", ec) &&
         fs::exists("/usr/bin/ssh-keygen", ec);
}

int free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
    close(fd);
    return -1;
  }
  close(fd);
  return ntohs(addr.sin_port);
}

bool port_open(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

/// An sshd on 127.0.0.1 accepting one throwaway key for the current user.
class LoopbackSshd {
 public:
  /// `sftp`: whether the server offers the SFTP subsystem (OpenSSH 9's scp
  /// copies over it; servers without it need the legacy `scp -O`).
  explicit LoopbackSshd(bool sftp = true) {
    for (const char *key : {"host_key", "client_key"}) {
      pbtest::CliResult made = pbtest::run_program("/usr/bin/ssh-keygen", {"-q", "-t", "ed25519", "-N", "", "-f", (dir_ / key).string()});
      if (made.code != 0) {
        error_ = "ssh-keygen failed: " + made.err;
        return;
      }
    }
    fs::copy_file(dir_ / "client_key.pub", dir_ / "authorized_keys");
    port_ = free_port();
    // sshd started as root insists on its privilege-separation directory,
    // which systemd creates when the service starts; a fresh machine or
    // container where the service never ran has none.
    if (geteuid() == 0 && !fs::exists(kPrivsepDir)) {
      std::error_code ec;
      fs::create_directories(kPrivsepDir, ec);
      fs::permissions(kPrivsepDir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                       fs::perms::others_read | fs::perms::others_exec, ec);
    }
    pbtest::write_file(dir_ / "sshd_config", "Port " + std::to_string(port_) +
                                                 "\nListenAddress 127.0.0.1\nHostKey " + (dir_ / "host_key").string() +
                                                 "\nAuthorizedKeysFile " + (dir_ / "authorized_keys").string() +
                                                 "\nPidFile " + (dir_ / "sshd.pid").string() +
                                                 "\nStrictModes no\nUsePAM no\nPasswordAuthentication no\n"
                                                 "KbdInteractiveAuthentication no\nPermitRootLogin prohibit-password\n" +
                                                 (sftp ? "Subsystem sftp internal-sftp\n" : ""));
    pid_ = fork();
    if (pid_ == 0) {
      if (freopen((dir_ / "sshd.log").c_str(), "w", stderr) == nullptr) _exit(126);
      execl(kSshd, kSshd, "-D", "-e", "-f", (dir_ / "sshd_config").c_str(), static_cast<char *>(nullptr));
      _exit(127);
    }
    for (int tick = 0; tick < 100 && !port_open(port_); ++tick) usleep(50 * 1000);
    if (!port_open(port_)) error_ = "sshd did not start: " + pbtest::read_file(dir_ / "sshd.log");
  }
  ~LoopbackSshd() {
    if (pid_ > 0) {
      kill(pid_, SIGTERM);
      int status = 0;
      waitpid(pid_, &status, 0);
    }
  }
  LoopbackSshd(const LoopbackSshd &) = delete;
  LoopbackSshd &operator=(const LoopbackSshd &) = delete;

  [[nodiscard]] const std::string &error() const { return error_; }
  /// A host config (TOML) for this server; `remote_dir` on the same machine.
  [[nodiscard]] std::string host_config(const fs::path &remote_dir, const std::string &extra = "") const {
    return "version = 1\ndestination = \"" + user() + "@127.0.0.1\"\nport = " + std::to_string(port_) + "\nidentity_file = \"" +
           (dir_ / "client_key").string() +
           "\"\nssh_options = [\"-o\", \"StrictHostKeyChecking=no\", \"-o\", \"UserKnownHostsFile=/dev/null\", \"-o\", "
           "\"LogLevel=ERROR\"]\nremote_dir = \"" +
           remote_dir.string() + "\"\n" + extra;
  }
  [[nodiscard]] int port() const { return port_; }

 private:
  static std::string user() {
    const char *name = std::getenv("USER");
    if (name != nullptr && *name != '\0') return name;
    return getuid() == 0 ? "root" : std::to_string(getuid());
  }
  pbtest::TempDir dir_;
  int port_ = -1;
  pid_t pid_ = -1;
  std::string error_;
};

#define REQUIRE_LOOPBACK_SSHD(server, ...)                                                  \
  if (!have_openssh()) {                                                                    \
    MESSAGE("SKIPPED: OpenSSH (sshd, ssh, scp, ssh-keygen) not installed; remote test not run"); \
    return;                                                                                 \
  }                                                                                         \
  LoopbackSshd server __VA_ARGS__;                                                          \
  REQUIRE_MESSAGE(server.error().empty(), server.error())

}  // namespace

TEST_CASE("remote runner: sync, compile after the preamble, run under the msprof prefix, fetch") {
  REQUIRE_LOOPBACK_SSHD(server);
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "host.toml",
                     server.host_config(tmp / "remote", "preamble = [\"export PB_GREETING=hello\"]\n"
                                                        "msprof = [\"env\", \"PB_PROF_OUT={out}\"]\n"
                                                        "[timeouts]\nsync = 30\ncompile = 30\nrun = 30\nfetch = 30\n"));
  pv::RemoteHost host = pv::load_remote_host(tmp / "host.toml");
  pbtest::write_file(tmp / "variant" / "kernel.npuir.mlir", "// a dump\n");
  pv::RemoteRunner runner(host, tmp / "logs", "run1");
  CHECK(runner.remote_root() == (tmp / "remote" / "run1").string());
  pv::CommandResult synced = runner.sync(tmp / "variant");
  REQUIRE_MESSAGE(synced.ok(), pbtest::read_file(synced.log));
  const std::string rdir = runner.remote_root() + "/variant";
  CHECK(pbtest::read_file(fs::path(rdir) / "kernel.npuir.mlir") == "// a dump\n");
  // The preamble ran before the command; a word with a quote and spaces
  // arrives as one argument.
  pv::CommandResult compiled =
      runner.compile({"sh", "-c", "printf '%s|%s' \"$PB_GREETING\" \"$0\" > compiled.txt", "it's one word"}, rdir);
  REQUIRE_MESSAGE(compiled.ok(), pbtest::read_file(compiled.log));
  CHECK(pbtest::read_file(fs::path(rdir) / "compiled.txt") == "hello|it's one word");
  // The run goes through the msprof prefix with {out} filled in.
  pv::CommandResult ran = runner.run_under_msprof(
      {"sh", "-c", "mkdir -p \"$PB_PROF_OUT/PROF_1\" && echo 'Op Name' > \"$PB_PROF_OUT/PROF_1/op_summary_0_1.csv\""}, rdir,
      rdir + "/prof");
  REQUIRE_MESSAGE(ran.ok(), pbtest::read_file(ran.log));
  std::string found;
  pv::CommandResult fetched = runner.fetch_matching(rdir, "op_summary_*.csv", tmp / "fetched" / "op_summary.csv", &found);
  REQUIRE_MESSAGE(fetched.ok(), pbtest::read_file(fetched.log));
  CHECK(found == rdir + "/prof/PROF_1/op_summary_0_1.csv");
  CHECK(pbtest::read_file(tmp / "fetched" / "op_summary.csv") == "Op Name\n");
  // Nothing to fetch: refused with the reason.
  pv::CommandResult none = runner.fetch_matching(rdir, "nothing_*.csv", tmp / "fetched" / "x.csv");
  CHECK_FALSE(none.ok());
  CHECK(none.describe() == "could not start: no file named nothing_*.csv under " + host.destination + ":" + rdir);
  // A failing remote command is a failure with its exit status.
  pv::CommandResult failed = runner.compile({"false"}, rdir);
  CHECK(failed.describe() == "exited with 1");
}

TEST_CASE("remote runner: a server without the SFTP subsystem gets scp -O, and the log says so") {
  REQUIRE_LOOPBACK_SSHD(server, {false});
  pbtest::TempDir tmp;
  pbtest::write_file(tmp / "host.toml", server.host_config(tmp / "remote", "[timeouts]\nsync = 30\nfetch = 30\n"));
  pv::RemoteHost host = pv::load_remote_host(tmp / "host.toml");
  pbtest::write_file(tmp / "variant" / "kernel.npuir.mlir", "// a dump\n");
  pv::RemoteRunner runner(host, tmp / "logs", "run1");
  pv::CommandResult synced = runner.sync(tmp / "variant");
  REQUIRE_MESSAGE(synced.ok(), pbtest::read_file(synced.log));
  const std::string rdir = runner.remote_root() + "/variant";
  CHECK(pbtest::read_file(fs::path(rdir) / "kernel.npuir.mlir") == "// a dump\n");
  const std::string sync_log = pbtest::read_file(tmp / "logs" / "sync.log");
  CHECK(sync_log.find("subsystem request failed") != std::string::npos);
  CHECK(sync_log.find("perfbound: the server has no SFTP subsystem; retrying with scp -O (legacy SCP protocol)") !=
        std::string::npos);
  CHECK(synced.argv.at(1) == "-O");
  // Later copies use -O straight away: no failed attempt in the fetch log.
  pv::CommandResult fetched = runner.fetch(rdir + "/kernel.npuir.mlir", tmp / "back" / "kernel.npuir.mlir");
  REQUIRE_MESSAGE(fetched.ok(), pbtest::read_file(fetched.log));
  CHECK(fetched.argv.at(1) == "-O");
  CHECK(pbtest::read_file(tmp / "back" / "kernel.npuir.mlir") == "// a dump\n");
  CHECK(pbtest::read_file(tmp / "logs" / "fetch.log").find("subsystem request failed") == std::string::npos);
}

TEST_CASE("counterfactual over ssh: both variants synced, built, run and fetched; a dead host is INFRA_ERROR") {
  REQUIRE_LOOPBACK_SSHD(server);
  pbtest::TempDir tmp;
  // Baseline launches 12, 10, 11 us, edited 9, 8, 8.5 us; drop 1: medians
  // 10.5 and 8.25 -> measured delta -2.25 us.
  const std::string header = "Device_id,Task ID,Stream ID,Op Name,Task Type,Task Start Time(us),Task Duration(us)\n";
  const std::string row = "0,1,1,add_kernel,AI_VECTOR_CORE,";
  pbtest::write_file(tmp / "baseline.csv", header + row + "1\t,12\n" + row + "100\t,10\n" + row + "200\t,11\n");
  pbtest::write_file(tmp / "edited.csv", header + row + "1\t,9\n" + row + "100\t,8\n" + row + "200\t,8.5\n");
  pbtest::write_file(tmp / "baseline.npy", pv::write_npy({1.0, 2.0}, {2}, "<f4"));
  pbtest::write_file(tmp / "edited.npy", pv::write_npy({1.0, 2.0}, {2}, "<f4"));
  pbtest::write_file(tmp / "host.toml", server.host_config(tmp / "remote", "msprof = [\"env\", \"PB_PROF_OUT={out}\"]\n"));
  const fs::path hivm = pbtest::source_dir() / "examples" / "kernels" / "vector_add" / "vector_add.npuir.mlir";
  const std::string d = tmp.path().string();
  auto config = [&](const std::string &remote) {
    return "version = 1\nkernel = \"add_kernel\"\nhivm = \"" + hivm.string() +
           "\"\n[[edit]]\nkind = \"remove_barrier\"\nline = 63\n[measure]\n"
           "compile = { argv = [\"cp\", \"{ir}\", \"{dir}/kernel.o\"], timeout_s = 30 }\n"
           "run = { argv = [\"sh\", \"-c\", \"mkdir -p $PB_PROF_OUT && cp " + d + "/{variant}.csv $PB_PROF_OUT/op_summary_0_1.csv && cp " + d +
           "/{variant}.npy {dir}/out.npy\"], timeout_s = 30 }\noutputs = [\"out.npy\"]\nwarmup = 1\nremote = \"" + remote + "\"\n";
  };
  pbtest::write_file(tmp / "cf.toml", config("host.toml"));
  pbtest::CliResult r = pbtest::run_cli({"counterfactual", (tmp / "cf.toml").string(), "--out", (tmp / "out").string(), "--json"});
  REQUIRE_MESSAGE(r.code == 0, r.err << r.out);
  json doc = json::parse(r.out);
  CHECK(doc["status"] == "PASS");
  CHECK(doc["comparison"]["measured_delta"]["value"].get<double>() == doctest::Approx(-2.25e-6));
  CHECK(doc["variants"]["edited"]["remote"]["destination"].get<std::string>().ends_with("@127.0.0.1"));
  const std::string csv = doc["variants"]["edited"]["remote"]["csv"].get<std::string>();
  CHECK(csv.rfind((tmp / "remote").string() + "/perfbound-cf-", 0) == 0);
  CHECK(csv.ends_with("/edited/prof/op_summary_0_1.csv"));

  // The same against a port nobody listens on: the sync step fails fast.
  pbtest::write_file(tmp / "dead.toml", "version = 1\ndestination = \"nobody@127.0.0.1\"\nport = " + std::to_string(free_port()) +
                                            "\nssh_options = [\"-o\", \"ConnectTimeout=5\"]\nremote_dir = \"/tmp/x\"\n");
  pbtest::write_file(tmp / "cf_dead.toml", config("dead.toml"));
  pbtest::CliResult dead = pbtest::run_cli({"counterfactual", (tmp / "cf_dead.toml").string(), "--out", (tmp / "out2").string(), "--json"});
  CHECK(dead.code == 5);
  json dead_doc = json::parse(dead.out);
  CHECK(dead_doc["status"] == "INFRA_ERROR");
  CHECK(dead_doc["reason"].get<std::string>().rfind("baseline sync: ssh ", 0) == 0);
}
