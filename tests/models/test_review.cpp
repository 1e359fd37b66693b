//===- test_review.cpp - the review findings of issue 23, one test each ---===//
//
// Each test pins one soundness finding of the review of plugins/models
// (issue 23) on inputs written here: a program document or IR written by
// hand, the 910B3 profile. Every test failed on the code before its fix;
// the commit that added it says how. Golden numbers are derived by hand in
// the comment next to each check (910B3: 1.8 GHz, 20 AIC, 40 AIV; paths in
// B/cycle: GM->UB 128, GM->L1 256, L0C->GM 128, L1->GM 128).
//
//===----------------------------------------------------------------------===//
#include <doctest/doctest.h>

#include "combine.hpp"
#include "hivm_view.hpp"
#include "models_test_util.hpp"
#include "sweep.hpp"
#include "terms.hpp"

namespace m = pb::models;
using modelstest::json;

namespace {

const m::Rates &rates() {
  static const m::Rates kRates = m::Rates::from_profile(modelstest::profile("ascend_910b3"), "ascend_910b3");
  return kRates;
}

const m::ComponentValue *find(const m::Term &t, const std::string &core, const std::string &component) {
  for (const m::ComponentValue &cv : t.per_component)
    if (cv.core == core && cv.component == component) return &cv;
  return nullptr;
}

/// A cube-only kernel (one AIC function, no AIV) of 40 blocks: per block one
/// nd2nz of 65,536 B GM -> L1 (MTE2) and one fixpipe of 32,768 B L0C -> GM.
json cube_only_program() {
  return json::parse(R"({
    "schema": "perfbound.hivm_program/1",
    "source": { "origin": "cube_only.npuir.mlir" },
    "blocks": { "value": 40 },
    "functions": [ { "index": 0, "name": "@cube_only", "core": "aic", "instances_per_block": 1,
                     "args": [ { "name": "%arg0", "type": "i64", "role": "ffts_base_address", "triton_index": null, "value": null },
                               { "name": "%arg1", "type": "memref<?xf16, #hivm.address_space<gm>>", "role": "pointer", "triton_index": 0, "value": null },
                               { "name": "%arg2", "type": "memref<?xf32, #hivm.address_space<gm>>", "role": "pointer", "triton_index": 1, "value": null } ] } ],
    "ops": [
      { "id": 0, "function": 0, "op": "hivm.hir.nd2nz", "line": 10, "class": "dma", "core": "aic", "pipes": ["MTE2"],
        "count": { "value": 1, "min": 1, "max": 1, "exact": true },
        "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "bytes": 65536, "src": "gm", "dst": "cbuf", "path": "gm_to_cbuf", "packet_bytes": 256 },
        "reads": [ { "kind": "arg", "space": "gm", "id": 1, "bytes": null } ],
        "block_min": { "count": 1, "bytes": 65536, "issued_instructions": 1 },
        "block": { "count": 1, "bytes": 65536, "issued_instructions": 1 },
        "grid": { "count": 40, "bytes": 2621440, "issued_instructions": 40 }, "grid_reasons": {} },
      { "id": 1, "function": 0, "op": "hivm.hir.fixpipe", "line": 12, "class": "dma", "core": "aic", "pipes": ["FIX"],
        "count": { "value": 1, "min": 1, "max": 1, "exact": true },
        "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "bytes": 32768, "src": "cc", "dst": "gm", "path": "cc_to_gm", "packet_bytes": 512 },
        "writes": [ { "kind": "arg", "space": "gm", "id": 2, "bytes": null } ],
        "block_min": { "count": 1, "bytes": 32768, "issued_instructions": 1 },
        "block": { "count": 1, "bytes": 32768, "issued_instructions": 1 },
        "grid": { "count": 40, "bytes": 1310720, "issued_instructions": 40 }, "grid_reasons": {} }
    ],
    "loops": [], "fallbacks": [], "sync": { "barriers": [], "component_edges": [] }
  })");
}

}  // namespace

//===----------------------------------------------------------------------===//
// Review item 5: a cube-only kernel moves GM bytes over the AIC's paths
//===----------------------------------------------------------------------===//

