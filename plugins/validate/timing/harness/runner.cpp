//===- runner.cpp - `perfbound bench run` and the worker loop --------------===//
#include "runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <iostream>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "backend.hpp"
#include <perfbound/sdk/sha256.hpp>
#include "health.hpp"
#include "journal.hpp"
#include "measure.hpp"
#include "merge.hpp"
#include "plan.hpp"
#include "preflight.hpp"
#include "process.hpp"
#include "protocol.hpp"
#include "result.hpp"
#include "shard.hpp"

namespace pb::bench {

namespace {

using Clock = std::chrono::steady_clock;

/// Native output kept per stream in a journal record (the tail when longer).
constexpr size_t kNativeOutputLimit = 64 * 1024;
/// The least time a worker gets to open the device.
constexpr double kWorkerStartTimeoutS = 120;

/// Sleeps up to `seconds`, returning early when a stop was requested.
void interruptible_sleep(double seconds) {
  auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  while (Clock::now() < until && !stop_requested()) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/// "3", "0.5", "600": seconds as a user typed them.
std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

json file_identity(const fs::path &path) {
  std::optional<std::string> digest = pb::sdk::sha256_file(path);
  return json{{"sha256", digest ? json(*digest) : json(nullptr)}};
}

/// A function of this library, to find the library's own path.
void anchor_function() {}

std::string read_capture(const fs::path &path, bool &truncated) {
  std::optional<std::string> text = read_whole_file(path);
  std::error_code ec;
  fs::remove(path, ec);
  if (!text) return {};
  if (text->size() > kNativeOutputLimit) {
    truncated = true;
    return text->substr(text->size() - kNativeOutputLimit);
  }
  return *text;
}

/// What the lanes of a multi-device run share: the queue of measure cases
/// they pull from, the cases already recorded, and the top-level result.
struct Shared {
  std::mutex state_mutex;   // queue, done, records of every lane, on_record
  std::mutex print_mutex;   // progress lines
  std::deque<json> queue;   // measure cases no lane has taken yet
  size_t total = 0;         // cases of the run (smoke cases once per lane)
  size_t finished = 0;
  std::function<void()> on_record;  // called with state_mutex held

  std::optional<json> take() {
    std::lock_guard<std::mutex> lock(state_mutex);
    if (queue.empty()) return std::nullopt;
    json next = std::move(queue.front());
    queue.pop_front();
    return next;
  }
};

/// The device key of an identity: its bus id, else its unique id, else the index.
std::string identity_key(const json &identity, uint32_t index) {
  if (identity.value("bus_id", json(nullptr)).is_string()) return identity["bus_id"].get<std::string>();
  if (identity.value("unique_id", json(nullptr)).is_string()) return identity["unique_id"].get<std::string>();
  return "index" + std::to_string(index);
}

/// One device of a run: its lock, journal, health gate, fingerprint and
/// worker. A single-device run is one lane writing to --out-dir itself; a
/// multi-device run has one lane per device under --out-dir/lanes/, each in
/// its own thread, pulling measure cases from the shared queue.
class Runner {
 public:
  Runner(const pb::sdk::Host &host, const RunOptions &options, std::ostream &progress, Shared *shared = nullptr)
      : host_(host), options_(options), progress_(progress), shared_(shared) {}

  /// Single-device run: everything, then the report on `out`.
  int run(std::ostream &out);

  /// Loads the plan and the backend, describes the device, fingerprints and
  /// locks it. `cases` are the run's cases in execution order (a shard's).
  void setup(const json &plan, std::vector<json> cases);
  /// The lane directory a multi-device run uses for this device.
  [[nodiscard]] std::string lane_name() const;
  /// Creates or (with --resume) reopens the journal in `dir`.
  void open(const fs::path &dir);
  /// Runs cases until done, a stop, a smoke failure or a dead device.
  /// Returns the lane's state.
  std::string run_cases();
  /// Stops the worker and writes the lane's result.json.
  void finish(const std::string &state);

  [[nodiscard]] bool fatal() const { return fatal_; }
  [[nodiscard]] bool any_failure() const;
  [[nodiscard]] const json &header() const { return header_; }
  [[nodiscard]] const std::vector<json> &records() const { return records_; }
  [[nodiscard]] const fs::path &journal_path() const { return journal_path_; }
  [[nodiscard]] const Backend &backend() const { return *backend_; }
  [[nodiscard]] uint32_t device_index() const { return options_.device_index; }

 private:
  void prepare_fingerprint();
  void open_journal();
  void setup_health();
  json run_case(const json &plan_case);
  json gate_before(std::string &refusal);
  bool ensure_worker(std::string &error);
  void stop_worker(const std::string &why);
  void record(const json &plan_case, json row);
  void write_outputs(const std::string &state);
  json run_metadata() const;
  std::optional<json> next_case(bool smoke_failed, bool &blocked_by_smoke);
  void say(const std::string &line) {
    if (!options_.progress) return;
    if (shared_ == nullptr) {
      progress_ << line << std::endl;
      return;
    }
    std::lock_guard<std::mutex> lock(shared_->print_mutex);
    progress_ << prefix_ << line << std::endl;
  }

  const pb::sdk::Host &host_;
  RunOptions options_;
  std::ostream &progress_;
  Shared *shared_ = nullptr;
  std::string prefix_;
  fs::path dir_;

  json plan_;
  std::vector<json> ordered_cases_;
  size_t next_index_ = 0;
  std::unique_ptr<Backend> backend_;
  json identity_;
  json fingerprint_;
  json header_;
  fs::path journal_path_;
  std::unique_ptr<JournalWriter> journal_;
  std::unique_ptr<DeviceLock> lock_;
  std::map<std::string, json> rows_;  // by case id
  std::vector<json> records_;         // journal records, file order
  uint64_t sequence_ = 0;
  bool resumed_ = false;
  bool fatal_ = false;
  std::string started_at_;
  std::string run_id_;

  std::unique_ptr<HealthGate> gate_;
  std::optional<SmiSnapshot> last_idle_snapshot_;
  Observation last_idle_observation_;
  std::string worker_rows_note_;

  std::unique_ptr<WorkerProcess> worker_;
  int worker_count_ = 0;
  int worker_cases_ = 0;
  std::vector<std::string> worker_argv_;
};

void Runner::prepare_fingerprint() {
  json case_ids = json::array();
  for (const json &plan_case : plan_.at("cases")) case_ids.push_back(plan_case.value("id", ""));
  json plan_part{{"plan_sha256", plan_.at("plan_sha256")},
                 {"protocol", plan_.at("protocol")},
                 {"shape_divisor", plan_.at("shape_divisor")},
                 {"backend", plan_.at("backend")},
                 {"case_ids", case_ids}};
  if (options_.shard) plan_part["shard"] = options_.shard->text();
  fs::path exe = self_executable();
  fs::path bench_library = library_containing(reinterpret_cast<const void *>(&anchor_function));
  json source_part{{"perfbound", json{{"host", host_.raw()->name}, {"version", host_.raw()->version}}},
                   {"perfbound_executable", file_identity(exe)},
                   {"bench_plugin", json{{"version", kBenchVersion}}},
                   {"bench_library", file_identity(bench_library)},
                   {"backend_plugin", json{{"id", backend_->listing().plugin_id}, {"version", backend_->listing().version}}},
                   {"backend_library", file_identity(backend_->listing().library)}};
  json hardware_part{{"backend", backend_->name()},
                     {"device_index", options_.device_index},
                     {"device", identity_},
                     {"host", host_name()}};
  fingerprint_ = json{{"plan", plan_part}, {"source", source_part}, {"hardware", hardware_part}};
  worker_argv_ = {exe.string(),
                  "--plugin-path",
                  bench_library.parent_path().string(),
                  "--plugin-path",
                  fs::path(backend_->listing().library).parent_path().string(),
                  "bench",
                  "worker",
                  "--backend-plugin",
                  backend_->listing().plugin_id,
                  "--device",
                  std::to_string(options_.device_index)};
  header_ = json{{"schema", kJournalHeaderSchema},
                 {"run_id", ""},
                 {"created_at", utc_now_iso()},
                 {"plan_file", fs::absolute(options_.plan_path).string()},
                 {"fingerprint", fingerprint_},
                 {"fingerprint_sha256", fingerprint_digests(fingerprint_)},
                 {"paths", json{{"perfbound_executable", exe.string()},
                                {"bench_library", bench_library.string()},
                                {"backend_library", backend_->listing().library}}},
                 {"pid_namespace", pid_namespace()},
                 {"pid", static_cast<int64_t>(getpid())}};
}

void Runner::open_journal() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) throw pb::sdk::InfraError("cannot create " + dir_.string() + ": " + ec.message());
  journal_path_ = dir_ / "journal.jsonl";
  bool exists = fs::exists(journal_path_, ec);
  if (exists && !options_.resume)
    throw UsageError(journal_path_.string() + " already exists: pass --resume to continue that run, or choose another --out-dir");
  if (!exists && options_.resume) throw UsageError("--resume: there is no journal at " + journal_path_.string());
  if (!exists) {
    run_id_ = "bench-" + utc_now_iso() + "-" + std::to_string(getpid());
    for (char &c : run_id_)
      if (c == ':') c = '-';
    header_["run_id"] = run_id_;
    started_at_ = header_["created_at"];
    journal_ = std::make_unique<JournalWriter>(JournalWriter::create(journal_path_, header_));
    return;
  }
  JournalContents contents = read_journal(journal_path_);
  json recorded = contents.header.value("fingerprint", json::object());
  if (auto change = compare_fingerprints(recorded, fingerprint_))
    throw pb::sdk::InputError("resume refused: " + journal_path_.string() + " was started under a different fingerprint; " +
                              *change + ". Start a new run (another --out-dir) to measure under the new conditions.");
  std::map<std::string, const json *> plan_cases;
  for (const json &plan_case : plan_.at("cases")) plan_cases[plan_case.value("id", "")] = &plan_case;
  for (const json &record : contents.records) {
    std::string case_id = record.value("case_id", "");
    if (plan_cases.count(case_id) == 0)
      throw pb::sdk::InputError(journal_path_.string() + ": records case '" + case_id + "', which the plan does not have");
    if (rows_.count(case_id) != 0) continue;  // keep the first record of a case
    rows_[case_id] = record.at("row");
    records_.push_back(record);
    sequence_ = std::max<uint64_t>(sequence_, record.value("seq", uint64_t{0}));
  }
  if (contents.torn_bytes > 0)
    say("journal: dropped a torn last line (" + std::to_string(contents.torn_bytes) +
        " bytes, a crash mid-write); that case runs again");
  run_id_ = contents.header.value("run_id", "");
  started_at_ = contents.header.value("created_at", "");
  header_ = contents.header;
  resumed_ = true;
  journal_ = std::make_unique<JournalWriter>(JournalWriter::reopen(journal_path_, contents.good_bytes));
  say("resuming " + run_id_ + ": " + std::to_string(rows_.size()) + " of " + std::to_string(ordered_cases_.size()) +
      " cases already recorded");
}

void Runner::setup_health() {
  if (options_.health_tool == "none") return;
  if (options_.health_tool != "npu-smi" && options_.health_tool != "nvidia-smi")
    throw UsageError("--health " + options_.health_tool + ": expected none, npu-smi or nvidia-smi");
  SmiTarget target;
  target.tool = options_.health_tool;
  target.program = options_.smi_program.empty() ? options_.health_tool : options_.smi_program;
  std::string device = options_.smi_device.empty() ? std::to_string(options_.device_index) : options_.smi_device;
  size_t colon = device.find(':');
  target.npu = device.substr(0, colon);
  target.chip = colon == std::string::npos ? "0" : device.substr(colon + 1);
  gate_ = std::make_unique<HealthGate>(target);
}

json Runner::gate_before(std::string &refusal) {
  json observations = json::array();
  Clock::time_point start = Clock::now();
  while (true) {
    Observation first = gate_->observe("before");
    observations.push_back(first.to_json());
    std::optional<std::string> reason = HealthGate::not_idle_reason(first);
    if (!reason) {
      interruptible_sleep(options_.idle_interval_s);
      std::optional<SmiSnapshot> second_snapshot;
      Observation second = gate_->observe("before", &second_snapshot);
      observations.push_back(second.to_json());
      reason = HealthGate::not_idle_reason(second);
      if (!reason && second.ecc_uncorrected != first.ecc_uncorrected)
        reason = "uncorrected ECC counts changed between the two idle observations";
      if (!reason) {
        last_idle_snapshot_ = second_snapshot;
        last_idle_observation_ = second;
        refusal.clear();
        return observations;
      }
    }
    if (seconds_since(start) >= options_.idle_timeout_s || stop_requested()) {
      refusal = *reason;
      return observations;
    }
    interruptible_sleep(options_.idle_interval_s);
    // Keep only the latest few attempts in the record.
    while (observations.size() > 6) observations.erase(observations.begin());
  }
}

bool Runner::ensure_worker(std::string &error) {
  if (worker_) return true;
  ++worker_count_;
  fs::path log_path = dir_ / ("worker-" + std::to_string(worker_count_) + ".log");
  worker_ = std::make_unique<WorkerProcess>(worker_argv_, log_path);
  worker_cases_ = 0;
  std::string line;
  // Opening a device can take far longer than a short case (aclInit, a CUDA
  // context): the start gets at least kWorkerStartTimeoutS.
  double start_timeout_s = std::max(options_.case_timeout_s, kWorkerStartTimeoutS);
  auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(start_timeout_s));
  auto status = worker_->read_line(deadline, line, [] { return stop_requested(); }, 0, [] {});
  json ready = status == WorkerProcess::ReadStatus::kLine ? json::parse(line, nullptr, false) : json();
  if (status != WorkerProcess::ReadStatus::kLine || !ready.is_object() || !ready.value("ready", false)) {
    std::string ended = worker_->kill_group();
    if (ready.is_object() && ready.contains("error"))
      error = ready["error"].get<std::string>();
    else if (status == WorkerProcess::ReadStatus::kTimeout)
      error = "the worker did not open the device within " + seconds_text(start_timeout_s) + " s";
    else
      error = "the worker ended before opening the device (" + ended + ")";
    error += "; worker log: " + log_path.string();
    worker_.reset();
    return false;
  }
  if (gate_ && last_idle_snapshot_) {
    std::optional<SmiSnapshot> after;
    Observation started = gate_->observe("worker_start", &after);
    worker_rows_note_ = after ? gate_->learn_worker_rows(*last_idle_snapshot_, *after, std::to_string(worker_->pid()))
                              : "cannot observe the device after the worker started: " + started.error;
  }
  return true;
}

