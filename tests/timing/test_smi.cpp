//===- test_smi.cpp - npu-smi/nvidia-smi parsing and the health gate --------===//
//
// The npu-smi tests replay the real recorded outputs in
// ../shared/data/npu-smi/ (PROVENANCE.md there): parsed directly, and through
// an executable named npu-smi that prints the recording, so the gate's real
// exec-capture-parse path runs. Expected values are read off the files by hand.
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include <sys/stat.h>

#include "harness/health.hpp"
#include "harness/process.hpp"
#include "support/test_support.hpp"

namespace bench = pb::bench;

namespace {

std::string sample(const std::string &name) {
  return pbtest::read_file(pbtest::shared_dir() / "data/npu-smi" / name);
}

/// A recorded-output replay of `npu-smi`: an executable that checks its
/// arguments are "info" and prints the recorded file.
std::string make_replay(const pbtest::TempDir &dir, const std::string &recording) {
  std::filesystem::path script = dir / "npu-smi";
  pbtest::write_file(script, "#!/bin/sh\n"
                             "if [ \"$*\" != \"info\" ]; then echo \"replay: unexpected arguments: $*\" >&2; exit 2; fi\n"
                             "exec cat '" + (pbtest::shared_dir() / "data/npu-smi" / recording).string() + "'\n");
  chmod(script.c_str(), 0755);
  return script.string();
}

bench::HealthGate gate_for(const std::string &npu, const std::string &chip = "0") {
  bench::SmiTarget target;
  target.tool = "npu-smi";
  target.program = "npu-smi";
  target.npu = npu;
  target.chip = chip;
  return bench::HealthGate(target);
}

}  // namespace

TEST_CASE("npu-smi 23.0.1 on a 910B3 (gpustack): one idle NPU, indented, after a shell prompt") {
  PBTEST_REQUIRE_SHARED();
  bench::SmiSnapshot snapshot = bench::parse_npu_smi_info(sample("npu-smi_info_910B3_gpustack.txt"));
  CHECK(snapshot.version == "23.0.1");
  REQUIRE(snapshot.devices.size() == 1);
  const bench::SmiDevice &device = snapshot.devices[0];
  CHECK(device.npu == "4");
  CHECK(device.chip == "0");
  CHECK(device.name == "910B3");
  CHECK(device.health == "OK");
  CHECK(*device.power_w == doctest::Approx(93.6));
  CHECK(*device.temperature_c == doctest::Approx(40));
  CHECK(device.bus_id == "0000:01:00.0");
  CHECK(*device.utilization_pct == doctest::Approx(0));
  CHECK(*device.memory_used_mb == doctest::Approx(3161));
  CHECK(*device.memory_total_mb == doctest::Approx(65536));
  CHECK(snapshot.processes.empty());
  CHECK(snapshot.idle_npus == std::vector<std::string>{"4"});
  CHECK(snapshot.warnings.empty());
  CHECK_FALSE(bench::HealthGate::not_idle_reason(gate_for("4").judge(snapshot, "before")).has_value());
}

TEST_CASE("npu-smi 23.0.rc3.3 on 910B1: two busy NPUs and their process table") {
  PBTEST_REQUIRE_SHARED();
  bench::SmiSnapshot snapshot = bench::parse_npu_smi_info(sample("npu-smi_info_910B1_with_processes.txt"));
  CHECK(snapshot.version == "23.0.rc3.3");
  REQUIRE(snapshot.devices.size() == 2);
  CHECK(snapshot.devices[0].bus_id == "0000:C1:00.0");
  CHECK(*snapshot.devices[0].utilization_pct == doctest::Approx(55));
  CHECK(*snapshot.devices[0].memory_used_mb == doctest::Approx(65099));  // "65099/ 65536": no space before '/'
  CHECK(*snapshot.devices[1].power_w == doctest::Approx(275.0));
  CHECK(*snapshot.devices[1].utilization_pct == doctest::Approx(66));
  REQUIRE(snapshot.processes.size() == 2);
  CHECK(snapshot.processes[0].npu == "0");
  CHECK(snapshot.processes[0].pid == "576489");
  CHECK(snapshot.processes[0].name == "python");
  CHECK(*snapshot.processes[0].memory_mb == doctest::Approx(60703));
  CHECK_FALSE(snapshot.processes[0].container_pid.has_value());
  CHECK(snapshot.processes[1].pid == "576491");
  CHECK(bench::HealthGate::not_idle_reason(gate_for("0").judge(snapshot, "before")) ==
        "foreign process(es) on the device: pid 576489 (python, 60703 MB)");
}

