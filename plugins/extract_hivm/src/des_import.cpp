//===- des_import.cpp - the predecessor's DES graph JSON as a Program ------===//
#include "des_import.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>

#include <nlohmann/json.hpp>

#include "ir.hpp"
#include "sync.hpp"

namespace pb::hivm {

using json = nlohmann::json;

bool looks_like_des(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return false;
  return text.substr(0, 4096).find("\"a3_hivm_des_v1\"") != std::string_view::npos;
}

namespace {

std::optional<Pipe> des_pipe(const std::string &p) {
  if (p == "PIPE_MTE2_V" || p == "PIPE_MTE2_C") return Pipe::MTE2;
  if (p == "PIPE_UNKNOWN" || p.empty()) return std::nullopt;
  return pipe_from_enum(p);
}

std::string full_name(const std::string &name, const std::string &pipe) {
  if ((name == "load" || name == "store") && pipe == "PIPE_S") return "memref." + name;
  if (name == "if" || name == "for" || name == "yield") return "scf." + name;
  if (name == "alloc_workspace") return "memref_ext.alloc_workspace";
  if (name == "mark") return "annotation.mark";
  for (const char *prefix : {"hivm.hir.", "arith.", "affine.", "memref.", "scf."})
    if (lookup_op(prefix + name)) return prefix + name;
  return "des." + name;
}

uint32_t elem_bits(const std::string &t) {
  ElemType e = parse_elem_type(t);
  return e.bits;
}

uint32_t line_of_offset(std::string_view text, size_t offset) {
  uint32_t line = 1;
  for (size_t idx = 0; idx < offset && idx < text.size(); ++idx) line += text[idx] == '\n' ? 1 : 0;
  return line;
}

constexpr size_t ops_not_started = static_cast<size_t>(-1);

/// A whole-number member of DES operation `idx`, `fallback` when absent or null. A
/// fraction, a negative number or one above `max` is the graph's error, named here:
/// read as an integer it would be cut (and a float beyond int64 is undefined behaviour).
int64_t whole_member(const json &o, const char *key, int64_t fallback, int64_t max, size_t idx) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) return fallback;
  const bool fits = it->is_number_unsigned() ? it->get<uint64_t>() <= static_cast<uint64_t>(max)
                                             : it->is_number_integer() && it->get<int64_t>() >= 0;
  if (!fits)
    throw SourceError(1, 1, "DES operation " + std::to_string(idx) + ": \"" + key + "\" is " + it->dump() +
                                "; it must be a whole number from 0 to " + std::to_string(max));
  return it->get<int64_t>();
}

/// a * b for the per-block and per-instance totals of operation `idx`, refused when
/// it does not fit in 64 bits.
int64_t checked_product(int64_t a, int64_t b, size_t idx) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    throw SourceError(1, 1, "DES operation " + std::to_string(idx) + ": its totals (" + std::to_string(a) + " x " +
                                std::to_string(b) + ") exceed 64 bits; its loop_multiplier, bytes or elements cannot be real");
  return out;
}

// Bytes or elements of one operation's execution: 2^48 (256 TiB) is far beyond any
// buffer, and keeps the repeat arithmetic (elements x element bits) within 64 bits.
constexpr int64_t kMaxDesData = int64_t{1} << 48;

Program read_des(const json &des, std::string_view text, const AnalysisOptions &options, size_t &at_op);

}  // namespace

Program import_des(std::string_view text, const AnalysisOptions &options) {
  json des;
  try {
    des = json::parse(text.begin(), text.end());
  } catch (const json::parse_error &e) {
    throw SourceError(line_of_offset(text, e.byte > 0 ? e.byte - 1 : 0), 1,
                      std::string("the DES graph is not valid JSON: ") + e.what());
  } catch (const json::out_of_range &e) {
    // "number overflow parsing '1e999'": no offset is given, so the line is
    // that of the literal's first occurrence.
    const std::string what = e.what();
    const size_t open = what.find('\''), close = what.rfind('\'');
    size_t at = std::string_view::npos;
    if (open != std::string::npos && close > open + 1) at = text.find(what.substr(open + 1, close - open - 1));
    throw SourceError(line_of_offset(text, at == std::string_view::npos ? 0 : at), 1,
                      std::string("the DES graph holds a number JSON cannot represent: ") + e.what());
  }
  // A member of the wrong JSON type (value()/get() throw type_error) is
  // the graph's fault: name the operation it is in.
  size_t at_op = ops_not_started;
  try {
    return read_des(des, text, options, at_op);
  } catch (const json::exception &e) {
    throw SourceError(1, 1, std::string("the DES graph has a member of the wrong type") +
                                (at_op == ops_not_started ? std::string() : " in operation " + std::to_string(at_op)) + ": " + e.what());
  }
}