TEST_CASE("review 5: a cube-only kernel reads GM over the AIC's MTE2 and writes through FIX and L1 -> GM") {
  m::HivmView view = m::HivmView::from_json(cube_only_program(), "cube_only.json");
  REQUIRE_FALSE(view.aiv.present);
  // 40 blocks on 20 AICs: 2 waves, occupancy 1.
  m::Term core = m::component_floor_hivm(view, rates(), m::TermOptions{});
  const m::ComponentValue *mte2 = find(core, "aic", "mte2");
  REQUIRE(mte2 != nullptr);
  // aic.mte2: 2 waves x 65,536 B at GM->L1 256 B/cycle x 1.8 GHz = 460.8 GB/s:
  // 131,072 / 460.8e9 = 284.444 ns.
  CHECK(*mte2->value.seconds == doctest::Approx(131072 / 460.8e9).epsilon(1e-9));

  // The grid floor's GM read bytes move at the same per-block rate: the AIC
  // reads GM -> L1 at 256 B/cycle, not the AIV's GM -> UB 128 B/cycle (which
  // made it 568.9 ns, twice its own MTE2 component).
  m::Term grid = m::grid_floor_hivm(view, rates(), m::TermOptions{});
  const m::ComponentValue *read = find(grid, "aic", "mte2");
  REQUIRE(read != nullptr);
  CHECK(*read->value.seconds == doctest::Approx(131072 / 460.8e9).epsilon(1e-9));
  CHECK(*read->strict_value.seconds == doctest::Approx(131072 / 460.8e9).epsilon(1e-9));
  // GM writes: 2 waves x 32,768 B through FIX L0C->GM (128 B/cycle) plus
  // MTE3 L1->GM (128 B/cycle) = 460.8 GB/s per block: 65,536 / 460.8e9.
  const m::ComponentValue *write = find(grid, "aic", "mte3");
  REQUIRE(write != nullptr);
  CHECK(*write->value.seconds == doctest::Approx(65536 / 460.8e9).epsilon(1e-9));

  // The memory term's path floor over min(40, 20) = 20 active blocks, per
  // direction (review item 8): reads 2,621,440 B at GM->L1 460.8 GB/s per
  // block = 284.444 ns; writes 1,310,720 B at FIX + L1->GM 460.8 GB/s =
  // 142.222 ns. (The AIV ceilings, 128 + 128 B/cycle for both directions
  // together, gave 3,932,160 / (20 x 460.8e9) = 426.667 ns.)
  m::TermOptions warm;
  warm.cache = "warm";
  m::Term memory = m::memory_hivm(view, rates(), warm);
  REQUIRE(memory.strict_value.seconds);
  CHECK(*memory.strict_value.seconds == doctest::Approx(2621440 / (20 * 460.8e9)).epsilon(1e-9));
}

TEST_CASE("review 5: a mix block's write ceiling includes the AIC's L1 -> GM path") {
  // The same kernel as a mix kernel (an AIV function beside it, 2 AIVs per
  // AIC): the block writes through FIX (128) + L1->GM (128) + 2 x UB->GM
  // (128) = 512 B/cycle = 921.6 GB/s; the L1->GM path was left out (768 GB/s).
  json doc = cube_only_program();
  doc["functions"].push_back(json::parse(
      R"({ "index": 1, "name": "@cube_only_mix_aiv", "core": "aiv", "instances_per_block": 2, "args": [] })"));
  m::HivmView view = m::HivmView::from_json(doc, "mix.json");
  REQUIRE(view.mix());
  m::Term grid = m::grid_floor_hivm(view, rates(), m::TermOptions{});
  const m::ComponentValue *write = find(grid, "", "mte3");
  REQUIRE(write != nullptr);
  // 2 waves x 32,768 B / 921.6e9 = 71.111 ns.
  CHECK(*write->value.seconds == doctest::Approx(65536 / 921.6e9).epsilon(1e-9));
  m::Schedule s = m::hivm_schedule(view, rates());
  CHECK(m::block_gm_rate(rates(), s, true).value->value() == doctest::Approx(921.6e9));
  // Reads: GM->L1 256 + 2 x GM->UB 128 = 512 B/cycle = 921.6 GB/s.
  CHECK(m::block_gm_rate(rates(), s, false).value->value() == doctest::Approx(921.6e9));
}

//===----------------------------------------------------------------------===//
// Review item 1: the cold-cache floor counts an argument's bytes once
//===----------------------------------------------------------------------===//

namespace {

std::string data(const std::string &name) { return (pbtest::test_source_dir() / "models" / "data" / name).string(); }

const json &memory_work(const json &report, const std::string &tier) {
  const json &t = modelstest::term(report, "memory", tier);
  REQUIRE(t["per_component"].size() == 1);
  return t["per_component"][0]["work"];
}

const json *argument(const json &work, int arg, const std::string &direction) {
  for (const json &row : work["by_argument"])
    if (row["arg"] == arg && row["direction"] == direction) return &row;
  return nullptr;
}

}  // namespace

