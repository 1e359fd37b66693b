//===- fuzz_ttir_nesting.cpp - libFuzzer target: deep and long TTIR --------===//
//
// The input is not TTIR but a program that writes TTIR: each byte is one
// step of a generator that always produces a well-formed kernel, so that the
// fuzzer explores what valid kernels can do to the analysis rather than
// where the parser stops. The steps open scf.for loops that carry a pointer
// tensor and an i32, open scf.if ops that yield new ones, advance the
// pointer, chain integer ops, reshape index tensors, load and store, and
// close the innermost construct; nesting and chains grow as deep as the
// input is long (issue 24: a carried pointer advanced in one branch of nested
// scf.if yields made the analysis recurse without end). The kernel then goes
// through what the plugin runs: analyze_ttir, select_kernel and
// build_dsl_facts for a small launch (small budgets: speed, not coverage of
// the budgets). Exceptions other than the node's InputError are findings.
//
//===----------------------------------------------------------------------===//
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_target.hpp"

#include "dsl_facts.hpp"
#include "ttir_analysis.hpp"

namespace {

/// The members of perfbound.profile/1 the DSL facts read (910B3 values).
const pb::sdk::json &profile() {
  static const pb::sdk::json doc = pb::sdk::json::parse(R"({"schema":"perfbound.profile/1","name":"fuzz",
 "cores":{"aic":{"value":20,"unit":"1","source":"fuzz"},"aiv":{"value":40,"unit":"1","source":"fuzz"}},
 "buffers":{"ub":{"value":196608,"unit":"B","source":"fuzz"},"l1":{"value":524288,"unit":"B","source":"fuzz"},
  "l0a":{"value":65536,"unit":"B","source":"fuzz"},"l0b":{"value":65536,"unit":"B","source":"fuzz"},
  "l0c":{"value":131072,"unit":"B","source":"fuzz"}}})");
  return doc;
}

/// Writes the kernel. Values in scope: the carried pointer tensor `p`
/// (tensor<16x!tt.ptr<f32>>) and integer `k` (i32).
class Writer {
 public:
  std::string kernel(const uint8_t *data, size_t size) {
    out_ =
        "module {\n  tt.func public @nest(%x: !tt.ptr<f32>, %y: !tt.ptr<f32>, %n: i32, %m: i32) {\n"
        "    %c0 = arith.constant 0 : i32\n    %c1 = arith.constant 1 : i32\n"
        "    %r = tt.make_range {end = 16 : i32, start = 0 : i32} : tensor<16xi32>\n"
        "    %xs = tt.splat %x : !tt.ptr<f32> -> tensor<16x!tt.ptr<f32>>\n"
        "    %p0 = tt.addptr %xs, %r : tensor<16x!tt.ptr<f32>>, tensor<16xi32>\n";
    p_ = "%p0";
    k_ = "%n";
    for (size_t i = 0; i < size; ++i) step(data[i]);
    while (!open_.empty()) close();
    out_ += "    tt.store " + p_ + ", " + load() + " : " + kPtr + "\n    tt.return\n  }\n}\n";
    return out_;
  }

 private:
  static constexpr const char *kPtr = "tensor<16x!tt.ptr<f32>>";
  struct Open {
    bool is_if;
    std::string name;        // the op's result group
    std::string p, k;        // values before the op (the else branch yields them)
  };

  std::string fresh() { return "%v" + std::to_string(next_++); }
  std::string indent() const { return std::string(4 + 2 * open_.size(), ' '); }

  std::string load() {
    std::string v = fresh();
    out_ += indent() + v + " = tt.load " + p_ + " : " + kPtr + "\n";
    return v;
  }