void Runner::stop_worker(const std::string &why) {
  if (!worker_) return;
  std::string ended = worker_->finish(5.0);
  say("worker stopped (" + why + "): " + ended);
  worker_.reset();
  if (gate_) gate_->forget_worker_rows();
}

json Runner::run_case(const json &plan_case) {
  json device{{"backend", backend_->name()}, {"index", options_.device_index},
              {"name", identity_.value("name", json(nullptr))}, {"bus_id", identity_.value("bus_id", json(nullptr))},
              {"host", host_name()}, {"key", identity_key(identity_, options_.device_index)}};
  json health = gate_ ? json{{"gate", gate_->target().tool}, {"observations", json::array()}, {"verdict", nullptr}}
                      : json{{"gate", "none"}, {"reason", "no --health tool was given"}};
  if (plan_case.value("status", "") != "planned")
    return make_unmeasured_row(plan_case, "error", plan_case.value("reason", std::string("not runnable")), nullptr,
                               nullptr, health, device);

  GemmShape shape = shape_of_case(plan_case);
  json capacities = plan_.value("hardware_profile", json(nullptr)).is_object()
                        ? plan_["hardware_profile"].value("capacities", json(nullptr))
                        : json(nullptr);
  json preflight = preflight_gemm(shape, plan_case.value("tiling", json(nullptr)), capacities);
  if (preflight["status"] == "exceeds" || preflight["status"] == "unverified")
    return make_unmeasured_row(plan_case, "skipped", preflight["reason"].get<std::string>(), preflight["skipped_reason"],
                               preflight, health, device);

  if (gate_) {
    std::string refusal;
    health["observations"] = gate_before(refusal);
    if (!refusal.empty()) {
      health["verdict"] = "not_idle";
      return make_unmeasured_row(plan_case, "skipped", refusal, "device_not_idle: " + refusal, preflight, health, device);
    }
  }

  std::string worker_error;
  if (!ensure_worker(worker_error)) {
    json row = make_unmeasured_row(plan_case, "error", "cannot start a worker: " + worker_error, nullptr, preflight, health, device);
    row["worker"] = json{{"fatal", true}};
    return row;
  }
  if (gate_) health["worker_rows"] = worker_rows_note_;

  fs::path capture_out = dir_ / "capture.stdout";
  fs::path capture_err = dir_ / "capture.stderr";
  json request{{"case", plan_case}, {"capture", json{{"stdout", capture_out.string()}, {"stderr", capture_err.string()}}}};
  Clock::time_point start = Clock::now();
  std::string started_at = utc_now_iso();
  json during = json::array();
  std::optional<std::string> contamination;
  auto observe_during = [&](const char *phase) {
    if (!gate_) return;
    Observation observation = gate_->observe(phase);
    during.push_back(observation.to_json());
    if (!contamination) contamination = HealthGate::contamination_reason(last_idle_observation_, observation);
  };
  pid_t worker_pid = worker_->pid();
  bool first_case = worker_cases_ == 0;
  json row;
  std::string line;
  WorkerProcess::ReadStatus status = WorkerProcess::ReadStatus::kClosed;
  if (worker_->send_line(request.dump())) {
    observe_during("during");
    auto deadline = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options_.case_timeout_s));
    status = worker_->read_line(deadline, line, [] { return stop_requested(); }, gate_ ? options_.health_interval_s : 0,
                                [&] { observe_during("during"); });
  }
  ++worker_cases_;
  json worker_info{{"pid", static_cast<int64_t>(worker_pid)}, {"number", worker_count_}, {"first_case", first_case}, {"ended", nullptr}};
  if (status == WorkerProcess::ReadStatus::kLine) {
    json outcome = json::parse(line, nullptr, false);
    if (!outcome.is_object()) outcome = json{{"status", "error"}, {"reason", "the worker answered with something that is not JSON"}};
    row = make_measured_row(plan_case, outcome, preflight, health, device);
  } else if (status == WorkerProcess::ReadStatus::kTimeout) {
    std::string ended = worker_->kill_group();
    worker_info["ended"] = ended;
    worker_.reset();
    if (gate_) gate_->forget_worker_rows();
    row = make_unmeasured_row(plan_case, "timeout",
                              "no result within the " + seconds_text(options_.case_timeout_s) +
                                  " s case deadline; the worker's process group was killed (" + ended + ")",
                              nullptr, preflight, health, device);
  } else if (status == WorkerProcess::ReadStatus::kInterrupted) {
    worker_info["ended"] = worker_->kill_group();
    worker_.reset();
    return json(nullptr);  // not recorded: it runs again on --resume
  } else {
    std::string ended = worker_->kill_group();
    worker_info["ended"] = ended;
    worker_.reset();
    if (gate_) gate_->forget_worker_rows();
    row = make_unmeasured_row(plan_case, "error", "the worker died during the case (" + ended + ")", nullptr, preflight,
                              health, device);
  }
  if (gate_) {
    observe_during("after");
    row["health"]["during"] = during;
    row["health"]["verdict"] = contamination ? "contaminated" : "clean";
    if (contamination) {
      row["health"]["contamination"] = *contamination;
      if (row["status"] == "ok") {
        row["status"] = "contaminated";
        row["reason"] = *contamination;
      }
    }
  }
  bool truncated = false;
  std::string native_out = read_capture(capture_out, truncated);
  std::string native_err = read_capture(capture_err, truncated);
  row["native_output"] = json{{"stdout", native_out}, {"stderr", native_err}, {"truncated", truncated}};
  row["worker"] = worker_info;
  row["started_at"] = started_at;
  row["duration_s"] = seconds_since(start);
  return row;
}