TEST_CASE("review 1: RMSNorm's weight, read by every program, crosses a cold HBM once") {
  // tests/models/data/row_scale.*: 65,536 programs, each reads its 8 KiB row
  // of x and the same 8 KiB weight w and writes its 8 KiB row of out.
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound.toml"), {"--set", "ttir=" + data("row_scale.ttir.mlir"), "--set",
                                           "hivm=" + data("row_scale.npuir.mlir"), "--set", "launch={grid=[65536,1,1]}"});
  const json &work = memory_work(run.report, "hivm");
  // DMA: 3 x 65,536 x 8,192 B = 1,610,612,736 B (1.5 GiB), of which 512 MiB
  // re-read w. Unique (DSL tier): x 536,870,912 + w 8,192 + out 536,870,912
  // = 1,073,750,016 B.
  CHECK(work["bytes"].get<double>() == doctest::Approx(1610612736.0));
  CHECK(work["cold_bytes"].get<double>() == doctest::Approx(1073750016.0));
  const json *w = argument(work, 1, "read");
  REQUIRE(w != nullptr);
  CHECK((*w)["dma_bytes"].get<double>() == doctest::Approx(536870912.0));
  CHECK((*w)["cold_bytes"].get<double>() == doctest::Approx(8192.0));
  const json *x = argument(work, 0, "read");
  REQUIRE(x != nullptr);
  CHECK((*x)["cold_bytes"].get<double>() == doctest::Approx(536870912.0));
  // Cold floor: every transfer is 8 KiB, eta(8192) = 0.761016782 x 1.8e12 =
  // 1.36983021e12 B/s (above the 1.16725e12 copy floor):
  // 1,073,750,016 / 1.36983021e12 = 783.86 us (it was 1,610,612,736 B ->
  // 1,175.77 us at this HBM figure, 1,322.74 us at the former 1.6 TB/s:
  // above the 0.92 ms the unique bytes take at the fastest copy rate
  // measured, 1.167 TB/s).
  const json &mem = modelstest::term(run.report, "memory", "hivm");
  CHECK(modelstest::seconds(mem["value"]) == doctest::Approx(1073750016.0 / (0.761016782 * 1.8e12)).epsilon(1e-6));
  CHECK(modelstest::seconds(mem["value"]) < 1073750016.0 / 1.16725225e12);
}

TEST_CASE("review 1: without the DSL tier's unique bytes the cold floor counts no argument's DMA bytes") {
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound_hivm.toml"),
      {"--set", "hivm=" + data("row_scale.npuir.mlir"), "--set", "launch={grid=[65536,1,1]}"});
  const json &work = memory_work(run.report, "hivm");
  CHECK(work["cold_bytes"].get<double>() == 0);
  const json &mem = modelstest::term(run.report, "memory", "hivm");
  bool said = false;
  for (const json &n : mem["not_counted"])
    said = said || (n["what"].get<std::string>().find("reads from argument 1") != std::string::npos &&
                    n["reason"].get<std::string>().find("'unique' port") != std::string::npos);
  CHECK(said);
  // What remains is the strict path floor of the reads: 1,073,741,824 B over
  // 40 active AIVs at GM->UB 230.4 GB/s each: 116.508 us (the writes, 58.254
  // us at the argued UB->GM width, are below it).
  CHECK(modelstest::seconds(mem["value"]) == doctest::Approx(1073741824.0 / (40 * 230.4e9)).epsilon(1e-6));
  CHECK(mem["assurance"] == "strict");
}

