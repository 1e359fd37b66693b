//===- generator.cpp - random well-formed TTIR kernels for the oracle -----===//
#include "generator.hpp"

#include <random>
#include <sstream>
#include <vector>

namespace oracletest {

namespace {

class Writer {
 public:
  explicit Writer(std::uint64_t seed) : rng_(seed) {}

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T>
  const T &one_of(const std::vector<T> &v) { return v[static_cast<size_t>(pick(0, static_cast<int>(v.size()) - 1))]; }

  /// Emits `%vN = rhs` at the current indentation; returns %vN.
  std::string let(const std::string &rhs) {
    std::string name = "%v" + std::to_string(next_++);
    line(name + " = " + rhs);
    return name;
  }
  void line(const std::string &text) { body_ << std::string(static_cast<size_t>(indent_), ' ') << text << "\n"; }
  void in() { indent_ += 2; }
  void out() { indent_ -= 2; }
  std::string fresh() { return "%v" + std::to_string(next_++); }
  [[nodiscard]] std::string body() const { return body_.str(); }

 private:
  std::mt19937_64 rng_;
  std::ostringstream body_;
  int next_ = 0;
  int indent_ = 4;
};

std::string float_text(double v) {
  std::ostringstream os;
  os.setf(std::ios::scientific);
  os.precision(6);
  os << v;
  return os.str();
}

}  // namespace

Generated generate(std::uint64_t seed) {
  Writer w(seed);
  Generated g;
  const bool two_d = w.coin(0.35);
  const std::string T = w.coin(0.6) ? "f32" : "f16";
  const int inputs = w.pick(1, 3);
  const bool reduce = w.coin(0.3);
  const bool for_loop = w.coin(0.35);
  const bool while_loop = !for_loop && w.coin(0.2);
  const bool guarded = w.coin(0.3);
  const bool flag_guard = guarded && w.coin(0.5);
  // Arguments: inputs, out, [out2], then scalars.
  std::vector<std::string> sig;
  for (int idx = 0; idx < inputs; ++idx) sig.push_back("!tt.ptr<" + T + ">");
  const int out_arg = inputs;
  sig.push_back("!tt.ptr<" + T + ">");
  int out2_arg = -1;
  if (reduce) {
    out2_arg = static_cast<int>(sig.size());
    sig.push_back("!tt.ptr<" + T + ">");
  }
  auto scalar = [&](std::int64_t value) {
    int idx = static_cast<int>(sig.size());
    sig.push_back("i32");
    g.launch["args"]["%arg" + std::to_string(idx)] = value;
    return "%arg" + std::to_string(idx);
  };
  std::ostringstream shape;
  shape << (two_d ? "2-D " : "1-D ") << T << ", " << inputs << " input(s)";

  std::string offs, mask, tile, itile, ptile, btile;
  std::string bound;  // 1-D: n splat over the block (masks of shifted offsets)
  int rows_2d = 0;
  std::vector<std::int64_t> grid{w.pick(1, 5), 1, 1};
  if (!two_d) {
    const int B = w.one_of(std::vector<int>{16, 32, 64});
    const int stride = w.coin(0.25) ? w.pick(2, 3) : 1;
    const bool wrap = w.coin(0.2);
    tile = "tensor<" + std::to_string(B) + "x" + T + ">";
    itile = "tensor<" + std::to_string(B) + "xi32>";
    btile = "tensor<" + std::to_string(B) + "xi1>";
    ptile = "tensor<" + std::to_string(B) + "x!tt.ptr<" + T + ">>";
    const std::int64_t n = w.pick(1, static_cast<int>(grid[0]) * B + B);
    std::string n_arg = scalar(n);
    std::string pid = w.let("tt.get_program_id x : i32");
    std::string cb = w.let("arith.constant " + std::to_string(B) + " : i32");
    std::string base = w.let("arith.muli " + pid + ", " + cb + " : i32");
    std::string r = w.let("tt.make_range {end = " + std::to_string(B) + " : i32, start = 0 : i32} : " + itile);
    std::string sb = w.let("tt.splat " + base + " : i32 -> " + itile);
    offs = w.let("arith.addi " + sb + ", " + r + " : " + itile);
    if (stride > 1) {
      std::string cs = w.let("arith.constant dense<" + std::to_string(stride) + "> : " + itile);
      offs = w.let("arith.muli " + offs + ", " + cs + " : " + itile);
    }
    std::string ns = w.let("tt.splat " + n_arg + " : i32 -> " + itile);
    bound = ns;
    if (wrap) offs = w.let("arith.remsi " + offs + ", " + ns + " : " + itile);
    if (w.coin(0.8)) mask = w.let("arith.cmpi slt, " + offs + ", " + ns + " : " + itile);
    shape << ", block " << B << (stride > 1 ? ", stride " + std::to_string(stride) : "") << (wrap ? ", % n" : "")
          << (mask.empty() ? ", no mask" : ", masked") << ", n " << n;
  } else {
    const int BM = w.one_of(std::vector<int>{4, 8, 16}), BN = w.one_of(std::vector<int>{8, 16, 32});
    grid[1] = w.pick(1, 3);
    rows_2d = BM;
    const std::string dims = std::to_string(BM) + "x" + std::to_string(BN);
    tile = "tensor<" + dims + "x" + T + ">";
    itile = "tensor<" + dims + "xi32>";
    btile = "tensor<" + dims + "xi1>";
    ptile = "tensor<" + dims + "x!tt.ptr<" + T + ">>";
    const std::int64_t M = w.pick(1, static_cast<int>(grid[0]) * BM + 2), N = w.pick(1, static_cast<int>(grid[1]) * BN + 2);
    const std::int64_t stride = w.coin(0.3) ? w.pick(1, static_cast<int>(N)) : N + w.pick(0, 8);
    std::string m_arg = scalar(M), n_arg = scalar(N), s_arg = scalar(stride);
    std::string pm = w.let("tt.get_program_id x : i32"), pn = w.let("tt.get_program_id y : i32");
    std::string cm = w.let("arith.constant " + std::to_string(BM) + " : i32");
    std::string cn = w.let("arith.constant " + std::to_string(BN) + " : i32");
    std::string bm = w.let("arith.muli " + pm + ", " + cm + " : i32"), bn = w.let("arith.muli " + pn + ", " + cn + " : i32");
    const std::string rowt = "tensor<" + std::to_string(BM) + "xi32>", colt = "tensor<" + std::to_string(BN) + "xi32>";
    const std::string rowt2 = "tensor<" + std::to_string(BM) + "x1xi32>", colt2 = "tensor<1x" + std::to_string(BN) + "xi32>";
    std::string rr = w.let("tt.make_range {end = " + std::to_string(BM) + " : i32, start = 0 : i32} : " + rowt);
    std::string rc = w.let("tt.make_range {end = " + std::to_string(BN) + " : i32, start = 0 : i32} : " + colt);
    std::string rm = w.let("arith.addi " + w.let("tt.splat " + bm + " : i32 -> " + rowt) + ", " + rr + " : " + rowt);
    std::string rn = w.let("arith.addi " + w.let("tt.splat " + bn + " : i32 -> " + colt) + ", " + rc + " : " + colt);
    std::string rm2 = w.let("tt.expand_dims " + rm + " {axis = 1 : i32} : " + rowt + " -> " + rowt2);
    std::string rn2 = w.let("tt.expand_dims " + rn + " {axis = 0 : i32} : " + colt + " -> " + colt2);
    std::string rs = w.let("arith.muli " + rm2 + ", " + w.let("tt.splat " + s_arg + " : i32 -> " + rowt2) + " : " + rowt2);
    offs = w.let("arith.addi " + w.let("tt.broadcast " + rs + " : " + rowt2 + " -> " + itile) + ", " +
                 w.let("tt.broadcast " + rn2 + " : " + colt2 + " -> " + itile) + " : " + itile);
    if (w.coin(0.85)) {
      const std::string rowb = "tensor<" + std::to_string(BM) + "x1xi1>", colb = "tensor<1x" + std::to_string(BN) + "xi1>";
      std::string mr = w.let("arith.cmpi slt, " + rm2 + ", " + w.let("tt.splat " + m_arg + " : i32 -> " + rowt2) + " : " + rowt2);
      std::string mc = w.let("arith.cmpi slt, " + rn2 + ", " + w.let("tt.splat " + n_arg + " : i32 -> " + colt2) + " : " + colt2);
      mask = w.let("arith.andi " + w.let("tt.broadcast " + mr + " : " + rowb + " -> " + btile) + ", " +
                   w.let("tt.broadcast " + mc + " : " + colb + " -> " + btile) + " : " + btile);
    }
    shape << ", tile " << dims << ", M " << M << ", N " << N << ", stride " << stride << (mask.empty() ? ", no mask" : ", masked");
  }

  // Loads of every input at offsets `at` (under `m`), combined elementwise.
  const std::string zero = w.let("arith.constant dense<0.000000e+00> : " + tile);
  auto load_all = [&](const std::string &at, const std::string &m) {
    std::string val;
    for (int idx = 0; idx < inputs; ++idx) {
      std::string p = w.let("tt.splat %arg" + std::to_string(idx) + " : !tt.ptr<" + T + "> -> " + ptile);
      std::string pa = w.let("tt.addptr " + p + ", " + at + " : " + ptile + ", " + itile);
      std::string x = m.empty() ? w.let("tt.load " + pa + " : " + ptile)
                                : w.let("tt.load " + pa + ", " + m + (w.coin(0.5) ? ", " + zero : "") + " : " + ptile);
      if (val.empty()) {
        val = x;
        continue;
      }
      const std::string op = w.one_of(std::vector<std::string>{"arith.addf", "arith.mulf", "arith.subf", "arith.maxnumf"});
      val = w.let(op + " " + val + ", " + x + " : " + tile);
    }
    return val;
  };
  auto chain = [&](std::string val) {
    const int steps = w.pick(0, 3);
    for (int s = 0; s < steps; ++s) {
      switch (w.pick(0, 4)) {
        case 0: val = w.let("arith.mulf " + val + ", " + w.let("arith.constant dense<" + float_text(1.5) + "> : " + tile) + " : " + tile); break;
        case 1: val = w.let("math.exp " + val + " : " + tile); break;
        case 2: val = w.let("arith.maximumf " + val + ", " + zero + " : " + tile); break;
        case 3: {
          std::string c = w.let("arith.cmpf ogt, " + val + ", " + zero + " : " + tile);
          val = w.let("arith.select " + c + ", " + val + ", " + zero + " : " + btile + ", " + tile);
          break;
        }
        default: val = w.let("arith.addf " + val + ", " + val + " : " + tile); break;
      }
    }
    return val;
  };

  std::string val;
  if (for_loop) {
    // for c in range(0, C): acc += f(load(offs + c * step)); step 0 re-reads.
    const std::int64_t C = w.pick(0, 3);
    const int step = w.one_of(std::vector<int>{0, 5, 16});
    std::string c_arg = scalar(C);
    std::string c0 = w.let("arith.constant 0 : i32"), c1 = w.let("arith.constant 1 : i32");
    std::string cstep = w.let("arith.constant " + std::to_string(step) + " : i32");
    std::string acc = w.fresh(), iv = w.fresh(), res = w.fresh();
    w.line(res + " = scf.for " + iv + " = " + c0 + " to " + c_arg + " step " + c1 + " iter_args(" + acc + " = " + zero +
           ") -> (" + tile + ")  : i32 {");
    w.in();
    std::string shift = w.let("arith.muli " + iv + ", " + cstep + " : i32");
    std::string at = w.let("arith.addi " + offs + ", " + w.let("tt.splat " + shift + " : i32 -> " + itile) + " : " + itile);
    std::string m = mask;
    if (!mask.empty() && !bound.empty()) m = w.let("arith.cmpi slt, " + at + ", " + bound + " : " + itile);
    std::string x = chain(load_all(at, m));
    std::string next = w.let("arith.addf " + acc + ", " + x + " : " + tile);
    w.line("scf.yield " + next + " : " + tile);
    w.out();
    w.line("}");
    val = res;
    shape << ", for C=" << C << " step " << step;
  } else if (while_loop) {
    // i = 0; while i < K: acc += load(offs); i += 2  (derived: cdiv(K, 2) trips)
    const std::int64_t K = w.pick(0, 5);
    std::string k_arg = scalar(K);
    std::string c0 = w.let("arith.constant 0 : i32"), c2 = w.let("arith.constant 2 : i32");
    std::string i = w.fresh(), acc = w.fresh(), res = w.fresh(), j = w.fresh(), acc2 = w.fresh();
    w.line(res + ":2 = scf.while (" + i + " = " + c0 + ", " + acc + " = " + zero + ") : (i32, " + tile + ") -> (i32, " + tile + ") {");
    w.in();
    std::string c = w.let("arith.cmpi slt, " + i + ", " + k_arg + " : i32");
    w.line("scf.condition(" + c + ") " + i + ", " + acc + " : i32, " + tile);
    w.out();
    w.line("} do {");
    w.line("^bb0(" + j + ": i32, " + acc2 + ": " + tile + "):");
    w.in();
    std::string x = chain(load_all(offs, mask));
    std::string next = w.let("arith.addf " + acc2 + ", " + x + " : " + tile);
    std::string inc = w.let("arith.addi " + j + ", " + c2 + " : i32");
    w.line("scf.yield " + inc + ", " + next + " : i32, " + tile);
    w.out();
    w.line("}");
    val = res + "#1";
    shape << ", while K=" << K;
  } else {
    val = chain(load_all(offs, mask));
  }

  // The store, maybe under scf.if.
  auto store = [&]() {
    std::string p = w.let("tt.splat %arg" + std::to_string(out_arg) + " : !tt.ptr<" + T + "> -> " + ptile);
    std::string pa = w.let("tt.addptr " + p + ", " + offs + " : " + ptile + ", " + itile);
    w.line("tt.store " + pa + ", " + val + (mask.empty() ? "" : ", " + mask) + " : " + ptile);
  };
  if (guarded) {
    std::string cond;
    if (flag_guard) {
      std::string f = scalar(w.pick(0, 1));
      cond = w.let("arith.cmpi ne, " + f + ", " + w.let("arith.constant 0 : i32") + " : i32");
    } else {
      std::string pid = w.let("tt.get_program_id x : i32");
      std::string two = w.let("arith.constant 2 : i32");
      cond = w.let("arith.cmpi eq, " + w.let("arith.remsi " + pid + ", " + two + " : i32") + ", " +
                   w.let("arith.constant 0 : i32") + " : i32");
    }
    w.line("scf.if " + cond + " {");
    w.in();
    store();
    w.out();
    w.line("}");
    shape << (flag_guard ? ", store if flag" : ", store if pid even");
  } else {
    store();
  }
  if (reduce) {
    std::string s = w.fresh();
    const bool max = w.coin(0.5);
    std::string a = w.fresh(), b = w.fresh(), r = w.fresh();
    const std::string op = max ? "arith.maxnumf" : "arith.addf";
    if (two_d) {
      // tile MxN -> M (axis 1) -> scalar (axis 0)
      std::string rowv = w.fresh();
      const std::string rows = std::to_string(rows_2d);
      w.line(rowv + " = \"tt.reduce\"(" + val + ") <{axis = 1 : i32}> ({");
      w.line("^bb0(" + a + ": " + T + ", " + b + ": " + T + "):");
      w.line("  " + r + " = " + op + " " + a + ", " + b + " : " + T);
      w.line("  tt.reduce.return " + r + " : " + T);
      w.line("}) : (" + tile + ") -> tensor<" + rows + "x" + T + ">");
      std::string a2 = w.fresh(), b2 = w.fresh(), r2 = w.fresh();
      w.line(s + " = \"tt.reduce\"(" + rowv + ") <{axis = 0 : i32}> ({");
      w.line("^bb0(" + a2 + ": " + T + ", " + b2 + ": " + T + "):");
      w.line("  " + r2 + " = " + op + " " + a2 + ", " + b2 + " : " + T);
      w.line("  tt.reduce.return " + r2 + " : " + T);
      w.line("}) : (tensor<" + rows + "x" + T + ">) -> " + T);
    } else {
      w.line(s + " = \"tt.reduce\"(" + val + ") <{axis = 0 : i32}> ({");
      w.line("^bb0(" + a + ": " + T + ", " + b + ": " + T + "):");
      w.line("  " + r + " = " + op + " " + a + ", " + b + " : " + T);
      w.line("  tt.reduce.return " + r + " : " + T);
      w.line("}) : (" + tile + ") -> " + T);
    }
    std::string pid = w.let("tt.get_program_id x : i32");
    std::string pa = w.let("tt.addptr %arg" + std::to_string(out2_arg) + ", " + pid + " : !tt.ptr<" + T + ">, i32");
    w.line("tt.store " + pa + ", " + s + " : !tt.ptr<" + T + ">");
    shape << (max ? ", max-reduce" : ", sum-reduce");
  }
  w.line("tt.return");

  std::ostringstream text;
  text << "// generated by tests/oracle_ttir/generator.cpp, seed " << seed << ": " << shape.str() << "\n";
  text << "module {\n  tt.func public @gen_" << seed << "(";
  for (size_t idx = 0; idx < sig.size(); ++idx) text << (idx ? ", " : "") << "%arg" << idx << ": " << sig[idx];
  text << ") attributes {noinline = false} {\n" << w.body() << "  }\n}\n";
  g.text = text.str();
  g.launch["schema"] = "perfbound.launch/1";
  g.launch["grid"] = grid;
  if (!g.launch.contains("args")) g.launch["args"] = perfbound::ttir_oracle::json::object();
  g.shape = shape.str();
  return g;
}

}  // namespace oracletest