void Runner::record(const json &plan_case, json row) {
  json line{{"schema", kJournalRecordSchema},
            {"case_id", plan_case.value("id", "")},
            {"seq", ++sequence_},
            {"written_at", utc_now_iso()},
            {"row", row}};
  journal_->append(line);
  rows_[plan_case.value("id", "")] = std::move(row);
  if (shared_ == nullptr) {
    records_.push_back(std::move(line));
    return;
  }
  std::lock_guard<std::mutex> lock(shared_->state_mutex);
  records_.push_back(std::move(line));
  ++shared_->finished;
  if (shared_->on_record) shared_->on_record();
}

json Runner::run_metadata() const {
  json health = gate_ ? json{{"tool", gate_->target().tool},
                             {"program", gate_->target().program},
                             {"npu", gate_->target().npu},
                             {"chip", gate_->target().chip},
                             {"idle_interval_s", options_.idle_interval_s},
                             {"idle_timeout_s", options_.idle_timeout_s},
                             {"health_interval_s", options_.health_interval_s}}
                      : json{{"tool", "none"}, {"reason", "no --health tool was given"}};
  return json{{"id", run_id_},
              {"started_at", started_at_},
              {"finished_at", utc_now_iso()},
              {"resumed", resumed_},
              {"hostname", host_name()},
              {"pid_namespace", pid_namespace()},
              {"perfbound_version", host_.raw()->version},
              {"bench_plugin_version", kBenchVersion},
              {"plan", json{{"file", options_.plan_path.filename().string()},
                            {"path", fs::absolute(options_.plan_path).string()},
                            {"sha256", plan_.at("plan_sha256")}}},
              {"journal", fs::absolute(journal_path_).string()},
              {"fingerprint_sha256", fingerprint_digests(fingerprint_)},
              {"protocol", plan_.at("protocol")},
              {"backend", backend_->to_json()},
              {"device", json{{"index", options_.device_index}, {"identity", identity_}}},
              {"shape_divisor", plan_.at("shape_divisor")},
              {"hardware_profile", plan_.value("hardware_profile", json(nullptr))},
              {"health_gate", health},
              {"shard", options_.shard ? json(options_.shard->text()) : json(nullptr)},
              {"options", json{{"case_timeout_s", options_.case_timeout_s}, {"cooldown_s", options_.cooldown_s},
                               {"keep_going", options_.keep_going}}}};
}