TEST_CASE("review 1: a tiled matmul's re-read panels cross a cold HBM once; the bound is the cube's") {
  // 4096^3 fp16, 128 x 128 tiles, K step 64: blockptr_matmul.ttir (DSL tier)
  // and tests/models/data/tile_matmul.npuir.mlir (an AIC-only HIVM of it).
  std::string ttir = (pbtest::test_source_dir() / "extract_ttir" / "kernels" / "blockptr_matmul.ttir").string();
  modelstest::RunOut run = modelstest::run_pipeline(
      modelstest::pipeline("bound.toml"),
      {"--set", "ttir=" + ttir, "--set", "hivm=" + data("tile_matmul.npuir.mlir"), "--set",
       "launch={grid=[32,32,1],args={\"3\"=4096,\"4\"=4096,\"5\"=4096,\"6\"=4096,\"7\"=4096,\"8\"=4096}}"});
  const json &work = memory_work(run.report, "hivm");
  // DMA: 1,024 blocks x 64 K steps x (16 KiB of A + 16 KiB of B) =
  // 2,147,483,648 B read, 1,024 x 32 KiB = 33,554,432 B written. Unique: A
  // and B 33,554,432 B each, C 33,554,432 B.
  CHECK(work["read_bytes"].get<double>() == doctest::Approx(2147483648.0));
  CHECK(work["write_bytes"].get<double>() == doctest::Approx(33554432.0));
  CHECK(work["cold_bytes"].get<double>() == doctest::Approx(100663296.0));
  // Cold floor: reads in 16 KiB transfers at eta 0.944723874 x 1.8e12 =
  // 1.70050297e12 B/s, writes in 32 KiB at 0.989358406 x 1.8e12 =
  // 1.78084513e12: 67,108,864 / 1.70050297e12 + 33,554,432 / 1.78084513e12 =
  // 39.464 + 18.842 = 58.306 us (it was 2,147,483,648 / 1.70050297e12 +
  // 18.842 = 1,281.7 us; 1,441.9 us at the former 1.6 TB/s).
  const json &mem = modelstest::term(run.report, "memory", "hivm");
  double cold = 67108864.0 / (0.944723874 * 1.8e12) + 33554432.0 / (0.989358406 * 1.8e12);
  CHECK(work["cold_hbm_floor_s"].get<double>() == doctest::Approx(cold).epsilon(1e-6));
  // The term itself is the strict path floor, above the cold floor: every
  // DMA byte crosses its AIC's GM -> L1 path (460.8 GB/s) whether the L2 or
  // HBM serves it, 2,147,483,648 / (20 x 460.8e9) = 233.017 us.
  CHECK(modelstest::seconds(mem["value"]) == doctest::Approx(2147483648.0 / (20 * 460.8e9)).epsilon(1e-6));
  CHECK(mem["assurance"] == "strict");
  // The bound is now the cube: 2 x 128 x 128 x 4096 = 134,217,728 FLOP per
  // block, ceil(1024 / 20) = 52 waves at 8192 x 1.8e9 = 14.7456 TFLOP/s:
  // 473.3 us.
  CHECK(run.report["bound"]["binding_component"] == "cube");
  CHECK(modelstest::seconds(run.report["bound"]) == doctest::Approx(52 * 134217728.0 / 14.7456e12).epsilon(1e-6));
}

//===----------------------------------------------------------------------===//
// Review item 6: cache = cold never lets a given fact into the strict value
//===----------------------------------------------------------------------===//

TEST_CASE("review 6: with cache = cold, bytes counted only under a user's fact stay out of the strict value") {
  // 48 blocks of one AIV function; one DMA (256 B from argument 0) in a loop
  // bounded by loaded data: no strict count; the fact trips."40" = {min = 64}
  // gives 64 executions per block (16,384 B per block, 786,432 B per grid).
  json doc = json::parse(R"({
    "schema": "perfbound.hivm_program/1",
    "source": { "origin": "given_dma.npuir.mlir" },
    "blocks": { "value": 48 },
    "functions": [ { "index": 0, "name": "@given_dma", "core": "aiv", "instances_per_block": 1,
                     "args": [ { "name": "%arg0", "type": "memref<?xf32, #hivm.address_space<gm>>", "role": "pointer",
                                 "triton_index": 0, "value": null } ] } ],
    "ops": [
      { "id": 0, "function": 0, "op": "hivm.hir.load", "line": 42, "class": "dma", "core": "aiv", "pipes": ["MTE2"],
        "count": { "value": null, "min": 0, "max": null, "exact": false, "unknown_loop": 40,
                   "hint": "give trips.\"40\"", "reason": "the loop at line 40 is bounded by a loaded value" },
        "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "bytes": 256, "src": "gm", "dst": "ub", "path": "gm_to_ub", "packet_bytes": 256 },
        "reads": [ { "kind": "arg", "space": "gm", "id": 0, "bytes": null } ],
        "block": {}, "grid": {}, "grid_reasons": {},
        "given": { "facts": ["trips.\"40\""], "count": { "value": 64, "min": 64, "max": 64, "exact": true },
                   "block_min": { "count": 64, "bytes": 16384, "issued_instructions": 64 },
                   "block": { "bytes": 16384, "issued_instructions": 64 },
                   "grid": { "count": 3072, "bytes": 786432, "issued_instructions": 3072 }, "grid_reasons": {} } }
    ],
    "given_facts": [ { "key": "trips.\"40\"", "fact": { "min": 64 }, "lines": [40], "ops": 1 } ],
    "loops": [], "fallbacks": [], "sync": { "barriers": [], "component_edges": [] }
  })");
  m::HivmView view = m::HivmView::from_json(doc, "given_dma.json");
  REQUIRE(view.transfers.size() == 1);
  CHECK(view.transfers[0].arg == 0);
  // The DSL tier proves 786,432 unique bytes of argument 0 under the same
  // fact, none without it.
  m::TermOptions options;
  options.cache = "cold";
  options.packet_efficiency = "none";
  options.unique = m::UniqueBytes{};
  options.unique->by_arg[{0, false}] = m::UniqueBytes::Figure{"x_ptr", 0.0, 786432.0};
  m::Term memory = m::memory_hivm(view, rates(), options);
  // Cold floor under the fact: 786,432 B at min(40 x 460.8 GB/s, 1.8 TB/s) =
  // 1.8e12 B/s: 436.91 ns, given. Without the fact no byte is counted: the
  // strict value is 0 (it was the same 436.91 ns, labelled strict).
  REQUIRE(memory.value.seconds);
  CHECK(*memory.value.seconds == doctest::Approx(786432 / 1.8e12).epsilon(1e-9));
  REQUIRE(memory.strict_value.seconds);
  CHECK(*memory.strict_value.seconds == 0);
  CHECK(memory.assurance == m::Assurance::Given);
  json term = memory.to_json();
  CHECK(term["sound"] == false);
}

