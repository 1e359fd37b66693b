//===- remote.cpp - run counterfactual steps on the host with the NPU -----===//
#include "remote.hpp"

#include <perfbound/sdk/shell.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "toml_reader.hpp"

namespace perfbound::validate {

namespace fs = std::filesystem;

namespace {

std::string replace_all(std::string text, const std::string &from, const std::string &to) {
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
    text.replace(pos, from.size(), to);
  return text;
}

std::string expand_home(const std::string &path) {
  if (path.rfind("~/", 0) != 0) return path;
  const char *home = std::getenv("HOME");
  return home == nullptr ? path : std::string(home) + path.substr(1);
}

/// A step that could not even be attempted, as a CommandResult.
CommandResult refused(const std::vector<std::string> &argv, const fs::path &log, const std::string &why) {
  CommandResult result;
  result.argv = argv;
  result.log = log;
  result.start_error = why;
  std::ofstream(log, std::ios::app) << "perfbound: " << why << "\n";
  return result;
}

}  // namespace

std::string shell_quote(const std::string &word) { return pb::sdk::shell::quote(word); }

RemoteHost load_remote_host(const fs::path &file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw pb::sdk::InputError(file.string() + ": remote host config not found");
  toml::table root = parse_toml_file(file.string());
  TomlReader reader(file.string());
  const std::string where = "remote host";
  reader.check_keys(root, {"version", "destination", "port", "identity_file", "ssh_options", "preamble", "remote_dir", "msprof",
                           "ssh_program", "scp_program", "timeouts"},
                    where);
  const toml::node &version = reader.require(root, "version", where);
  if (!version.is_integer() || version.as_integer()->get() != 1)
    reader.fail(version, where + ": unsupported version (this perfbound reads version = 1)");
  RemoteHost host;
  host.source = file.string();
  host.destination = reader.string(root, "destination", where);
  if (host.destination.front() == '-') reader.fail(reader.require(root, "destination", where), where + ": destination may not start with '-'");
  if (root.get("port") != nullptr) {
    int64_t port = reader.integer(root, "port", 22, where);
    if (port < 1 || port > 65535) reader.fail(*root.get("port"), where + ": port must be 1..65535");
    host.port = port;
  }
  host.identity_file = expand_home(reader.optional_string(root, "identity_file", where).value_or(""));
  host.ssh_options = reader.strings(root, "ssh_options", where);
  host.preamble = reader.strings(root, "preamble", where);
  host.remote_dir = reader.string(root, "remote_dir", where);
  if (host.remote_dir.front() != '/' || host.remote_dir.find_first_of(" \t\n'\"") != std::string::npos)
    reader.fail(reader.require(root, "remote_dir", where), where + ": remote_dir must be an absolute path without spaces or quotes");
  if (root.get("msprof") != nullptr) host.msprof = reader.strings(root, "msprof", where);
  if (auto ssh = reader.optional_string(root, "ssh_program", where)) host.ssh_program = *ssh;
  if (auto scp = reader.optional_string(root, "scp_program", where)) host.scp_program = *scp;
  if (const toml::node *timeouts = root.get("timeouts")) {
    if (!timeouts->is_table()) reader.fail(*timeouts, where + ": 'timeouts' must be a table of seconds per step");
    const toml::table &t = *timeouts->as_table();
    reader.check_keys(t, {"sync", "compile", "run", "fetch"}, where + " timeouts");
    host.sync_timeout_s = reader.timeout(t, "sync", host.sync_timeout_s, where + " timeouts");
    host.compile_timeout_s = reader.timeout(t, "compile", host.compile_timeout_s, where + " timeouts");
    host.run_timeout_s = reader.timeout(t, "run", host.run_timeout_s, where + " timeouts");
    host.fetch_timeout_s = reader.timeout(t, "fetch", host.fetch_timeout_s, where + " timeouts");
  }
  return host;
}

RemoteRunner::RemoteRunner(RemoteHost host, fs::path log_dir, std::string run_id)
    : host_(std::move(host)), log_dir_(std::move(log_dir)), run_id_(std::move(run_id)) {
  fs::create_directories(log_dir_);
}

std::vector<std::string> RemoteRunner::ssh_argv(const std::string &remote_command) const {
  std::vector<std::string> argv = {host_.ssh_program, "-o", "BatchMode=yes"};
  if (host_.port) argv.insert(argv.end(), {"-p", std::to_string(*host_.port)});
  if (!host_.identity_file.empty()) argv.insert(argv.end(), {"-i", host_.identity_file});
  argv.insert(argv.end(), host_.ssh_options.begin(), host_.ssh_options.end());
  argv.push_back(host_.destination);
  argv.push_back(remote_command);
  return argv;
}

std::vector<std::string> RemoteRunner::scp_argv() const {
  std::vector<std::string> argv = {host_.scp_program, "-o", "BatchMode=yes"};
  if (host_.port) argv.insert(argv.end(), {"-P", std::to_string(*host_.port)});
  if (!host_.identity_file.empty()) argv.insert(argv.end(), {"-i", host_.identity_file});
  argv.insert(argv.end(), host_.ssh_options.begin(), host_.ssh_options.end());
  return argv;
}

CommandResult RemoteRunner::scp(const std::vector<std::string> &args, double timeout_s, const fs::path &log) {
  auto attempt = [&](bool legacy) {
    CommandSpec spec;
    spec.argv = scp_argv();
    if (legacy) spec.argv.insert(spec.argv.begin() + 1, "-O");
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.timeout_s = timeout_s;
    spec.log = log;
    return run_command(spec);
  };
  std::error_code ec;
  const auto before = fs::exists(log, ec) ? fs::file_size(log, ec) : 0;
  CommandResult result = attempt(legacy_scp_);
  if (result.ok() || legacy_scp_ || result.timed_out || result.interrupted || !result.start_error.empty()) return result;
  // What this attempt wrote to the (appended) log.
  std::string written;
  {
    std::ifstream in(log, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(before));
    written.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (written.find("subsystem request failed") == std::string::npos) return result;
  std::ofstream(log, std::ios::app) << "perfbound: the server has no SFTP subsystem; retrying with scp -O (legacy SCP protocol)\n";
  CommandResult legacy = attempt(true);
  if (legacy.ok()) legacy_scp_ = true;
  return legacy;
}

std::string RemoteRunner::remote_line(const std::vector<std::string> &argv, const std::string &remote_cwd) const {
  std::string line = "cd " + shell_quote(remote_cwd);
  for (const std::string &p : host_.preamble) line += " && " + p;
  line += " &&";
  for (const std::string &word : argv) line += " " + shell_quote(word);
  return line;
}

CommandResult RemoteRunner::ssh(const std::string &remote_command, const std::string &step, double timeout_s) {
  CommandSpec spec;
  spec.argv = ssh_argv(remote_command);
  spec.timeout_s = timeout_s;
  spec.log = log_dir_ / (step + ".log");
  return run_command(spec);
}

CommandResult RemoteRunner::sync(const fs::path &local_dir) {
  CommandResult made = ssh("mkdir -p " + shell_quote(remote_root()), "sync", host_.sync_timeout_s);
  if (!made.ok()) return made;
  return scp({"-r", local_dir.string(), host_.destination + ":" + remote_root() + "/"}, host_.sync_timeout_s,
             log_dir_ / "sync.log");
}

CommandResult RemoteRunner::compile(const std::vector<std::string> &argv, const std::string &remote_cwd) {
  return ssh(remote_line(argv, remote_cwd), "compile", host_.compile_timeout_s);
}

CommandResult RemoteRunner::run_under_msprof(const std::vector<std::string> &argv, const std::string &remote_cwd,
                                             const std::string &remote_out) {
  std::vector<std::string> full;
  for (const std::string &word : host_.msprof) full.push_back(replace_all(word, "{out}", remote_out));
  full.insert(full.end(), argv.begin(), argv.end());
  return ssh(remote_line(full, remote_cwd), "run", host_.run_timeout_s);
}

CommandResult RemoteRunner::fetch_matching(const std::string &remote_dir_path, const std::string &pattern,
                                           const fs::path &local_path, std::string *remote_found) {
  // `find` prints one path per line into the fetch log; read them back from
  // a separate listing log so the command's own output stays intact.
  const fs::path listing = log_dir_ / "fetch-listing.log";
  std::error_code ec;
  fs::remove(listing, ec);
  CommandSpec spec;
  spec.argv = ssh_argv("find " + shell_quote(remote_dir_path) + " -type f -name " + shell_quote(pattern));
  spec.timeout_s = host_.fetch_timeout_s;
  spec.log = listing;
  CommandResult found = run_command(spec);
  {
    std::ifstream in(listing);
    std::ofstream(log_dir_ / "fetch.log", std::ios::app) << in.rdbuf();
  }
  if (!found.ok()) {
    found.log = log_dir_ / "fetch.log";
    return found;
  }
  std::vector<std::string> paths;
  std::ifstream in(listing);
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line.front() == '/') paths.push_back(line);
  if (paths.size() != 1)
    return refused(spec.argv, log_dir_ / "fetch.log",
                   paths.empty() ? "no file named " + pattern + " under " + host_.destination + ":" + remote_dir_path
                                 : std::to_string(paths.size()) + " files named " + pattern + " under " + remote_dir_path +
                                       " (expected one)");
  if (remote_found != nullptr) *remote_found = paths.front();
  return fetch(paths.front(), local_path);
}

CommandResult RemoteRunner::fetch(const std::string &remote_path, const fs::path &local_path) {
  if (!local_path.parent_path().empty()) fs::create_directories(local_path.parent_path());
  return scp({host_.destination + ":" + remote_path, local_path.string()}, host_.fetch_timeout_s, log_dir_ / "fetch.log");
}

}  // namespace perfbound::validate