TEST_CASE("npu-smi 26.0.rc2 A3 head: Phy-ID column, two chips per NPU, '-' power") {
  PBTEST_REQUIRE_SHARED();
  bench::SmiSnapshot snapshot = bench::parse_npu_smi_info(sample("npu-smi_info_26.0.rc2_A3_excerpt_head.txt"));
  CHECK(snapshot.version == "26.0.rc2");
  REQUIRE(snapshot.devices.size() == 2);
  const bench::SmiDevice &chip1 = snapshot.devices[1];
  CHECK(chip1.npu == "0");
  CHECK(chip1.chip == "1");
  CHECK(chip1.phy_id == "1");
  CHECK(chip1.name == "Ascend910");
  CHECK_FALSE(chip1.power_w.has_value());
  CHECK(*chip1.temperature_c == doctest::Approx(34));
  CHECK(chip1.bus_id == "0000:9F:00.0");
  CHECK(*chip1.memory_used_mb == doctest::Approx(2874));
  CHECK(*snapshot.devices[0].power_w == doctest::Approx(162.6));
  // The excerpt is cut before the process table: idleness cannot be shown.
  CHECK_FALSE(snapshot.process_table_seen);
  CHECK(bench::HealthGate::not_idle_reason(gate_for("0", "1").judge(snapshot, "before")) ==
        "the SMI output has no process table for the device");
}

TEST_CASE("npu-smi 26.0.rc2 A3 processes: 'Process id in container' NA, rows before a header ignored") {
  PBTEST_REQUIRE_SHARED();
  bench::SmiSnapshot snapshot = bench::parse_npu_smi_info(sample("npu-smi_info_26.0.rc2_A3_excerpt_processes.txt"));
  CHECK(snapshot.devices.empty());
  REQUIRE(snapshot.warnings.size() == 1);
  CHECK(snapshot.warnings[0].find("table line(s) before any known header were ignored") != std::string::npos);
  REQUIRE(snapshot.processes.size() == 1);
  CHECK(snapshot.processes[0].pid == "632268");
  CHECK(snapshot.processes[0].name == "python3.1");
  CHECK(*snapshot.processes[0].memory_mb == doctest::Approx(197));
  CHECK_FALSE(snapshot.processes[0].container_pid.has_value());  // "NA"
  CHECK(snapshot.idle_npus == std::vector<std::string>{"1"});
  CHECK(bench::HealthGate::not_idle_reason(gate_for("7").judge(snapshot, "before")) ==
        "the watched device is not in the SMI output");
}

TEST_CASE("npu-smi info -m maps NPU/chip to ACL logic ids; MCU rows have none") {
  PBTEST_REQUIRE_SHARED();
  std::vector<bench::NpuChipMapping> rows = bench::parse_npu_smi_mapping(sample("npu-smi_info_-m_910B3.txt"));
  REQUIRE(rows.size() == 4);
  CHECK(rows[0].npu == "3");
  CHECK(rows[0].logic_id == "0");
  CHECK(rows[0].name == "Ascend 910B3");
  CHECK_FALSE(rows[1].logic_id.has_value());
  CHECK(rows[1].name == "Mcu");
  CHECK(rows[2].npu == "4");
  CHECK(rows[2].logic_id == "1");
}

TEST_CASE("the gate runs npu-smi through exec: a replay of the recorded output parses identically") {
  PBTEST_REQUIRE_SHARED();
  pbtest::TempDir dir;
  bench::SmiTarget target;
  target.tool = "npu-smi";
  target.program = make_replay(dir, "npu-smi_info_910B1_with_processes.txt");
  target.npu = "1";
  std::string error;
  std::optional<bench::SmiSnapshot> snapshot = bench::observe_smi(target, error);
  REQUIRE_MESSAGE(snapshot.has_value(), error);
  REQUIRE(snapshot->processes.size() == 2);
  CHECK(snapshot->processes[1].pid == "576491");
  bench::Observation observation = bench::HealthGate(target).observe("before");
  CHECK(observation.error.empty());
  CHECK(observation.device_found);
  CHECK(bench::HealthGate::not_idle_reason(observation) == "foreign process(es) on the device: pid 576491 (python, 60704 MB)");
  // A tool that fails is reported, not parsed.
  target.program = (dir / "no-such-npu-smi").string();
  CHECK_FALSE(bench::observe_smi(target, error).has_value());
  CHECK(error.find("cannot run") != std::string::npos);
}