//===----------------------------------------------------------------------===//
// Review item 8: a strict value rests only on figures with a public source
//===----------------------------------------------------------------------===//

TEST_CASE("review 8: the issue rate is argued in every record that carries it") {
  m::HivmView view = m::HivmView::from_json(cube_only_program(), "cube_only.json");
  for (const m::Term &t : {m::issue_floor_hivm(view, rates(), m::TermOptions{})}) {
    json doc = t.to_json();
    bool found = false;
    for (const json &r : doc["rates"])
      if (r["name"] == "instruction issue (per core)") {
        found = true;
        CHECK(r["kind"] == "argued");
      }
    CHECK(found);
  }
}

TEST_CASE("review 8: HF32/TF32 take the fastest floating-point cube figure; an argued fp32 figure is strict at fp16's") {
  // 910B3: fp16 8192 FLOP/cycle (Hot Chips 31, theoretical), fp32 4096
  // (argued: no public figure). HF32 is documented as faster than fp32, with
  // no figure: 8192 x 1.8 GHz = 14.7456 TFLOP/s (it was fp32's 7.3728).
  m::Rate<pb::units::FlopPerSecond> hf32 = rates().cube("hf32");
  REQUIRE(hf32.known());
  CHECK(hf32.value->value() == doctest::Approx(14.7456e12));
  CHECK(hf32.record.note.find("no public hf32 rate") != std::string::npos);
  CHECK(rates().cube("tf32").value->value() == doctest::Approx(14.7456e12));
  m::Rate<pb::units::FlopPerSecond> fp32 = rates().cube("f32");
  CHECK(fp32.value->value() == doctest::Approx(7.3728e12));
  CHECK(fp32.record.kind == m::RateKind::Argued);
  REQUIRE(fp32.strict());
  CHECK(fp32.strict()->value() == doctest::Approx(14.7456e12));
  // The HBM figure is the public 1.8 TB/s (it was the 1.6 TB/s model prior).
  CHECK(rates().hbm().value->value() == doctest::Approx(1.8e12));
  CHECK(rates().hbm().record.kind == m::RateKind::Theoretical);
}

