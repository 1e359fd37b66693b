//===- test_interrupt.cpp - Ctrl-C during the long readers of the CLI ------===//
//
// Issue 27: SIGINT during a long-running command ends it within 2 s with exit
// 130. One test per command whose time grows with its input: `validate` over a
// large profiler CSV, and `run` of the shipped extractors (in-process plugins,
// so only their own polling can stop them) over one large HIVM function and
// one large TTIR function. The inputs are generated here, large enough that
// the command is still reading when the signal comes (checked: a command that
// finished first fails the test rather than passing it unexercised).
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "support/test_support.hpp"
#include "validate_support.hpp"

namespace fs = std::filesystem;

namespace {

struct Interrupted {
  bool finished_first = false;  // exited before the signal was sent
  double stop_s = 0;            // signal -> exit
  pbtest::CliResult result;
};

/// Starts perfbound with `args`, sends SIGINT after `delay`, and times how long
/// it takes to exit after that.
Interrupted interrupt_after(const std::vector<std::string> &args, std::chrono::milliseconds delay) {
  pbtest::TempDir tmp;
  const pid_t pid = pbtest::start_program(PB_PERFBOUND_EXE, args, {}, tmp / "stderr", {}, {{"PERFBOUND_PLUGIN_PATH", ""}});
  Interrupted out;
  const auto until = std::chrono::steady_clock::now() + delay;
  while (std::chrono::steady_clock::now() < until) {
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      out.finished_first = true;
      out.result.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      out.result.err = pbtest::read_file(tmp / "stderr");
      return out;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const auto sent = std::chrono::steady_clock::now();
  kill(pid, SIGINT);
  out.result = pbtest::finish_program(pid, {}, tmp / "stderr");
  out.stop_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - sent).count();
  return out;
}

void check_stopped(const Interrupted &r) {
  INFO(r.result.err);
  REQUIRE_MESSAGE(!r.finished_first, "the command finished before the signal: the input is too small to test Ctrl-C "
                                         "on this machine (exit " << r.result.code << ")");
  CHECK(r.result.end_signal == 0);
  CHECK(r.result.code == 130);
  CHECK(r.stop_s < 2.0);
  MESSAGE("stopped " << r.stop_s << " s after SIGINT");
}

}  // namespace

TEST_CASE("Ctrl-C while validate reads a large profiler CSV: exit 130 within 2 s") {
  pbtest::TempDir tmp;
  // The fixture's header and launch rows, repeated with fresh task ids and
  // start times: 4 M rows, ~200 MB.
  const std::string fixture = pbtest::read_file(pbtest::test_source_dir() / "validate" / "fixtures" / "op_summary_mix.csv");
  const std::string header = fixture.substr(0, fixture.find('\n') + 1);
  {
    std::ofstream csv(tmp / "big.csv", std::ios::binary);
    csv << header;
    std::string row;
    for (long i = 0; i < 2'000'000; ++i) {
      const std::string task = std::to_string(100 + i), start = std::to_string(10000 + 1000 * i);
      csv << "0," << task << ",3,mix_k,MIX_AIC," << start << ".000,100.000,24,48,30,N/A,N/A\n"
          << "0," << task << ",3,mix_k,MIX_AIV," << start << ".500,101.000,24,48,N/A,20,60\n";
    }
  }
  const Interrupted r = interrupt_after({"validate", "--report", (pbtest::test_source_dir() / "validate" / "fixtures" / "report_mix_90us.json").string(),
                                         "--measurement", (tmp / "big.csv").string(), "--kernel", "mix_k", "--warmup", "1"},
                                        std::chrono::milliseconds(700));
  check_stopped(r);
}

TEST_CASE("Ctrl-C while run extracts one large HIVM function: exit 130 within 2 s") {
  pbtest::TempDir tmp;
  // One AIV function of 120,000 vector adds on one UB tile (~28 MB).
  {
    std::ofstream f(tmp / "big.npuir.mlir", std::ios::binary);
    f << "func.func @big(%arg0: memref<?xf32, #hivm.address_space<gm>>) attributes {hacc.entry, "
         "hacc.function_kind = #hacc.function_kind<DEVICE>, hivm.func_core_type = #hivm.func_core_type<AIV>} {\n"
         "  %c0_i64 = arith.constant 0 : i64\n"
         "  %ub = hivm.hir.pointer_cast(%c0_i64) : memref<64xf32, #hivm.address_space<ub>>\n";
    for (int i = 0; i < 120'000; ++i)
      f << "  hivm.hir.vadd ins(%ub, %ub : memref<64xf32, #hivm.address_space<ub>>, memref<64xf32, "
           "#hivm.address_space<ub>>) outs(%ub : memref<64xf32, #hivm.address_space<ub>>)\n";
    f << "  return\n}\n";
  }
  const Interrupted r = interrupt_after({"run", (pbtest::source_dir() / "pipelines" / "bound_hivm.toml").string(), "--set",
                                         "hivm=" + (tmp / "big.npuir.mlir").string(), "--set", "launch.grid=[1,1,1]",
                                         "--out", (tmp / "out").string()},
                                        std::chrono::milliseconds(1000));
  check_stopped(r);
}

TEST_CASE("Ctrl-C while run extracts one large TTIR function: exit 130 within 2 s") {
  pbtest::TempDir tmp;
  // One kernel of 150,000 element-wise adds on a 64-lane tile (~10 MB).
  {
    std::ofstream f(tmp / "big.ttir.mlir", std::ios::binary);
    f << "module {\n  tt.func public @big(%arg0: !tt.ptr<f32>) {\n"
         "    %0 = tt.make_range {end = 64 : i32, start = 0 : i32} : tensor<64xi32>\n"
         "    %1 = tt.splat %arg0 : !tt.ptr<f32> -> tensor<64x!tt.ptr<f32>>\n"
         "    %2 = tt.addptr %1, %0 : tensor<64x!tt.ptr<f32>>, tensor<64xi32>\n"
         "    %v0 = tt.load %2 : tensor<64x!tt.ptr<f32>>\n";
    for (int i = 1; i <= 150'000; ++i)
      f << "    %v" << i << " = arith.addf %v" << i - 1 << ", %v0 : tensor<64xf32>\n";
    f << "    tt.store %2, %v150000 : tensor<64x!tt.ptr<f32>>\n    tt.return\n  }\n}\n";
  }
  const Interrupted r = interrupt_after({"run", (pbtest::source_dir() / "pipelines" / "bound_dsl.toml").string(), "--set",
                                         "ttir=" + (tmp / "big.ttir.mlir").string(), "--set", "launch.grid=[1,1,1]",
                                         "--out", (tmp / "out").string()},
                                        std::chrono::milliseconds(1000));
  check_stopped(r);
}