void Runner::write_outputs(const std::string &state) {
  std::vector<json> rows;
  for (const json &plan_case : ordered_cases_) {
    auto it = rows_.find(plan_case.value("id", ""));
    if (it != rows_.end()) rows.push_back(it->second);
  }
  json result = make_result(run_metadata(), rows, state);
  // A lane of a multi-device run owns only the cases it took: nothing is
  // pending for it (the run's result.json counts what no lane recorded).
  result["summary"]["pending"] = shared_ != nullptr ? 0 : ordered_cases_.size() - rows.size();
  write_file_durably(dir_ / "result.json", result.dump(2) + "\n");
  write_file_durably(dir_ / "summary.md", render_markdown(result));
}

void Runner::setup(const json &plan, std::vector<json> cases) {
  plan_ = plan;
  ordered_cases_ = std::move(cases);
  backend_ = std::make_unique<Backend>(Backend::load(host_, plan_["backend"].value("plugin", "")));
  if (backend_->name() != plan_["backend"].value("name", ""))
    throw pb::sdk::InputError(options_.plan_path.string() + ": the plan is for backend '" + plan_["backend"].value("name", "") +
                              "', but plugin " + backend_->listing().plugin_id + " offers '" + backend_->name() + "'");
  uint32_t count = backend_->device_count();
  if (options_.device_index >= count)
    throw pb::sdk::InfraError("backend " + backend_->name() + ": device " + std::to_string(options_.device_index) +
                              " does not exist (" + std::to_string(count) + " device(s) found)");
  identity_ = backend_->describe_device(options_.device_index);
  prefix_ = "[" + backend_->name() + std::to_string(options_.device_index) + "] ";
  setup_health();
  prepare_fingerprint();

  // Lock the device before touching the journal, so a second run is refused
  // whatever --out-dir it names.
  std::string device_key = backend_->name() + "-" + identity_key(identity_, options_.device_index);
  const char *env_lock_dir = std::getenv("PERFBOUND_LOCK_DIR");
  fs::path lock_dir = !options_.lock_dir.empty() ? options_.lock_dir
                      : (env_lock_dir != nullptr && *env_lock_dir != '\0') ? fs::path(env_lock_dir)
                                                                           : fs::path("/tmp/perfbound-locks");
  lock_ = std::make_unique<DeviceLock>(lock_dir, device_key,
                                       "pid " + std::to_string(getpid()) + " on " + host_name() + ", plan " +
                                           options_.plan_path.string() + ", out-dir " + options_.out_dir.string() +
                                           ", since " + utc_now_iso());
}