TEST_CASE("review 8: UB -> GM has no public width: an AIV's writes are argued, its reads strict") {
  // 40 AIV blocks, each loading 32,768 B GM -> UB and storing 65,536 B
  // UB -> GM (argument 1).
  json doc = json::parse(R"({
    "schema": "perfbound.hivm_program/1",
    "source": { "origin": "store_heavy.npuir.mlir" },
    "blocks": { "value": 40 },
    "functions": [ { "index": 0, "name": "@store_heavy", "core": "aiv", "instances_per_block": 1, "args": [] } ],
    "ops": [
      { "id": 0, "function": 0, "op": "hivm.hir.load", "line": 10, "class": "dma", "core": "aiv", "pipes": ["MTE2"],
        "count": { "value": 1, "min": 1, "max": 1, "exact": true }, "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "bytes": 32768, "src": "gm", "dst": "ub", "path": "gm_to_ub", "packet_bytes": 32768 },
        "reads": [ { "kind": "arg", "space": "gm", "bytes": null } ],
        "block_min": { "count": 1, "bytes": 32768, "issued_instructions": 1 },
        "block": { "count": 1, "bytes": 32768, "issued_instructions": 1 },
        "grid": { "count": 40, "bytes": 1310720, "issued_instructions": 40 }, "grid_reasons": {} },
      { "id": 1, "function": 0, "op": "hivm.hir.store", "line": 12, "class": "dma", "core": "aiv", "pipes": ["MTE3"],
        "count": { "value": 1, "min": 1, "max": 1, "exact": true }, "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "bytes": 65536, "src": "ub", "dst": "gm", "path": "ub_to_gm", "packet_bytes": 65536 },
        "writes": [ { "kind": "arg", "space": "gm", "bytes": null } ],
        "block_min": { "count": 1, "bytes": 65536, "issued_instructions": 1 },
        "block": { "count": 1, "bytes": 65536, "issued_instructions": 1 },
        "grid": { "count": 40, "bytes": 2621440, "issued_instructions": 40 }, "grid_reasons": {} }
    ],
    "loops": [], "fallbacks": [], "sync": { "barriers": [], "component_edges": [] }
  })");
  m::HivmView view = m::HivmView::from_json(doc, "store_heavy.json");
  m::Term core = m::component_floor_hivm(view, rates(), m::TermOptions{});
  // aiv.mte3: 1 wave x 65,536 B at the argued 128 B/cycle (230.4 GB/s) =
  // 284.444 ns, argued; strict 0 (it was strict).
  const m::ComponentValue *mte3 = find(core, "aiv", "mte3");
  REQUIRE(mte3 != nullptr);
  CHECK(*mte3->value.seconds == doctest::Approx(65536 / 230.4e9).epsilon(1e-9));
  CHECK(*mte3->strict_value.seconds == 0);
  CHECK(mte3->assurance == m::Assurance::Argued);
  // aiv.mte2: 32,768 B at GM->UB 230.4 GB/s = 142.222 ns, strict.
  const m::ComponentValue *mte2 = find(core, "aiv", "mte2");
  REQUIRE(mte2 != nullptr);
  CHECK(*mte2->strict_value.seconds == doctest::Approx(32768 / 230.4e9).epsilon(1e-9));
  CHECK(mte2->assurance == m::Assurance::Strict);
  // Memory path floor, per direction over 40 active AIVs: reads 1,310,720 B
  // / (40 x 230.4e9) = 142.222 ns (strict); writes 2,621,440 B / (40 x
  // 230.4e9) = 284.444 ns (argued). It was (1,310,720 + 2,621,440) / (40 x
  // 460.8e9) = 213.333 ns, labelled strict.
  m::TermOptions warm;
  warm.cache = "warm";
  m::Term memory = m::memory_hivm(view, rates(), warm);
  CHECK(*memory.strict_value.seconds == doctest::Approx(1310720 / (40 * 230.4e9)).epsilon(1e-9));
  CHECK(*memory.value.seconds == doctest::Approx(2621440 / (40 * 230.4e9)).epsilon(1e-9));
  CHECK(memory.assurance == m::Assurance::Argued);
}

//===----------------------------------------------------------------------===//
// Review item 10: safe pruning uses only what the measurement's conditions make sound
//===----------------------------------------------------------------------===//

TEST_CASE("review 10: a measured threshold prunes on the strict bound, with the cold floor only for a cold L2") {
  json facts = modelstest::run_pipeline(modelstest::pipeline("bound_dsl.toml"),
                                        {"--set", "ttir=" + modelstest::example("vector_add.ttir.mlir"), "--set",
                                         "launch={grid=[8192,1,1],args={n_elements=16777216}}"})
                   .facts;
  m::SweepModel model = m::SweepModel::build(facts, rates(), "facts");
  std::vector<m::SweepConfig> configs{model.config_from_json(json::object(), "base")};
  m::SweepResult r = model.evaluate(configs[0]);
  // The bound: the cold-cache HBM floor, 201,326,592 B / 1.8e12 = 111.848 us
  // (argued: the L2 state is not stated). The strict bound: the GM reads,
  // 205 waves x 16,384 B per program at GM->UB 230.4 GB/s = 14.5778 us.
  CHECK(r.bound == doctest::Approx(201326592 / 1.8e12).epsilon(1e-6));
  CHECK(r.strict_bound == doctest::Approx(205 * 16384 / 230.4e9).epsilon(1e-6));
  CHECK(std::string(m::sweep_term_name(r.strict_binding)) == "grid_floor:gm_read");
  // A measurement of 50 us (a warm L2 can serve the 192 MiB working set) is
  // no reason to prune it: the strict bound is below it (it was pruned on
  // the argued cold floor).
  json warm = model.run(configs, 50e-6, 1.5);
  CHECK(warm["configs"][0]["pruned"] == false);
  CHECK(warm["configs"][0]["strict"]["value"].get<double>() == doctest::Approx(205 * 16384 / 230.4e9).epsilon(1e-6));
  CHECK(warm["threshold"]["rule"].get<std::string>().find("cold-cache HBM floor is left out") != std::string::npos);
  // A measurement known to start cold: every unique byte crosses HBM at the
  // strict 1.8 TB/s (the UB->GM path is argued, so the strict cap is the
  // chip's): 111.848 us > 50 us, pruned by the memory term.
  json cold = model.run(configs, 50e-6, 1.5, "cold");
  CHECK(cold["configs"][0]["pruned"] == true);
  CHECK(cold["configs"][0]["pruned_by"] == "memory");
  CHECK(cold["configs"][0]["strict"]["value"].get<double>() == doctest::Approx(201326592 / 1.8e12).epsilon(1e-6));
}

