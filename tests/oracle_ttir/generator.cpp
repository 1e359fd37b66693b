//===- generator.cpp - random well-formed TTIR kernels for the oracle -----===//
#include "generator.hpp"

#include <random>
#include <sstream>
#include <vector>

namespace oracletest {

namespace {

using json = perfbound::ttir_oracle::json;

class Writer {
 public:
  explicit Writer(std::uint64_t seed) : rng_(seed) {}

  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool coin(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  template <class T>
  const T &one_of(const std::vector<T> &v) { return v[static_cast<size_t>(pick(0, static_cast<int>(v.size()) - 1))]; }

  /// Emits `%vN = rhs` at the current indentation; returns %vN.
  std::string let(const std::string &rhs) {
    std::string name = fresh();
    line(name + " = " + rhs);
    return name;
  }
  void line(const std::string &text) { body_ << std::string(static_cast<size_t>(indent_), ' ') << text << "\n"; }
  void label(const std::string &text) { body_ << "  " << text << "\n"; }
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

/// The kernel being written: its signature, launch and tile types.
struct Kernel {
  Writer &w;
  json &launch;
  std::ostringstream &shape;
  std::vector<std::string> sig;
  std::string T;                          // element type
  std::string tile, itile, btile, ptile;  // data, index, mask, pointer tiles
  std::string zero;                       // a zero data tile

  std::string pointer_arg(const std::string &elem) {
    sig.push_back("!tt.ptr<" + elem + ">");
    return "%arg" + std::to_string(sig.size() - 1);
  }
  std::string scalar_arg(std::int64_t value) {
    sig.push_back("i32");
    const std::string name = "%arg" + std::to_string(sig.size() - 1);
    launch["args"][name] = value;
    return name;
  }
  std::string splat_ptr(const std::string &arg, const std::string &elem = "") {
    const std::string e = elem.empty() ? T : elem;
    const std::string pt = ptile.substr(0, ptile.find("!tt.ptr<")) + "!tt.ptr<" + e + ">>";
    return w.let("tt.splat " + arg + " : !tt.ptr<" + e + "> -> " + pt);
  }
  std::string load(const std::string &ptrs, const std::string &mask, const std::string &other = "") {
    if (mask.empty()) return w.let("tt.load " + ptrs + " : " + ptile);
    return w.let("tt.load " + ptrs + ", " + mask + (other.empty() ? "" : ", " + other) + " : " + ptile);
  }
  void store(const std::string &ptrs, const std::string &value, const std::string &mask) {
    w.line("tt.store " + ptrs + ", " + value + (mask.empty() ? "" : ", " + mask) + " : " + ptile);
  }
  std::string addptr(const std::string &ptrs, const std::string &offs, const std::string &offs_type = "") {
    return w.let("tt.addptr " + ptrs + ", " + offs + " : " + ptile + ", " + (offs_type.empty() ? itile : offs_type));
  }
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
  g.launch = json::object();
  g.launch["args"] = json::object();
  std::ostringstream shape;
  Kernel k{w, g.launch, shape, {}, w.coin(0.6) ? "f32" : "f16", "", "", "", "", ""};
  const std::string &T = k.T;
  const bool two_d = w.coin(0.3);
  const int inputs = w.pick(1, 3);
  std::vector<std::string> in_args;
  for (int idx = 0; idx < inputs; ++idx) in_args.push_back(k.pointer_arg(T));
  const std::string out_arg = k.pointer_arg(T);
  const bool reduce = w.coin(0.25);
  const std::string out2_arg = reduce ? k.pointer_arg(T) : "";
  std::vector<std::int64_t> grid{w.pick(1, 5), 1, 1};
  shape << (two_d ? "2-D " : "1-D ") << T << ", " << inputs << " input(s)";

  // Pointer values in the launch: two inputs that alias (review item 9).
  if (inputs >= 2 && w.coin(0.08)) {
    const std::int64_t skew = w.coin(0.5) ? 0 : 64;
    g.launch["args"][in_args[0]] = 1 << 20;
    g.launch["args"][in_args[1]] = (1 << 20) + skew;
    g.launch["args"][out_arg] = 1 << 24;
    shape << ", inputs 0 and 1 alias (+" << skew << " B)";
  }

  std::string offs, mask, bound, pid, n_name;
  std::string split_mask_src;  // the linear index a split address was made from (its mask)
  std::string block_base;  // 1-D: the block's first element (i32), for block pointers
  int B = 0, rows = 0;
  if (!two_d) {
    B = w.one_of(std::vector<int>{16, 32, 64});
    k.tile = "tensor<" + std::to_string(B) + "x" + T + ">";
    k.itile = "tensor<" + std::to_string(B) + "xi32>";
    k.btile = "tensor<" + std::to_string(B) + "xi1>";
    k.ptile = "tensor<" + std::to_string(B) + "x!tt.ptr<" + T + ">>";
    const std::int64_t n = w.pick(1, static_cast<int>(grid[0]) * B + B);
    const std::string n_arg = k.scalar_arg(n);
    n_name = n_arg;
    pid = w.let("tt.get_program_id x : i32");
    // Early return: programs >= limit do nothing (cf.cond_br, two blocks).
    if (w.coin(0.12)) {
      const std::int64_t limit = w.pick(0, static_cast<int>(grid[0]));
      std::string lim = k.scalar_arg(limit);
      std::string c = w.let("arith.cmpi sge, " + pid + ", " + lim + " : i32");
      w.line("cf.cond_br " + c + ", ^bb1, ^bb2");
      w.label("^bb1:  // pred: ^bb0");
      w.line("tt.return");
      w.label("^bb2:  // pred: ^bb0");
      shape << ", return if pid >= " << limit;
    }
    // Blocks apart, or overlapping by half a block.
    const bool overlap = w.coin(0.15);
    std::string step = w.let("arith.constant " + std::to_string(overlap ? B / 2 : B) + " : i32");
    block_base = w.let("arith.muli " + pid + ", " + step + " : i32");
    std::string r = w.let("tt.make_range {end = " + std::to_string(B) + " : i32, start = 0 : i32} : " + k.itile);
    offs = w.let("arith.addi " + w.let("tt.splat " + block_base + " : i32 -> " + k.itile) + ", " + r + " : " + k.itile);
    const int stride = w.coin(0.2) ? w.pick(2, 3) : 1;
    if (stride > 1)
      offs = w.let("arith.muli " + offs + ", " + w.let("arith.constant dense<" + std::to_string(stride) + "> : " + k.itile) +
                   " : " + k.itile);
    bound = w.let("tt.splat " + n_arg + " : i32 -> " + k.itile);
    const int transform = w.pick(0, 9);
    if (transform == 0) {
      offs = w.let("arith.remsi " + offs + ", " + bound + " : " + k.itile);
      shape << ", % n";
    } else if (transform == 1) {
      // Clamp to the last element: the tail lanes repeat it.
      std::string one = w.let("arith.constant dense<1> : " + k.itile);
      offs = w.let("arith.minsi " + offs + ", " + w.let("arith.subi " + bound + ", " + one + " : " + k.itile) + " : " +
                   k.itile);
      shape << ", clamp to n - 1";
    } else if (transform == 2) {
      offs = w.let("arith.subi " + offs + ", " + w.let("arith.constant dense<3> : " + k.itile) + " : " + k.itile);
      shape << ", offs - 3";
    } else if (transform == 3) {
      // Inductor-style: x0 = offs % C, x1 = offs // C, address x1 * S + x0.
      const int C = w.pick(2, 12), S = w.pick(1, 16);
      std::string cc = w.let("arith.constant dense<" + std::to_string(C) + "> : " + k.itile);
      std::string x0 = w.let("arith.remsi " + offs + ", " + cc + " : " + k.itile);
      std::string x1 = w.let("arith.divsi " + offs + ", " + cc + " : " + k.itile);
      std::string sc = w.let("arith.constant dense<" + std::to_string(S) + "> : " + k.itile);
      std::string row = w.let("arith.muli " + x1 + ", " + sc + " : " + k.itile);
      split_mask_src = offs;
      offs = w.let("arith.addi " + row + ", " + x0 + " : " + k.itile);
      shape << ", index (offs // " << C << ") * " << S << " + offs % " << C;
    }
    const int mask_kind = w.pick(0, 9);
    if (!split_mask_src.empty() && mask_kind <= 7) {
      mask = w.let("arith.cmpi slt, " + split_mask_src + ", " + bound + " : " + k.itile);
    } else if (mask_kind <= 5) {
      mask = w.let("arith.cmpi slt, " + offs + ", " + bound + " : " + k.itile);
    } else if (mask_kind == 6) {
      std::string lo = w.let("arith.cmpi sge, " + offs + ", " + w.let("arith.constant dense<5> : " + k.itile) + " : " + k.itile);
      mask = w.let("arith.andi " + lo + ", " + w.let("arith.cmpi slt, " + offs + ", " + bound + " : " + k.itile) + " : " + k.btile);
      shape << ", mask 5 <= offs < n";
    } else if (mask_kind == 7) {
      // Not a conjunction of linear comparisons: every third lane off.
      std::string three = w.let("arith.constant dense<3> : " + k.itile);
      std::string zero_i = w.let("arith.constant dense<0> : " + k.itile);
      std::string r3 = w.let("arith.remsi " + offs + ", " + three + " : " + k.itile);
      mask = w.let("arith.andi " + w.let("arith.cmpi ne, " + r3 + ", " + zero_i + " : " + k.itile) + ", " +
                   w.let("arith.cmpi slt, " + offs + ", " + bound + " : " + k.itile) + " : " + k.btile);
      shape << ", mask offs % 3 != 0";
    }
    shape << ", block " << B << (overlap ? " (blocks overlap)" : "") << (stride > 1 ? ", stride " + std::to_string(stride) : "")
          << (mask.empty() ? ", no mask" : "") << ", n " << n;
  } else {
    const int BM = w.one_of(std::vector<int>{4, 8, 16}), BN = w.one_of(std::vector<int>{8, 16, 32});
    rows = BM;
    grid[1] = w.pick(1, 3);
    const std::string dims = std::to_string(BM) + "x" + std::to_string(BN);
    k.tile = "tensor<" + dims + "x" + T + ">";
    k.itile = "tensor<" + dims + "xi32>";
    k.btile = "tensor<" + dims + "xi1>";
    k.ptile = "tensor<" + dims + "x!tt.ptr<" + T + ">>";
    const std::int64_t M = w.pick(1, static_cast<int>(grid[0]) * BM + 2), N = w.pick(1, static_cast<int>(grid[1]) * BN + 2);
    const std::int64_t stride = w.coin(0.3) ? w.pick(1, static_cast<int>(N)) : N + w.pick(0, 8);
    std::string m_arg = k.scalar_arg(M), n_arg = k.scalar_arg(N), s_arg = k.scalar_arg(stride);
    pid = w.let("tt.get_program_id x : i32");
    std::string pn = w.let("tt.get_program_id y : i32");
    std::string cm = w.let("arith.constant " + std::to_string(BM) + " : i32");
    std::string cn = w.let("arith.constant " + std::to_string(BN) + " : i32");
    std::string bm = w.let("arith.muli " + pid + ", " + cm + " : i32"), bn = w.let("arith.muli " + pn + ", " + cn + " : i32");
    const std::string rowt = "tensor<" + std::to_string(BM) + "xi32>", colt = "tensor<" + std::to_string(BN) + "xi32>";
    const std::string rowt2 = "tensor<" + std::to_string(BM) + "x1xi32>", colt2 = "tensor<1x" + std::to_string(BN) + "xi32>";
    std::string rr = w.let("tt.make_range {end = " + std::to_string(BM) + " : i32, start = 0 : i32} : " + rowt);
    std::string rc = w.let("tt.make_range {end = " + std::to_string(BN) + " : i32, start = 0 : i32} : " + colt);
    std::string rm = w.let("arith.addi " + w.let("tt.splat " + bm + " : i32 -> " + rowt) + ", " + rr + " : " + rowt);
    std::string rn = w.let("arith.addi " + w.let("tt.splat " + bn + " : i32 -> " + colt) + ", " + rc + " : " + colt);
    std::string rm2 = w.let("tt.expand_dims " + rm + " {axis = 1 : i32} : " + rowt + " -> " + rowt2);
    std::string rn2 = w.let("tt.expand_dims " + rn + " {axis = 0 : i32} : " + colt + " -> " + colt2);
    std::string rs = w.let("arith.muli " + rm2 + ", " + w.let("tt.splat " + s_arg + " : i32 -> " + rowt2) + " : " + rowt2);
    offs = w.let("arith.addi " + w.let("tt.broadcast " + rs + " : " + rowt2 + " -> " + k.itile) + ", " +
                 w.let("tt.broadcast " + rn2 + " : " + colt2 + " -> " + k.itile) + " : " + k.itile);
    if (w.coin(0.85)) {
      const std::string rowb = "tensor<" + std::to_string(BM) + "x1xi1>", colb = "tensor<1x" + std::to_string(BN) + "xi1>";
      std::string mr = w.let("arith.cmpi slt, " + rm2 + ", " + w.let("tt.splat " + m_arg + " : i32 -> " + rowt2) + " : " + rowt2);
      std::string mc = w.let("arith.cmpi slt, " + rn2 + ", " + w.let("tt.splat " + n_arg + " : i32 -> " + colt2) + " : " + colt2);
      mask = w.let("arith.andi " + w.let("tt.broadcast " + mr + " : " + rowb + " -> " + k.btile) + ", " +
                   w.let("tt.broadcast " + mc + " : " + colb + " -> " + k.btile) + " : " + k.btile);
    }
    shape << ", tile " << dims << ", M " << M << ", N " << N << ", stride " << stride << (mask.empty() ? ", no mask" : ", masked");
  }
  k.zero = w.let("arith.constant dense<0.000000e+00> : " + k.tile);

  // The loads of one step at offsets `at` under `m`, combined elementwise.
  const bool gather = !two_d && w.coin(0.12);
  const std::string index_arg = gather ? k.pointer_arg("i32") : "";
  const bool wide = !two_d && !gather && w.coin(0.12);  // i64 offsets
  const bool block_ptr = !two_d && !gather && !wide && w.coin(0.12);
  if (gather) shape << ", input 0 gathered through loaded indices";
  if (wide) shape << ", i64 offsets";
  if (block_ptr) shape << ", input 0 through a block pointer";
  auto load_all = [&](const std::string &at, const std::string &m, const std::string &block_start) {
    std::string val;
    for (int idx = 0; idx < inputs; ++idx) {
      std::string x;
      if (idx == 0 && gather) {
        std::string ip = k.splat_ptr(index_arg, "i32");
        const std::string ipt = "tensor<" + std::to_string(B) + "x!tt.ptr<i32>>";
        std::string ia = w.let("tt.addptr " + ip + ", " + at + " : " + ipt + ", " + k.itile);
        std::string iv = m.empty() ? w.let("tt.load " + ia + " : " + ipt) : w.let("tt.load " + ia + ", " + m + " : " + ipt);
        x = k.load(k.addptr(k.splat_ptr(in_args[0]), iv), m);
      } else if (idx == 0 && block_ptr && !block_start.empty()) {
        // make_tensor_ptr(x, (n,), (1,), (start,), (B,)): bounds-checked.
        std::string n64 = w.let("arith.extsi " + n_name + " : i32 to i64");
        std::string one64 = w.let("arith.constant 1 : i64");
        const std::string bt = "tensor<" + std::to_string(B) + "x" + T + ">";
        std::string bp = w.let("tt.make_tensor_ptr " + in_args[0] + ", [" + n64 + "], [" + one64 + "], [" + block_start +
                               "] {order = array<i32: 0>} : <" + bt + ">");
        x = w.let("tt.load " + bp + " {boundaryCheck = array<i32: 0>, padding = 1 : i32} : !tt.ptr<" + bt + ">");
      } else if (wide) {
        const std::string wt = "tensor<" + std::to_string(B) + "xi64>";
        std::string at64 = w.let("arith.extsi " + at + " : " + k.itile + " to " + wt);
        x = k.load(k.addptr(k.splat_ptr(in_args[static_cast<size_t>(idx)]), at64, wt), m, w.coin(0.5) ? k.zero : "");
      } else {
        x = k.load(k.addptr(k.splat_ptr(in_args[static_cast<size_t>(idx)]), at), m, w.coin(0.5) ? k.zero : "");
      }
      if (val.empty()) {
        val = x;
        continue;
      }
      const std::string op = w.one_of(std::vector<std::string>{"arith.addf", "arith.mulf", "arith.subf", "arith.maxnumf"});
      val = w.let(op + " " + val + ", " + x + " : " + k.tile);
    }
    return val;
  };
  auto chain = [&](std::string val) {
    const int steps = w.pick(0, 3);
    for (int s = 0; s < steps; ++s) {
      switch (w.pick(0, 4)) {
        case 0:
          val = w.let("arith.mulf " + val + ", " + w.let("arith.constant dense<" + float_text(1.5) + "> : " + k.tile) + " : " + k.tile);
          break;
        case 1: val = w.let("math.exp " + val + " : " + k.tile); break;
        case 2: val = w.let("arith.maximumf " + val + ", " + k.zero + " : " + k.tile); break;
        case 3: {
          std::string c = w.let("arith.cmpf ogt, " + val + ", " + k.zero + " : " + k.tile);
          val = w.let("arith.select " + c + ", " + val + ", " + k.zero + " : " + k.btile + ", " + k.tile);
          break;
        }
        default: val = w.let("arith.addf " + val + ", " + val + " : " + k.tile); break;
      }
    }
    return val;
  };
  // Offsets shifted by an i32 scalar (and their mask on 1-D blocks).
  auto shifted = [&](const std::string &shift, std::string &m) {
    std::string at = w.let("arith.addi " + offs + ", " + w.let("tt.splat " + shift + " : i32 -> " + k.itile) + " : " + k.itile);
    m = mask;
    if (!mask.empty() && !bound.empty()) m = w.let("arith.cmpi slt, " + at + ", " + bound + " : " + k.itile);
    return at;
  };

  std::string val;
  const int loop = w.pick(0, 9);
  if (loop <= 2) {
    // for c in range(0, C): acc += f(load(offs + c * step)); step 0 re-reads.
    const std::int64_t C = w.pick(0, 3);
    const int step = w.one_of(std::vector<int>{0, 5, 16});
    std::string c_arg = k.scalar_arg(C);
    std::string c0 = w.let("arith.constant 0 : i32"), c1 = w.let("arith.constant 1 : i32");
    std::string cstep = w.let("arith.constant " + std::to_string(step) + " : i32");
    std::string acc = w.fresh(), iv = w.fresh(), res = w.fresh();
    w.line(res + " = scf.for " + iv + " = " + c0 + " to " + c_arg + " step " + c1 + " iter_args(" + acc + " = " + k.zero +
           ") -> (" + k.tile + ")  : i32 {");
    w.in();
    std::string m;
    std::string at = shifted(w.let("arith.muli " + iv + ", " + cstep + " : i32"), m);
    std::string next = w.let("arith.addf " + acc + ", " + chain(load_all(at, m, "")) + " : " + k.tile);
    w.line("scf.yield " + next + " : " + k.tile);
    w.out();
    w.line("}");
    val = res;
    shape << ", for C=" << C << " step " << step;
  } else if (loop == 3) {
    // Triangular: for i in range(0, pid + extra): acc += load(offs + i).
    const std::int64_t extra = w.pick(0, 2);
    std::string e_arg = k.scalar_arg(extra);
    std::string ub = w.let("arith.addi " + pid + ", " + e_arg + " : i32");
    std::string c0 = w.let("arith.constant 0 : i32"), c1 = w.let("arith.constant 1 : i32");
    std::string acc = w.fresh(), iv = w.fresh(), res = w.fresh();
    w.line(res + " = scf.for " + iv + " = " + c0 + " to " + ub + " step " + c1 + " iter_args(" + acc + " = " + k.zero +
           ") -> (" + k.tile + ")  : i32 {");
    w.in();
    std::string m;
    std::string at = shifted(iv, m);
    std::string next = w.let("arith.addf " + acc + ", " + load_all(at, m, "") + " : " + k.tile);
    w.line("scf.yield " + next + " : " + k.tile);
    w.out();
    w.line("}");
    val = res;
    shape << ", triangular for (pid + " << extra << " trips)";
  } else if (loop == 4) {
    // i = 0; while i < K: acc += load(offs); i += 2  (derived: cdiv(K, 2) trips)
    const std::int64_t K = w.pick(0, 5);
    std::string k_arg = k.scalar_arg(K);
    std::string c0 = w.let("arith.constant 0 : i32"), c2 = w.let("arith.constant 2 : i32");
    std::string i = w.fresh(), acc = w.fresh(), res = w.fresh(), j = w.fresh(), acc2 = w.fresh();
    w.line(res + ":2 = scf.while (" + i + " = " + c0 + ", " + acc + " = " + k.zero + ") : (i32, " + k.tile + ") -> (i32, " +
           k.tile + ") {");
    w.in();
    std::string c = w.let("arith.cmpi slt, " + i + ", " + k_arg + " : i32");
    w.line("scf.condition(" + c + ") " + i + ", " + acc + " : i32, " + k.tile);
    w.out();
    w.line("} do {");
    w.line("^bb0(" + j + ": i32, " + acc2 + ": " + k.tile + "):");
    w.in();
    std::string next = w.let("arith.addf " + acc2 + ", " + chain(load_all(offs, mask, block_base)) + " : " + k.tile);
    std::string inc = w.let("arith.addi " + j + ", " + c2 + " : i32");
    w.line("scf.yield " + inc + ", " + next + " : i32, " + k.tile);
    w.out();
    w.line("}");
    val = res + "#1";
    shape << ", while K=" << K;
  } else if (loop == 5 && !two_d) {
    // Persistent: for t in range(pid, T, num_programs): y[t * B + r] = f(x[...]).
    const std::int64_t tiles = w.pick(0, static_cast<int>(grid[0]) * 2 + 1);
    std::string t_arg = k.scalar_arg(tiles);
    std::string np = w.let("tt.get_num_programs x : i32");
    std::string cB = w.let("arith.constant " + std::to_string(B) + " : i32");
    std::string t = w.fresh();
    w.line("scf.for " + t + " = " + pid + " to " + t_arg + " step " + np + "  : i32 {");
    w.in();
    std::string r = w.let("tt.make_range {end = " + std::to_string(B) + " : i32, start = 0 : i32} : " + k.itile);
    std::string base = w.let("arith.muli " + t + ", " + cB + " : i32");
    std::string at = w.let("arith.addi " + w.let("tt.splat " + base + " : i32 -> " + k.itile) + ", " + r + " : " + k.itile);
    std::string m = w.let("arith.cmpi slt, " + at + ", " + bound + " : " + k.itile);
    std::string x = chain(load_all(at, m, ""));
    k.store(k.addptr(k.splat_ptr(out_arg), at), x, m);
    w.out();
    w.line("}");
    shape << ", persistent over " << tiles << " tiles";
  } else if (loop == 6) {
    // Nested: for i in range(C1): for j in range(C2): acc += load(offs + i * s1 + j * s2).
    const std::int64_t C1 = w.pick(0, 3), C2 = w.pick(0, 3);
    const int s1 = w.one_of(std::vector<int>{0, 4, 16}), s2 = w.one_of(std::vector<int>{1, 3, 8});
    std::string a1 = k.scalar_arg(C1), a2 = k.scalar_arg(C2);
    std::string c0 = w.let("arith.constant 0 : i32"), c1 = w.let("arith.constant 1 : i32");
    std::string cs1 = w.let("arith.constant " + std::to_string(s1) + " : i32");
    std::string cs2 = w.let("arith.constant " + std::to_string(s2) + " : i32");
    std::string acc = w.fresh(), iv = w.fresh(), res = w.fresh();
    w.line(res + " = scf.for " + iv + " = " + c0 + " to " + a1 + " step " + c1 + " iter_args(" + acc + " = " + k.zero +
           ") -> (" + k.tile + ")  : i32 {");
    w.in();
    std::string outer = w.let("arith.muli " + iv + ", " + cs1 + " : i32");
    std::string acc2 = w.fresh(), jv = w.fresh(), res2 = w.fresh();
    w.line(res2 + " = scf.for " + jv + " = " + c0 + " to " + a2 + " step " + c1 + " iter_args(" + acc2 + " = " + acc +
           ") -> (" + k.tile + ")  : i32 {");
    w.in();
    std::string m;
    std::string at = shifted(w.let("arith.addi " + outer + ", " + w.let("arith.muli " + jv + ", " + cs2 + " : i32") + " : i32"), m);
    std::string next = w.let("arith.addf " + acc2 + ", " + load_all(at, m, "") + " : " + k.tile);
    w.line("scf.yield " + next + " : " + k.tile);
    w.out();
    w.line("}");
    w.line("scf.yield " + res2 + " : " + k.tile);
    w.out();
    w.line("}");
    val = res;
    shape << ", nested for " << C1 << " x " << C2 << " (steps " << s1 << ", " << s2 << ")";
  } else if (loop == 7) {
    // Pointers carried by the loop: p = x + offs; for c in range(C): acc += load(p); p += step.
    const std::int64_t C = w.pick(0, 3);
    const int step = w.one_of(std::vector<int>{0, 7, 16, 64});
    std::string c_arg = k.scalar_arg(C);
    std::string p0 = k.addptr(k.splat_ptr(in_args[0]), offs);
    std::string inc = w.let("arith.constant dense<" + std::to_string(step) + "> : " + k.itile);
    std::string c0 = w.let("arith.constant 0 : i32"), c1 = w.let("arith.constant 1 : i32");
    std::string acc = w.fresh(), p = w.fresh(), iv = w.fresh(), res = w.fresh();
    w.line(res + ":2 = scf.for " + iv + " = " + c0 + " to " + c_arg + " step " + c1 + " iter_args(" + acc + " = " + k.zero +
           ", " + p + " = " + p0 + ") -> (" + k.tile + ", " + k.ptile + ")  : i32 {");
    w.in();
    std::string x = k.load(p, mask, w.coin(0.5) ? k.zero : "");
    std::string next = w.let("arith.addf " + acc + ", " + chain(x) + " : " + k.tile);
    std::string p2 = k.addptr(p, inc);
    w.line("scf.yield " + next + ", " + p2 + " : " + k.tile + ", " + k.ptile);
    w.out();
    w.line("}");
    val = res + "#0";
    shape << ", pointer carried by a for (C=" << C << ", += " << step << ")";
  } else if (loop == 8) {
    // for i in range(lo, hi, st): acc += load(offs + i)  (lo > hi: no trips).
    const std::int64_t lo = w.pick(-2, 6), hi = w.pick(-2, 12), st = w.pick(1, 4);
    std::string a_lo = k.scalar_arg(lo), a_hi = k.scalar_arg(hi), a_st = k.scalar_arg(st);
    std::string acc = w.fresh(), iv = w.fresh(), res = w.fresh();
    w.line(res + " = scf.for " + iv + " = " + a_lo + " to " + a_hi + " step " + a_st + " iter_args(" + acc + " = " + k.zero +
           ") -> (" + k.tile + ")  : i32 {");
    w.in();
    std::string m;
    std::string at = shifted(iv, m);
    std::string next = w.let("arith.addf " + acc + ", " + load_all(at, m, "") + " : " + k.tile);
    w.line("scf.yield " + next + " : " + k.tile);
    w.out();
    w.line("}");
    val = res;
    shape << ", for i in range(" << lo << ", " << hi << ", " << st << ")";
  } else {
    val = chain(load_all(offs, mask, block_base));
  }

  // A read of the program's own write (review item 9): val goes through
  // the output and is read back, maybe one element further on.
  if (!val.empty() && !two_d && w.coin(0.08)) {
    k.store(k.addptr(k.splat_ptr(out_arg), offs), val, mask);
    std::string m;
    std::string at = w.coin(0.5) ? offs : shifted(w.let("arith.constant 1 : i32"), m);
    if (at == offs) m = mask;
    val = w.let("arith.addf " + val + ", " + k.load(k.addptr(k.splat_ptr(out_arg), at), m) + " : " + k.tile);
    shape << ", reads back its own write" << (at == offs ? "" : " (+1)");
  }

  // The store: plain, in place (to input 0), or atomic; maybe under scf.if.
  if (!val.empty()) {
    const int how = w.pick(0, 9);
    const std::string target = how == 8 ? in_args[0] : out_arg;
    auto store = [&]() {
      std::string pa = k.addptr(k.splat_ptr(target), offs);
      if (how == 9) {
        if (mask.empty()) w.let("tt.atomic_rmw fadd, acq_rel, gpu, " + pa + ", " + val + " : (" + k.ptile + ", " + k.tile + ") -> " + k.tile);
        else
          w.let("tt.atomic_rmw fadd, acq_rel, gpu, " + pa + ", " + val + ", " + mask + " : (" + k.ptile + ", " + k.tile +
                ", " + k.btile + ") -> " + k.tile);
      } else {
        k.store(pa, val, mask);
      }
    };
    if (how == 8) shape << ", stores in place";
    if (how == 9) shape << ", atomic add";
    if (w.coin(0.3)) {
      std::string cond;
      const int kind = w.pick(0, 2);
      if (kind == 2) {
        // On loaded data: flags[pid] > 3 (the extractor cannot decide it).
        std::string flags = k.pointer_arg("i32");
        std::string fa = w.let("tt.addptr " + flags + ", " + pid + " : !tt.ptr<i32>, i32");
        std::string fv = w.let("tt.load " + fa + " : !tt.ptr<i32>");
        cond = w.let("arith.cmpi sgt, " + fv + ", " + w.let("arith.constant 3 : i32") + " : i32");
        shape << ", store if flags[pid] > 3";
      } else if (kind == 1) {
        std::string f = k.scalar_arg(w.pick(0, 1));
        cond = w.let("arith.cmpi ne, " + f + ", " + w.let("arith.constant 0 : i32") + " : i32");
        shape << ", store if flag";
      } else {
        std::string two = w.let("arith.constant 2 : i32");
        cond = w.let("arith.cmpi eq, " + w.let("arith.remsi " + pid + ", " + two + " : i32") + ", " +
                     w.let("arith.constant 0 : i32") + " : i32");
        shape << ", store if pid even";
      }
      w.line("scf.if " + cond + " {");
      w.in();
      store();
      w.out();
      w.line("}");
    } else {
      store();
    }
  }
  if (reduce && !val.empty()) {
    const bool max = w.coin(0.5);
    const std::string op = max ? "arith.maxnumf" : "arith.addf";
    std::string s = w.fresh();
    auto reduce_region = [&](const std::string &result, const std::string &src, int axis, const std::string &from,
                             const std::string &to) {
      std::string a = w.fresh(), b = w.fresh(), r = w.fresh();
      w.line(result + " = \"tt.reduce\"(" + src + ") <{axis = " + std::to_string(axis) + " : i32}> ({");
      w.line("^bb0(" + a + ": " + T + ", " + b + ": " + T + "):");
      w.line("  " + r + " = " + op + " " + a + ", " + b + " : " + T);
      w.line("  tt.reduce.return " + r + " : " + T);
      w.line("}) : (" + from + ") -> " + to);
    };
    if (two_d) {
      // Rows (axis 1) or columns (axis 0) first, then the rest.
      const bool rows_first = w.coin(0.5);
      const std::string dims = k.tile.substr(7, k.tile.rfind('x') - 7);
      const std::string cols = dims.substr(dims.find('x') + 1);
      const std::string mid = "tensor<" + (rows_first ? std::to_string(rows) : cols) + "x" + T + ">";
      std::string part = w.fresh();
      reduce_region(part, val, rows_first ? 1 : 0, k.tile, mid);
      reduce_region(s, part, 0, mid, T);
      shape << (rows_first ? ", reduce rows then" : ", reduce columns then");
    } else {
      reduce_region(s, val, 0, k.tile, T);
    }
    std::string pa = w.let("tt.addptr " + out2_arg + ", " + pid + " : !tt.ptr<" + T + ">, i32");
    w.line("tt.store " + pa + ", " + s + " : !tt.ptr<" + T + ">");
    shape << (max ? " max-reduce" : " sum-reduce");
  }
  w.line("tt.return");

  std::ostringstream text;
  text << "// generated by tests/oracle_ttir/generator.cpp, seed " << seed << ": " << shape.str() << "\n";
  text << "module {\n  tt.func public @gen_" << seed << "(";
  for (size_t idx = 0; idx < k.sig.size(); ++idx) text << (idx ? ", " : "") << "%arg" << idx << ": " << k.sig[idx];
  text << ") attributes {noinline = false} {\n" << w.body() << "  }\n}\n";
  g.text = text.str();
  g.launch["schema"] = "perfbound.launch/1";
  g.launch["grid"] = grid;
  g.shape = shape.str();
  return g;
}

}  // namespace oracletest