std::string Runner::lane_name() const {
  std::string name = host_name() + "-" + backend_->name() + "-" + identity_key(identity_, options_.device_index);
  for (char &c : name)
    if (c == '/' || c == ' ' || c == '\\') c = '_';
  return name;
}

void Runner::open(const fs::path &dir) {
  dir_ = dir;
  open_journal();
}

std::optional<json> Runner::next_case(bool smoke_failed, bool &blocked_by_smoke) {
  while (next_index_ < ordered_cases_.size()) {
    const json &plan_case = ordered_cases_[next_index_];
    // A multi-device lane runs only its smoke cases itself; the measure
    // cases come from the shared queue.
    if (shared_ != nullptr && plan_case.value("phase", "") != "smoke") break;
    if (rows_.count(plan_case.value("id", "")) != 0) {
      ++next_index_;
      continue;
    }
    if (smoke_failed && plan_case.value("phase", "") == "measure") {
      blocked_by_smoke = true;
      return std::nullopt;
    }
    ++next_index_;
    return plan_case;
  }
  if (shared_ == nullptr) return std::nullopt;
  if (smoke_failed) {
    std::lock_guard<std::mutex> lock(shared_->state_mutex);
    blocked_by_smoke = !shared_->queue.empty();
    return std::nullopt;
  }
  return shared_->take();
}