//===----------------------------------------------------------------------===//
// Review item 11: findings
//===----------------------------------------------------------------------===//

namespace {

/// 41 AIV blocks (40 AIVs: 2 waves, the second with one block), each
/// loading 1 MiB of argument 0 once.
json tail_program() {
  return json::parse(R"({
    "schema": "perfbound.hivm_program/1",
    "source": { "origin": "tail.npuir.mlir" },
    "blocks": { "value": 41 },
    "functions": [ { "index": 0, "name": "@tail", "core": "aiv", "instances_per_block": 1,
                     "args": [ { "name": "%arg0", "type": "memref<?xf32, #hivm.address_space<gm>>", "role": "pointer",
                                 "triton_index": 0, "value": null } ] } ],
    "ops": [
      { "id": 0, "function": 0, "op": "hivm.hir.load", "line": 10, "class": "dma", "core": "aiv", "pipes": ["MTE2"],
        "count": { "value": 1, "min": 1, "max": 1, "exact": true }, "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "bytes": 1048576, "src": "gm", "dst": "ub", "path": "gm_to_ub", "packet_bytes": 65536 },
        "reads": [ { "kind": "arg", "space": "gm", "id": 0, "bytes": null } ],
        "block_min": { "count": 1, "bytes": 1048576, "issued_instructions": 1 },
        "block": { "count": 1, "bytes": 1048576, "issued_instructions": 1 },
        "grid": { "count": 41, "bytes": 42991616, "issued_instructions": 41 }, "grid_reasons": {} }
    ],
    "loops": [], "fallbacks": [], "sync": { "barriers": [], "component_edges": [] }
  })");
}

json combined(const std::vector<m::Term> &terms, const m::HivmView &view) {
  m::CombineInputs in;
  for (const m::Term &t : terms) in.term_documents.push_back(t.to_json());
  in.terms = terms;
  in.hivm = &view;
  in.rates = &rates();
  return m::combine(std::move(in), m::CombineOptions{});
}

}  // namespace

TEST_CASE("review 11: the grid gain is what filling the tail can save, nothing when a wave-free floor binds") {
  m::HivmView view = m::HivmView::from_json(tail_program(), "tail.json");
  m::TermOptions options;
  options.packet_efficiency = "none";
  options.unique = m::UniqueBytes{};
  options.unique->by_arg[{0, false}] = m::UniqueBytes::Figure{"x", 42991616.0, 42991616.0};
  // HBM binds: 42,991,616 unique bytes at min(40 x 460.8 GB/s, 1.8 TB/s) =
  // 23.884 us (cold floor, argued); the busiest AIV's MTE2 takes 2 waves x
  // 1 MiB / 230.4 GB/s = 9.102 us, its mean form 41 MiB / (40 x 230.4 GB/s)
  // = 4.665 us. Spreading the blocks evenly leaves the HBM floor: no gain
  // (the old rule, bound x (1 - 41/80), claimed 11.64 us, labelled strict).
  json report = combined({m::component_floor_hivm(view, rates(), options), m::memory_hivm(view, rates(), options)}, view);
  REQUIRE(report["bound"]["binding_term"] == "memory");
  CHECK(modelstest::seconds(report["bound"]) == doctest::Approx(42991616 / 1.8e12).epsilon(1e-9));
  const json &grid = report["attribution"]["gaps"]["grid"];
  CHECK(grid["value"].get<double>() == 0);
  CHECK(grid["basis"].get<std::string>().rfind("estimate", 0) == 0);
  for (const json &f : report["findings"]) CHECK(f["category"] != "grid");

  // Without the memory term the MTE2 waves bind: filling the tail saves
  // 9.102 - 4.665 = 4.437 us = 9.102 x (1 - 41/80).
  json waves = combined({m::component_floor_hivm(view, rates(), options)}, view);
  double bound = 2 * 1048576 / 230.4e9;
  CHECK(modelstest::seconds(waves["bound"]) == doctest::Approx(bound).epsilon(1e-9));
  CHECK(waves["attribution"]["gaps"]["grid"]["value"].get<double>() ==
        doctest::Approx(bound - 42991616 / (40 * 230.4e9)).epsilon(1e-9));
  bool found = false;
  for (const json &f : waves["findings"]) found = found || f["category"] == "grid";
  CHECK(found);
}