  void step(uint8_t byte) {
    const int arg = byte >> 3;
    switch (byte & 7) {
      case 0: {  // for: carries p and k
        std::string name = fresh();
        std::string iv = fresh();
        std::string pa = fresh();
        std::string ka = fresh();
        std::string ub = (arg & 1) != 0 ? "%m" : k_;
        out_ += indent() + name + ":2 = scf.for " + iv + " = %c0 to " + ub + " step %c1 iter_args(" + pa + " = " + p_ +
                ", " + ka + " = " + k_ + ") -> (" + kPtr + ", i32) : i32 {\n";
        open_.push_back({false, name, p_, k_});
        p_ = pa;
        k_ = (arg & 2) != 0 ? iv : ka;  // the counter, or the carried integer
        break;
      }
      case 1: {  // if: yields (p, k) from the then branch, the old ones from else
        std::string name = fresh();
        std::string c = fresh();
        // The condition reads k, or only the arguments (invariant in every loop).
        out_ += indent() + c + " = arith.cmpi " + ((arg & 1) != 0 ? "sgt" : "eq") + ", " +
                ((arg & 2) != 0 ? "%n" : k_) + ", %m : i32\n";
        out_ += indent() + name + ":2 = scf.if " + c + " -> (" + kPtr + ", i32) {\n";
        open_.push_back({true, name, p_, k_});
        break;
      }
      case 2: {  // advance the pointer by a splat of k or a constant
        std::string off = fresh();
        std::string q = fresh();
        if ((arg & 1) != 0)
          out_ += indent() + off + " = tt.splat " + k_ + " : i32 -> tensor<16xi32>\n";
        else
          out_ += indent() + off + " = arith.constant dense<" + std::to_string(arg) + "> : tensor<16xi32>\n";
        out_ += indent() + q + " = tt.addptr " + p_ + ", " + off + " : " + kPtr + ", tensor<16xi32>\n";
        p_ = q;
        break;
      }
      case 3: {  // integer chain on k
        static const char *const kOps[] = {"addi", "muli", "subi", "divsi", "remsi", "maxsi", "minsi", "andi"};
        std::string v = fresh();
        std::string rhs = (arg & 16) != 0 ? "%m" : "%c1";
        out_ += indent() + v + " = arith." + kOps[arg & 7] + " " + k_ + ", " + rhs + " : i32\n";
        k_ = v;
        break;
      }
      case 4: {  // select between the pointer and an advanced copy
        std::string c = fresh();
        std::string off = fresh();
        std::string q = fresh();
        std::string s = fresh();
        out_ += indent() + c + " = arith.cmpi slt, " + k_ + ", %m : i32\n";
        out_ += indent() + off + " = tt.splat " + k_ + " : i32 -> tensor<16xi32>\n";
        out_ += indent() + q + " = tt.addptr " + p_ + ", " + off + " : " + kPtr + ", tensor<16xi32>\n";
        out_ += indent() + s + " = arith.select " + c + ", " + q + ", " + p_ + " : " + kPtr + "\n";
        p_ = s;
        break;
      }
      case 5: {  // an index tensor through expand_dims / reshape / trans, added to p
        std::string e = fresh();
        std::string t = fresh();
        std::string f = fresh();
        std::string q = fresh();
        out_ += indent() + e + " = tt.expand_dims %r {axis = " + std::to_string(arg & 1) + " : i32} : tensor<16xi32> -> " +
                ((arg & 1) != 0 ? "tensor<16x1xi32>" : "tensor<1x16xi32>") + "\n";
        out_ += indent() + t + " = tt.reshape " + e + " : " + ((arg & 1) != 0 ? "tensor<16x1xi32>" : "tensor<1x16xi32>") +
                " -> tensor<4x4xi32>\n";
        out_ += indent() + f + " = tt.reshape " + t + " : tensor<4x4xi32> -> tensor<16xi32>\n";
        out_ += indent() + q + " = tt.addptr " + p_ + ", " + f + " : " + kPtr + ", tensor<16xi32>\n";
        p_ = q;
        break;
      }
      case 6: {  // load at p, store at p
        std::string v = load();
        out_ += indent() + "tt.store " + p_ + ", " + v + " : " + kPtr + "\n";
        break;
      }
      default:  // close the innermost construct
        if (!open_.empty()) close();
        break;
    }
  }

  void close() {
    Open o = open_.back();
    open_.pop_back();
    std::string in = std::string(4 + 2 * (open_.size() + 1), ' ');
    std::string at = std::string(4 + 2 * open_.size(), ' ');
    out_ += in + "scf.yield " + p_ + ", " + k_ + " : " + kPtr + ", i32\n";
    if (o.is_if) out_ += at + "} else {\n" + in + "scf.yield " + o.p + ", " + o.k + " : " + kPtr + ", i32\n";
    out_ += at + "}\n";
    p_ = o.name + "#0";
    k_ = o.name + "#1";
  }

  std::string out_;
  std::string p_, k_;
  std::vector<Open> open_;
  int next_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string text = Writer().kernel(data, size);
  // PERFBOUND_FUZZ_SHOW=1: the kernel written and the front end's verdict on stderr.
  static const bool show = std::getenv("PERFBOUND_FUZZ_SHOW") != nullptr;
  auto module = perfbound::ttir::analyze_ttir(text, "nesting.ttir");
  if (show) std::fprintf(stderr, "%s\n-> %s\n", text.c_str(), module ? "analysed" : module.error().message.c_str());
  if (!module) return 0;  // refused (nesting beyond kMaxTtirNesting), with a line
  try {
    pb::sdk::json launch{{"schema", "perfbound.launch/1"},
                         {"grid", {2, 1, 1}},
                         {"kernel", "nest"},
                         {"args", {{"%arg2", 3}, {"%arg3", 2}}}};
    perfbound::ttir::FactsOptions options;
    options.row_budget = 20000;
    options.program_budget = 16;
    const perfbound::ttir::KernelModel &k = perfbound::ttir::select_kernel(*module, launch);
    (void)perfbound::ttir::build_dsl_facts(*module, k, launch, profile(), options);
  } catch (const pb::sdk::InputError &) {
    // A refusal the node would report (e.g. a kernel refused by MLIR).
  }
  return 0;
}