std::string Runner::run_cases() {
  std::string state = "complete";
  bool smoke_failed = false;
  while (true) {
    if (stop_requested()) {
      state = "interrupted";
      break;
    }
    bool blocked_by_smoke = false;
    std::optional<json> next = next_case(smoke_failed, blocked_by_smoke);
    if (!next) {
      if (blocked_by_smoke) state = "stopped_after_smoke_failure";
      break;
    }
    const json &plan_case = *next;
    std::string case_id = plan_case.value("id", "");
    json row = run_case(plan_case);
    if (row.is_null()) {
      if (shared_ != nullptr && plan_case.value("phase", "") != "smoke") {
        std::lock_guard<std::mutex> lock(shared_->state_mutex);
        shared_->queue.push_front(plan_case);  // not recorded: another lane or a --resume runs it
      }
      state = "interrupted";
      break;
    }
    record(plan_case, row);
    size_t done = 0;
    size_t total = ordered_cases_.size();
    if (shared_ != nullptr) {
      std::lock_guard<std::mutex> lock(shared_->state_mutex);
      done = shared_->finished;
      total = shared_->total;
    } else {
      done = rows_.size();
    }
    std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " + case_id + " " +
                       plan_case.value("name", "") + ": " + row.value("status", "");
    if (row["latency_us"].is_number()) {
      char figures[96];
      std::snprintf(figures, sizeof figures, " %.2f us (upper median), %.4g TFLOPS", row["latency_us"].get<double>(),
                    row["tflops"].is_number() ? row["tflops"].get<double>() : 0.0);
      line += figures;
    }
    if (row["reason"].is_string()) line += " (" + row["reason"].get<std::string>() + ")";
    say(line);
    // A lane of a multi-device run writes its own result.json at the end; the
    // run's result.json is rewritten as cases finish (MultiRunner::write_top).
    if (shared_ == nullptr) write_outputs("running");
    if (row["worker"].is_object() && row["worker"].value("fatal", false)) {
      fatal_ = true;
      state = "aborted_no_device";
      break;
    }
    if (plan_case.value("phase", "") == "smoke" && is_failure_status(row.value("status", "")) && !options_.keep_going)
      smoke_failed = true;
    if (options_.cooldown_s > 0) interruptible_sleep(options_.cooldown_s);
  }
  if (state == "complete" && smoke_failed && shared_ == nullptr && rows_.size() < ordered_cases_.size())
    state = "stopped_after_smoke_failure";
  return state;
}

void Runner::finish(const std::string &state) {
  stop_worker("end of run");
  write_outputs(state);
}

bool Runner::any_failure() const {
  for (const auto &[case_id, row] : rows_) {
    (void)case_id;
    if (is_failure_status(row.value("status", ""))) return true;
  }
  return false;
}

int Runner::run(std::ostream &out) {
  json plan = load_plan(options_.plan_path);
  std::vector<json> cases = cases_in_order(plan);
  if (options_.shard) {
    std::set<std::string> ids = shard_case_ids(plan, *options_.shard);
    std::erase_if(cases, [&](const json &plan_case) { return ids.count(plan_case.value("id", "")) == 0; });
  }
  setup(plan, std::move(cases));
  open(options_.out_dir);
  install_stop_handlers();
  if (options_.shard) say("shard " + options_.shard->text() + ": " + std::to_string(ordered_cases_.size()) + " cases");

  std::string state = run_cases();
  finish(state);
  json result = json::parse(*read_whole_file(dir_ / "result.json"));
  if (options_.format == "json")
    out << result.dump(2) << "\n";
  else if (options_.format == "md")
    out << render_markdown(result);
  else
    out << render_text(result) << "result: " << (dir_ / "result.json").string() << "\n";
  if (state == "interrupted") return 130;
  if (fatal_) return 5;
  return state != "complete" || any_failure() ? 1 : 0;
}

/// `bench run --devices`: one lane (thread, worker, lock, journal, gate) per
/// device, measure cases pulled from one queue, result.json merged from the
/// lanes' journals (merge.hpp).
class MultiRunner {
 public:
  MultiRunner(const pb::sdk::Host &host, const RunOptions &options, std::ostream &progress)
      : host_(host), options_(options), progress_(progress) {}
  int run(std::ostream &out);

 private:
  void write_top(const std::string &state, bool force);
  const pb::sdk::Host &host_;
  RunOptions options_;
  std::ostream &progress_;
  Shared shared_;
  std::vector<std::unique_ptr<Runner>> lanes_;
  std::vector<MergeSource> others_;  // lanes of earlier runs in this --out-dir on other devices
  std::string run_id_;
  Clock::time_point next_write_{};
};