namespace {

Program read_des(const json &des, std::string_view text, const AnalysisOptions &options, size_t &at_op) {
  if (!des.is_object() || des.value("schema_version", "") != "a3_hivm_des_v1")
    throw SourceError(1, 1, "not a DES graph: \"schema_version\" is not \"a3_hivm_des_v1\"");
  if (!des.contains("operations") || !des["operations"].is_array())
    throw SourceError(1, 1, "the DES graph has no \"operations\" array");
  const json &ops = des["operations"];
  Program prog = start_program(options);
  if (!prog.blocks) {
    prog.blocks_reason = "no launch grid (a DES graph does not carry the block count)";
  }
  prog.warnings.push_back("imported from the predecessor's DES graph (a3_hivm_des_v1): interop only, never ground truth");
  prog.warnings.push_back("DES defect: \"flops\" is 0 in every record; FLOP are reported as unknown");
  prog.warnings.push_back("DES defect: \"repeat\" was computed by the predecessor, not read from the IR; repeats are "
                          "recomputed here from elements as contiguous 256-byte repeats (estimates)");
  prog.warnings.push_back("DES defect: the graph was built from a filtered dump that dropped real ops (10 hivm.hir.copy "
                          "in chunk_kda); line numbers refer to that filtered dump, not to the raw file");
  bool has_cube = false, has_vector = false;
  for (const json &o : ops) {
    std::string ct = o.value("core_type", "");
    has_cube = has_cube || ct == "CUBE";
    has_vector = has_vector || ct == "VECTOR";
  }
  std::map<std::string, uint32_t> buffer_ids;
  std::vector<FunctionView> views;
  CoreType current = CoreType::Unknown;
  int64_t zero_byte_transfers = 0;
  auto start_function = [&](CoreType core) {
    if (!views.empty()) views.back().end_op = static_cast<uint32_t>(prog.ops.size());
    FunctionRecord f;
    f.index = static_cast<uint32_t>(prog.functions.size());
    f.name = "@des_part_" + std::to_string(f.index);
    f.core = core;
    f.core_source = "DES core_type";
    f.mix_part = has_cube && has_vector ? core_name(core) : "";
    f.instances_per_block = (has_cube && has_vector && core == CoreType::AIV) ? options.vector_cores_per_cube_core : 1;
    f.block_num.known = false;
    f.block_num.reason = "not in a DES graph";
    prog.functions.push_back(f);
    FunctionView v;
    v.function = f.index;
    v.first_op = static_cast<uint32_t>(prog.ops.size());
    views.push_back(v);
    current = core;
  };
  for (size_t idx = 0; idx < ops.size(); ++idx) {
    at_op = idx;
    const json &o = ops[idx];
    if (!o.is_object() || !o.contains("name") || !o.contains("pipe"))
      throw SourceError(1, 1, "DES operation " + std::to_string(idx) + " lacks \"name\" or \"pipe\"");
    std::string name = o.value("name", "");
    std::string pipe = o.value("pipe", "");
    std::string ct = o.value("core_type", "");
    CoreType core = ct == "CUBE" ? CoreType::AIC : (ct == "VECTOR" ? CoreType::AIV : current);
    if (views.empty() || (core != current && core != CoreType::Unknown)) start_function(core);
    // mmadL1 is split in two records (.mte1, .cube): merge them.
    if (name == "mmadL1.cube" && !prog.ops.empty() && prog.ops.back().name == "hivm.hir.mmadL1") continue;
    if (name == "mmadL1.mte1" || name == "mmadL1.cube") name = "mmadL1";
    OpRecord r;
    r.id = static_cast<uint32_t>(prog.ops.size());
    r.function = prog.functions.back().index;
    r.name = full_name(name, pipe);
    r.line = static_cast<uint32_t>(whole_member(o, "line", 0, UINT32_MAX, idx));
    r.core = core;
    std::optional<OpInfo> info = lookup_op(r.name);
    r.cls = info ? info->cls : OpClass::Unknown;
    if (r.name == "hivm.hir.mmadL1") r.pipes = {Pipe::MTE1, Pipe::M};
    else if (auto p = des_pipe(pipe)) r.pipes = {*p};
    if (!info) {
      r.modelled = false;
      r.notes.push_back("DES record of an op the table does not know");
    }
    if (r.pipes.empty() && r.name.rfind("hivm.hir.", 0) == 0 && r.cls != OpClass::HivmScalar && r.cls != OpClass::Alloc) {
      r.modelled = false;
      r.unresolved_pipe = "DES pipe PIPE_UNKNOWN";
    }
    if (r.name == "hivm.hir.copy" && !r.pipes.empty() && r.pipes[0] == Pipe::V) r.cls = OpClass::VectorMove;
    const int64_t lm = whole_member(o, "loop_multiplier", 1, INT64_MAX, idx);
    const uint32_t inst = prog.functions.back().instances_per_block;
    auto times = [idx](int64_t a, int64_t b) { return checked_product(a, b, idx); };
    r.count = Count::exactly(times(lm, inst));
    r.count_instance = Count::exactly(lm);
    r.dtype = o.value("elem_type", "");
    r.src = space_from_name(o.value("src_space", ""));
    r.dst = space_from_name(o.value("dst_space", ""));
    if (r.src != Space::Unknown && r.dst != Space::Unknown)
      r.path_name = path_word(r.src, r.dst);
    const int64_t bytes = whole_member(o, "bytes", 0, kMaxDesData, idx);
    const int64_t elements = whole_member(o, "elements", 0, kMaxDesData, idx);
    if (elements > 0) r.mutable_totals().elements = Quantity::exact(elements);
    if (r.cls == OpClass::Dma) {
      DataTotals &t = r.mutable_totals();
      if (bytes > 0) {
        t.bytes = Quantity::exact(bytes);
      } else {
        t.bytes.reason = "DES defect: bytes is 0 on a transfer";
        ++zero_byte_transfers;
      }
      t.bytes_block = bytes > 0 ? Quantity::exact(times(times(bytes, lm), inst)) : t.bytes;
      t.bytes_instance = bytes > 0 ? Quantity::exact(times(bytes, lm)) : t.bytes;
      r.issued_instructions = 1;
    }
    const bool vector = !r.pipes.empty() && r.pipes[0] == Pipe::V && r.cls != OpClass::SetFlag &&
                        r.cls != OpClass::WaitFlag && r.cls != OpClass::PipeBarrier;
    if (vector || r.cls == OpClass::Cube) {
      DataTotals &t = r.mutable_totals();
      t.flop.reason = "DES defect: flops is 0 in every record";
      t.flop_block = t.flop;
      t.flop_instance = t.flop;
    }
    if (vector) {
      uint32_t bits = elem_bits(r.dtype);
      if (elements > 0 && bits > 0) {
        const int64_t rb = options.vector_repeat_bytes * 8;
        int64_t rep = (elements * bits + rb - 1) / rb;
        DataTotals &t = r.mutable_totals();
        t.repeats = Quantity{rep, true, "recomputed from DES elements as contiguous repeats (layout unknown)"};
        t.masked_lanes = Quantity{rep * (rb / bits) - elements, true, t.repeats.reason};
        t.repeats_block = Quantity{times(times(rep, lm), inst), true, t.repeats.reason};
        t.repeats_instance = Quantity{times(rep, lm), true, t.repeats.reason};
        t.masked_block = Quantity{times(times(rep * (rb / bits) - elements, lm), inst), true, t.repeats.reason};
        r.estimated_fields = {"repeats", "masked_lanes"};
        r.issued_instructions = static_cast<uint32_t>(std::max<int64_t>(1, (rep + 254) / 255));
      } else {
        r.mutable_totals().repeats.reason = "no elements or element type in the DES record";
      }
    }
    if (r.cls == OpClass::Cube) r.issued_instructions = 3;
    switch (r.cls) {
      case OpClass::ScalarArith:
      case OpClass::ScalarCompare:
      case OpClass::ScalarBitwise:
      case OpClass::ScalarCast:
      case OpClass::AffineIndex:
      case OpClass::ScalarMemory:
      case OpClass::HivmScalar:
      case OpClass::Branch:
        r.scalar_instructions = r.issued_instructions = 1;
        r.scalar_kind = "des";
        break;
      case OpClass::SetFlag:
      case OpClass::WaitFlag:
      case OpClass::PipeBarrier:
      case OpClass::SyncBlockSet:
      case OpClass::SyncBlockWait:
      case OpClass::SyncBlock: {
        r.issued_instructions = 1;
        SyncInfo s;
        auto from = des_pipe(o.value("sender_pipe", ""));
        auto to = des_pipe(o.value("receiver_pipe", ""));
        if (r.cls == OpClass::PipeBarrier || !from || !to) {
          s.from = s.to = r.pipes.empty() ? Pipe::None : r.pipes[0];
        } else {
          s.from = *from;
          s.to = *to;
        }
        std::string ev = o.value("event_id", "");
        auto event_number = [&](std::string_view digits) {
          int64_t v = 0;
          auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
          if (ec != std::errc() || end != digits.data() + digits.size() || v < 0)
            throw SourceError(1, 1, "DES operation " + std::to_string(idx) + ": event_id \"" + ev +
                                        "\" is not an event number (event_EVENT_ID<n> or <n>, 0 .. 2^63-1)");
          return v;
        };
        if (ev.rfind("event_EVENT_ID", 0) == 0) s.event = event_number(std::string_view(ev).substr(14));
        else if (!ev.empty() && std::all_of(ev.begin(), ev.end(), ::isdigit)) {
          s.event_value = "dynamic";
          s.event_values = {event_number(ev)};
        }
        if (r.cls == OpClass::SetFlag) r.pipes = {s.from};
        if (r.cls == OpClass::WaitFlag) r.pipes = {s.to};
        r.sync = std::make_unique<SyncInfo>(std::move(s));
        break;
      }
      default: break;
    }
    r.scalar_block = Quantity::exact(times(times(r.scalar_instructions, lm), inst));
    r.issued_block = Quantity::exact(times(times(r.issued_instructions, lm), inst));
    r.scalar_instance = Quantity::exact(times(r.scalar_instructions, lm));
    r.issued_instance = Quantity::exact(times(r.issued_instructions, lm));
    auto buffers = [&](const char *key, std::vector<BufferRef> &out) {
      if (!o.contains(key) || !o[key].is_array()) return;
      for (const json &b : o[key]) {
        if (!b.is_string()) continue;
        std::string text_b = b.get<std::string>();
        auto it = buffer_ids.emplace(text_b, static_cast<uint32_t>(buffer_ids.size())).first;
        BufferRef ref;
        ref.kind = BufferRef::Kind::Alloc;
        ref.id = it->second;
        size_t sp = text_b.find("#hivm.address_space<");
        if (sp != std::string::npos) {
          size_t end = text_b.find('>', sp);
          ref.space = space_from_name(text_b.substr(sp + 20, end - sp - 20));
        }
        out.push_back(ref);
      }
    };
    buffers("read_buffers", r.reads);
    buffers("write_buffers", r.writes);
    r.eligibility.units = {r.pipes.empty() ? Word("none") : Word::of_static(pipe_name(r.pipes.back()))};
    r.eligibility.landed = r.eligibility.units[0];
    ++prog.histogram[r.name];
    prog.ops.push_back(std::move(r));
  }
  if (!views.empty()) views.back().end_op = static_cast<uint32_t>(prog.ops.size());
  for (FunctionView &v : views) {
    FunctionRecord &f = prog.functions[v.function];
    if (v.end_op > v.first_op) {
      f.first_op = v.first_op;
      f.last_op = v.end_op - 1;
    }
    v.innermost_loop.assign(v.end_op - v.first_op, -1);
  }
  if (zero_byte_transfers > 0)
    prog.warnings.push_back("DES defect: " + std::to_string(zero_byte_transfers) +
                            " transfer record(s) carry bytes = 0; their bytes are unknown");
  std::map<std::string, Unmodelled> unmodelled;
  for (const OpRecord &r : prog.ops) {
    if (!r.count.exact) continue;
    if (r.modelled) continue;
    Unmodelled &u = unmodelled[r.name];
    u.op = r.name;
    ++u.count;
    if (u.lines.size() < 32) u.lines.push_back(r.line);
    u.reason = r.unresolved_pipe.empty() ? "not in the op table" : r.unresolved_pipe.str();
  }
  for (auto &[n, u] : unmodelled) prog.unmodelled.push_back(u);
  for (const OpRecord &r : prog.ops) {
    const DataTotals &t = r.totals();
    if (t.flop.reason.find("DES defect") != std::string::npos)
      prog.unresolved.push_back({r.id, r.line, "flop", "null", t.flop.reason});
    if (r.cls == OpClass::Dma && !t.bytes.value) prog.unresolved.push_back({r.id, r.line, "bytes", "null", t.bytes.reason});
  }
  prog.lines_total = line_of_offset(text, text.size());
  analyze_sync(prog, views);
  return prog;
}

}  // namespace

}  // namespace pb::hivm