TEST_CASE("review 11: a bound the DSL tier sets still warns when the HIVM tier left work out") {
  // One AIV function of 48 blocks: a vector op (counted), a DMA in a loop
  // bounded by loaded data (not counted: give trips."40"), scalar loads
  // (counted): 2 of the 3 ops.
  json doc = json::parse(R"({
    "schema": "perfbound.hivm_program/1",
    "source": { "origin": "partial.npuir.mlir" },
    "blocks": { "value": 48 },
    "functions": [ { "index": 0, "name": "@partial", "core": "aiv", "instances_per_block": 1, "args": [] } ],
    "ops": [
      { "id": 0, "op": "hivm.hir.vadd", "line": 21, "class": "vector_elementwise", "core": "aiv", "pipes": ["V"],
        "count": { "value": 2, "min": 2, "max": 2, "exact": true }, "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "repeats": 8, "elements": 512, "dtype": "f32" },
        "block_min": { "count": 2, "repeats": 16, "issued_instructions": 2 },
        "block": { "repeats": 16, "issued_instructions": 2 },
        "grid": { "count": 96, "repeats": 768, "issued_instructions": 96 }, "grid_reasons": {} },
      { "id": 1, "op": "hivm.hir.load", "line": 42, "class": "dma", "core": "aiv", "pipes": ["MTE2"],
        "count": { "value": null, "min": 0, "max": null, "exact": false, "unknown_loop": 40,
                   "hint": "give trips.\"40\"", "reason": "the loop at line 40 is bounded by a loaded value" },
        "instructions": { "scalar": 0, "issued": 1 },
        "exec": { "bytes": 256, "src": "gm", "dst": "ub", "path": "gm_to_ub", "packet_bytes": 256 },
        "reads": [ { "kind": "arg", "space": "gm" } ],
        "block": {}, "grid": {}, "grid_reasons": {} },
      { "id": 2, "op": "memref.load", "line": 50, "class": "scalar_memory", "core": "aiv", "pipes": ["S"],
        "scalar_kind": "gm_load", "count": { "value": 10, "min": 10, "max": 10, "exact": true },
        "instructions": { "scalar": 1, "issued": 1 },
        "block_min": { "count": 10, "scalar_instructions": 10, "issued_instructions": 10 },
        "block": { "count": 10, "scalar_instructions": 10, "issued_instructions": 10 },
        "grid": { "count": 480, "scalar_instructions": 480, "issued_instructions": 480 }, "grid_reasons": {} }
    ],
    "loops": [], "fallbacks": [], "sync": { "barriers": [], "component_edges": [] }
  })");
  m::HivmView view = m::HivmView::from_json(doc, "partial.json");
  // A DSL-tier floor of 1 ms, far above anything the HIVM tier counts.
  m::Term dsl;
  dsl.name = "grid_floor";
  dsl.tier = "dsl";
  dsl.role = "floor";
  m::ComponentValue cv;
  cv.core = "aiv";
  cv.component = "vector";
  cv.value = m::Time::known(1e-3);
  cv.strict_value = cv.value;
  dsl.per_component.push_back(cv);
  dsl.settle();
  json report = combined({dsl, m::component_floor_hivm(view, rates(), m::TermOptions{})}, view);
  REQUIRE(report["bound"]["tier"] == "dsl");
  // It used to say nothing: the warning came only when the HIVM tier bound.
  REQUIRE(report["coverage"]["warning"].is_string());
  std::string warning = report["coverage"]["warning"].get<std::string>();
  CHECK(warning.find("counts 2 of 3 ops") != std::string::npos);
  CHECK(warning.find("loop at line 40") != std::string::npos);
  REQUIRE_FALSE(report["findings"].empty());
  CHECK(report["findings"][0]["category"] == "coverage");
}