void MultiRunner::write_top(const std::string &state, bool force) {
  // Called with shared_.state_mutex held (or after the lanes ended). A merge
  // of a long campaign is not free (100k rows: about 25 s of CPU), so it is
  // rewritten at most every 2 s and never more than 5 % of the time.
  if (!force && Clock::now() < next_write_) return;
  Clock::time_point start = Clock::now();
  std::vector<MergeSource> sources = others_;
  for (const auto &lane : lanes_)
    sources.push_back(MergeSource{lane->journal_path().string(), lane->header(), lane->records(), 0});
  MergeOptions merge;
  merge.id = run_id_;
  merge.state = state;
  json devices = json::array();
  for (const auto &lane : lanes_) devices.push_back(lane->device_index());
  merge.extra_run = json{{"devices", devices},
                         {"shard", options_.shard ? json(options_.shard->text()) : json(nullptr)},
                         {"out_dir", fs::absolute(options_.out_dir).string()}};
  json result = merge_sources(sources, merge);
  write_file_durably(options_.out_dir / "result.json", result.dump(2) + "\n");
  write_file_durably(options_.out_dir / "summary.md", render_markdown(result));
  double cost_s = seconds_since(start);
  next_write_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(2.0, 20 * cost_s)));
}

int MultiRunner::run(std::ostream &out) {
  json plan = load_plan(options_.plan_path);
  std::vector<json> cases = cases_in_order(plan);
  if (options_.shard) {
    std::set<std::string> ids = shard_case_ids(plan, *options_.shard);
    std::erase_if(cases, [&](const json &plan_case) { return ids.count(plan_case.value("id", "")) == 0; });
  }
  std::vector<uint32_t> devices = options_.devices;
  if (options_.all_devices) {
    Backend probe = Backend::load(host_, plan["backend"].value("plugin", ""));
    uint32_t count = probe.device_count();
    if (count == 0) throw pb::sdk::InfraError("--devices all: backend " + probe.name() + " found no device");
    for (uint32_t index = 0; index < count; ++index) devices.push_back(index);
  }
  if (!options_.smi_devices.empty() && options_.smi_devices.size() != devices.size())
    throw UsageError("--smi-device names " + std::to_string(options_.smi_devices.size()) + " device(s), --devices " +
                     std::to_string(devices.size()));
  std::map<uint32_t, std::string> smi_by_device;
  for (size_t idx = 0; idx < options_.smi_devices.size(); ++idx) smi_by_device[devices[idx]] = options_.smi_devices[idx];
  // Every device is set up and locked before any journal is written, so a
  // locked or missing device refuses the whole run with nothing written.
  for (uint32_t device : devices) {
    RunOptions lane_options = options_;
    lane_options.device_index = device;
    lane_options.smi_devices.clear();
    lane_options.smi_device = smi_by_device.count(device) != 0 ? smi_by_device[device] : "";
    auto lane = std::make_unique<Runner>(host_, lane_options, progress_, &shared_);
    lane->setup(plan, cases);
    lanes_.push_back(std::move(lane));
  }
  fs::path lanes_dir = options_.out_dir / "lanes";
  std::error_code ec;
  bool existing = fs::is_directory(lanes_dir, ec) && !fs::is_empty(lanes_dir, ec);
  if (existing && !options_.resume)
    throw UsageError(lanes_dir.string() + " already holds journals: pass --resume to continue that run, or choose another --out-dir");
  if (!existing && options_.resume) throw UsageError("--resume: there is no journal under " + lanes_dir.string());
  if (fs::exists(options_.out_dir / "journal.jsonl", ec))
    throw UsageError((options_.out_dir / "journal.jsonl").string() + " is a single-device run (--device); run --devices in another --out-dir");
  std::set<std::string> active;
  for (auto &lane : lanes_)
    if (!active.insert(lane->lane_name()).second)
      throw UsageError("--devices: two of the devices are the same device, " + lane->lane_name());
  for (auto &lane : lanes_) lane->open(lanes_dir / lane->lane_name());
  // Journals of devices that took part before (another node, another CPU)
  // count: their cases are done.
  if (existing)
    for (const fs::directory_entry &entry : fs::directory_iterator(lanes_dir, ec))
      if (active.count(entry.path().filename().string()) == 0 && fs::exists(entry.path() / "journal.jsonl", ec))
        others_.push_back(load_source(entry.path() / "journal.jsonl"));
  std::sort(others_.begin(), others_.end(), [](const MergeSource &a, const MergeSource &b) { return a.label < b.label; });
  std::vector<MergeSource> all = others_;
  for (const auto &lane : lanes_) all.push_back(MergeSource{lane->journal_path().string(), lane->header(), lane->records(), 0});
  check_mergeable(all);
  std::set<std::string> done;
  for (const MergeSource &source : all)
    for (const json &record : source.records) done.insert(record.value("case_id", ""));
  size_t smoke = 0;
  for (const json &plan_case : cases) {
    if (plan_case.value("phase", "") == "smoke") {
      ++smoke;
      continue;
    }
    if (done.count(plan_case.value("id", "")) == 0) shared_.queue.push_back(plan_case);
  }
  shared_.total = smoke * lanes_.size() + (cases.size() - smoke);
  for (const MergeSource &source : all) shared_.finished += source.records.size();
  run_id_ = "bench-" + utc_now_iso() + "-" + std::to_string(getpid());
  for (char &c : run_id_)
    if (c == ':') c = '-';
  shared_.on_record = [this] { write_top("running", false); };
  install_stop_handlers();
  if (options_.progress && options_.resume)
    progress_ << "resuming: " << done.size() << " case(s) already recorded in " << all.size() << " journal(s) under "
              << lanes_dir.string() << std::endl;
  if (options_.progress) {
    std::string names;
    for (const auto &lane : lanes_) names += (names.empty() ? "" : ", ") + lane->lane_name();
    progress_ << "devices: " << names << "; " << shared_.queue.size() << " measure cases queued"
              << (options_.shard ? " (shard " + options_.shard->text() + ")" : std::string()) << std::endl;
  }

  std::vector<std::string> states(lanes_.size());
  std::vector<std::string> errors(lanes_.size());
  std::vector<std::thread> threads;
  for (size_t idx = 0; idx < lanes_.size(); ++idx)
    threads.emplace_back([&, idx] {
      try {
        states[idx] = lanes_[idx]->run_cases();
        lanes_[idx]->finish(states[idx]);
      } catch (const std::exception &e) {
        errors[idx] = e.what();
        states[idx] = "aborted";
      }
    });
  for (std::thread &thread : threads) thread.join();
  for (size_t idx = 0; idx < lanes_.size(); ++idx)
    if (!errors[idx].empty()) progress_ << "perfbound bench: " << lanes_[idx]->lane_name() << ": " << errors[idx] << std::endl;

  bool interrupted = std::count(states.begin(), states.end(), "interrupted") > 0;
  bool all_fatal = std::all_of(lanes_.begin(), lanes_.end(), [](const auto &lane) { return lane->fatal(); });
  std::string state = "complete";
  if (interrupted)
    state = "interrupted";
  else if (!shared_.queue.empty())
    state = all_fatal ? "aborted_no_device" : "stopped_after_smoke_failure";
  write_top(state, true);
  json result = json::parse(*read_whole_file(options_.out_dir / "result.json"));
  if (options_.format == "json")
    out << result.dump(2) << "\n";
  else if (options_.format == "md")
    out << render_markdown(result);
  else
    out << render_text(result) << "result: " << (options_.out_dir / "result.json").string() << "\n";
  if (interrupted) return 130;
  if (all_fatal) return 5;
  bool failed = state != "complete" || !result["missing"].empty();
  for (const auto &lane : lanes_) failed = failed || lane->any_failure() || lane->fatal();
  for (const std::string &error : errors) failed = failed || !error.empty();
  return failed ? 1 : 0;
}

}  // namespace