TEST_CASE("the worker's own row is learned by table delta, not by PID equality") {
  PBTEST_REQUIRE_SHARED();
  // Before the worker opened NPU 1 the table showed no process there (A3
  // excerpt: "No running processes found in NPU 1"); afterwards one row,
  // host pid 576491. That pid is not ours in any namespace we can see, and
  // the original harness, comparing with getpid(), would call it foreign.
  bench::SmiSnapshot before = bench::parse_npu_smi_info(sample("npu-smi_info_26.0.rc2_A3_excerpt_processes.txt"));
  bench::SmiSnapshot after = bench::parse_npu_smi_info(sample("npu-smi_info_910B1_with_processes.txt"));
  bench::HealthGate gate = gate_for("1");
  std::string note = gate.learn_worker_rows(before, after, std::to_string(getpid()));
  CHECK(note == "the worker is SMI row pid 576491 (python), the one row that appeared when it opened the device");
  bench::Observation observation = gate.judge(after, "during");
  CHECK(observation.processes.size() == 1);
  CHECK(observation.foreign.empty());
  // Without that learning the same row is foreign.
  CHECK(gate_for("1").judge(after, "during").foreign.size() == 1);
}

TEST_CASE("a process that appears during a case contaminates it") {
  PBTEST_REQUIRE_SHARED();
  // NPU 0 chip 0: the worker's row is 576489 (appeared between the 910B3
  // table, which has nothing on NPU 0, and the 910B1 table); during the case
  // the table shows 632268 (python3.1, 197 MB) instead.
  bench::SmiSnapshot empty = bench::parse_npu_smi_info(sample("npu-smi_info_910B3_gpustack.txt"));
  bench::SmiSnapshot worker = bench::parse_npu_smi_info(sample("npu-smi_info_910B1_with_processes.txt"));
  bench::SmiSnapshot intruder = bench::parse_npu_smi_info(sample("npu-smi_info_26.0.rc2_A3_excerpt_processes.txt"));
  bench::HealthGate gate = gate_for("0");
  (void)gate.learn_worker_rows(empty, worker, "1");
  bench::Observation before = gate.judge(worker, "before");
  CHECK(before.foreign.empty());
  bench::Observation during = gate.judge(intruder, "during");
  CHECK(bench::HealthGate::contamination_reason(before, during) ==
        "foreign process(es) on the device (during the case): pid 632268 (python3.1, 197 MB)");
  CHECK_FALSE(bench::HealthGate::contamination_reason(before, gate.judge(worker, "after")).has_value());
}

TEST_CASE("nvidia-smi CSV is mapped by header names, in any column order") {
  // Written by us in nvidia-smi's documented --format=csv,nounits layout
  // (header names with " [unit]" suffixes), columns deliberately reordered.
  std::string gpus =
      "name, index, pci.bus_id, driver_version, utilization.gpu [%], memory.used [MiB], memory.total [MiB], "
      "ecc.errors.uncorrected.volatile.total, temperature.gpu, power.draw [W]\n"
      "NVIDIA H200, 0, 00000000:19:00.0, 570.86.15, 0, 1, 143771, 0, 31, 75.12\n"
      "NVIDIA H200, 1, 00000000:3B:00.0, 570.86.15, 97, 80000, 143771, [N/A], 60, 650.00\n";
  std::string apps = "gpu_bus_id, pid, process_name, used_memory [MiB]\n00000000:3B:00.0, 4242, python3, 79990\n";
  bench::SmiSnapshot snapshot = bench::parse_nvidia_smi(gpus, apps);
  REQUIRE(snapshot.devices.size() == 2);
  CHECK(snapshot.version == "570.86.15");
  CHECK(snapshot.devices[1].npu == "1");
  CHECK(snapshot.devices[1].bus_id == "00000000:3B:00.0");
  CHECK(*snapshot.devices[1].utilization_pct == doctest::Approx(97));
  CHECK_FALSE(snapshot.devices[1].ecc_uncorrected.has_value());
  CHECK(*snapshot.devices[0].ecc_uncorrected == doctest::Approx(0));
  REQUIRE(snapshot.processes.size() == 1);
  CHECK(snapshot.processes[0].npu == "1");
  bench::SmiTarget target;
  target.tool = "nvidia-smi";
  target.npu = "0";
  CHECK_FALSE(bench::HealthGate::not_idle_reason(bench::HealthGate(target).judge(snapshot, "before")).has_value());
  target.npu = "1";
  CHECK(bench::HealthGate::not_idle_reason(bench::HealthGate(target).judge(snapshot, "before")) ==
        "foreign process(es) on the device: pid 4242 (python3, 79990 MB)");
}
