//===- work.cpp - the work of one op execution on concrete shapes ---------===//
#include "work.hpp"

#include <algorithm>

namespace pb::hivm::oracle {

int64_t element_count(const Shape &s) {
  if (!s.memref) return 1;
  int64_t n = 1;
  for (int64_t d : s.sizes) n *= std::max<int64_t>(d, 0);
  return n;
}

int64_t bytes_of(int64_t elements, uint32_t bits) { return elements * static_cast<int64_t>((bits + 7) / 8); }

int64_t contiguous_run(const Shape &s) {
  int64_t gathered = 1;
  for (size_t d = s.sizes.size(); d-- > 0;) {
    if (s.sizes[d] == 1) continue;
    if (s.strides[d] != gathered) break;
    gathered *= s.sizes[d];
  }
  return gathered;
}

namespace {

bool flop_class(OpClass cls) {
  return cls == OpClass::VectorArith || cls == OpClass::VectorTranscendental || cls == OpClass::VectorReduce;
}

int64_t ceil_div(int64_t a, int64_t b) { return b <= 0 ? 0 : (a + b - 1) / b; }

}  // namespace

VectorWork vector_work(const std::vector<Shape> &operands, OpClass cls, int64_t repeat_bytes) {
  VectorWork w;
  const Shape *lane = nullptr;
  bool only_masks = true;
  for (const Shape &s : operands)
    if (s.memref && s.elem.bits != 1) only_masks = false;
  for (const Shape &s : operands) {
    if (!s.memref) continue;
    if (s.elem.bits == 1 && !only_masks) continue;
    if (lane == nullptr) {
      lane = &s;
      continue;
    }
    int64_t n = element_count(s), best = element_count(*lane);
    if (n > best || (n == best && s.elem.bits > lane->elem.bits)) lane = &s;
  }
  if (lane == nullptr) return w;
  w.dtype = std::string(lane->elem.name);
  const uint32_t bits = std::max<uint32_t>(lane->elem.bits, 1);
  w.elements = element_count(*lane);
  const int64_t block_bytes = repeat_bytes / 8;
  const int64_t lanes = repeat_bytes * 8 / bits;
  if (w.elements > 0) {
    const int64_t run = contiguous_run(*lane);
    if (run >= w.elements) {
      w.repeats = ceil_div(w.elements * bits, repeat_bytes * 8);
    } else {
      const int64_t rows = ceil_div(w.elements, run);
      const int64_t run_bytes = ceil_div(run * bits, 8);
      const int64_t blocks_per_row = ceil_div(run_bytes, block_bytes);
      if (blocks_per_row <= 8) w.repeats = ceil_div(rows * blocks_per_row, 8);
      else w.repeats = rows * ceil_div(run_bytes, repeat_bytes);
    }
  }
  w.masked_lanes = w.repeats * lanes - w.elements;
  w.flop = flop_class(cls) ? w.elements : 0;
  return w;
}

int64_t cube_flop(int64_t m, int64_t k, int64_t n) { return 2 * m * k * n; }

int64_t cube_mte1_bytes(int64_t m, int64_t k, int64_t n, const ElemType &elem, const Options &options) {
  Fractal f;
  auto it = options.fractal.find(std::string(elem.name));
  if (it != options.fractal.end()) f = it->second;
  auto pad = [](int64_t v, int64_t to) { return to <= 0 ? v : (v + to - 1) / to * to; };
  const int64_t pm = pad(m, f.m), pk = pad(k, f.k), pn = pad(n, f.n);
  return bytes_of(pm * pk + pk * pn, elem.bits);
}

int64_t vector_instructions(int64_t repeats) { return (repeats + 254) / 255; }

std::string scalar_kind_of(OpClass cls, std::string_view name, Space access_space, bool store) {
  switch (cls) {
    case OpClass::ScalarArith: return "arith";
    case OpClass::ScalarCompare: return "compare";
    case OpClass::ScalarBitwise: return "bitwise";
    case OpClass::ScalarCast: return "cast";
    case OpClass::AffineIndex:
    case OpClass::View: return "address";
    case OpClass::ScalarMemory:
      if (access_space == Space::GM) return store ? "gm_store" : "gm_load";
      return "ub_access";
    case OpClass::Loop: return "loop_control";
    case OpClass::Branch: return "branch";
    case OpClass::HivmScalar: return "hivm";
    default: break;
  }
  (void)name;
  return "";
}

bool guaranteed_hivm_scalar(std::string_view name) {
  return name != "hivm.hir.convert_layout" && name != "hivm.hir.multi_buffer_counter";
}

}  // namespace pb::hivm::oracle