int run_plan(const pb::sdk::Host &host, const RunOptions &options, std::ostream &out, std::ostream &progress) {
  if (!options.devices.empty() || options.all_devices) {
    MultiRunner runner(host, options, progress);
    return runner.run(out);
  }
  Runner runner(host, options, progress);
  return runner.run(out);
}

//===----------------------------------------------------------------------===//
// The worker
//===----------------------------------------------------------------------===//

namespace {

constexpr int kResultFd = 3;

void answer(const json &message) {
  std::string data = message.dump() + "\n";
  size_t written = 0;
  while (written < data.size()) {
    ssize_t got = write(kResultFd, data.data() + written, data.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) std::_Exit(5);  // the runner is gone
    written += static_cast<size_t>(got);
  }
}

/// Points fds 1 and 2 at the case's capture files, returning the previous
/// descriptors to restore.
std::pair<int, int> redirect_output(const json &capture) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::cout.flush();
  std::cerr.flush();
  int saved_out = dup(1);
  int saved_err = dup(2);
  for (auto [key, fd] : {std::pair<const char *, int>{"stdout", 1}, {"stderr", 2}}) {
    std::string path = capture.value(key, "");
    if (path.empty()) continue;
    int file = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (file < 0) continue;
    dup2(file, fd);
    close(file);
  }
  return {saved_out, saved_err};
}

void restore_output(std::pair<int, int> saved) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::cout.flush();
  std::cerr.flush();
  if (saved.first >= 0) {
    dup2(saved.first, 1);
    close(saved.first);
  }
  if (saved.second >= 0) {
    dup2(saved.second, 2);
    close(saved.second);
  }
}

}  // namespace

int worker_main(const pb::sdk::Host &host, const std::string &backend_plugin, uint32_t device_index) {
  if (fcntl(kResultFd, F_GETFD) < 0) {
    std::cerr << "perfbound bench worker: fd 3 is not open; this command is started by perfbound bench run\n";
    return 2;
  }
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Session> session;
  try {
    backend = std::make_unique<Backend>(Backend::load(host, backend_plugin));
    session = std::make_unique<Session>(*backend, device_index);
  } catch (const std::exception &e) {
    answer(json{{"ready", false}, {"error", e.what()}});
    return 5;
  }
  answer(json{{"ready", true}, {"pid", static_cast<int64_t>(getpid())}});
  bool first_op = true;
  std::string line;
  while (std::getline(std::cin, line)) {
    json request = json::parse(line, nullptr, false);
    if (!request.is_object() || !request.contains("case")) {
      answer(json{{"status", "error"}, {"reason", "the worker received a malformed request"}});
      continue;
    }
    auto saved = redirect_output(request.value("capture", json::object()));
    json outcome = measure_gemm_case(*session, request.at("case"), first_op);
    restore_output(saved);
    if (outcome.contains("timing") && outcome["timing"].value("ramp_calls", 0) > 0) first_op = false;
    answer(outcome);
  }
  return 0;
}

}  // namespace pb::bench
