//===- analyze.cpp - from HIVM text to a Program ---------------------------===//
#include "analyze.hpp"

#include <algorithm>
#include <deque>
#include <memory>

#include "counts.hpp"
#include "function_ir.hpp"
#include "lexer.hpp"
#include "op_quantities.hpp"
#include "op_syntax.hpp"
#include "parser.hpp"
#include "records.hpp"
#include "sync.hpp"
#include "tokens.hpp"
#include "trip_count.hpp"
#include "value_eval.hpp"
#include "walk.hpp"

namespace pb::hivm {

const char *core_name(CoreType core) {
  switch (core) {
    case CoreType::AIC: return "aic";
    case CoreType::AIV: return "aiv";
    case CoreType::Unknown: break;
  }
  return "unknown";
}

bool may_overlap(const BufferRef &a, const BufferRef &b) {
  using K = BufferRef::Kind;
  if (a.kind == K::Unknown || b.kind == K::Unknown)
    return a.space == b.space || a.space == Space::Unknown || b.space == Space::Unknown;
  if (a.space != b.space) return false;
  // Distinct kernel pointer arguments are assumed not to alias each other or the workspace.
  if (a.kind == K::Arg || b.kind == K::Arg) return a.kind == b.kind && a.id == b.id;
  if (a.kind == K::Alloc || b.kind == K::Alloc) return a.kind == b.kind && a.id == b.id;
  if (a.kind != b.kind || a.bytes < 0 || b.bytes < 0) return true;
  auto overlaps = [](int64_t x, int64_t xs, int64_t y, int64_t ys) {
    if (x < 0 || y < 0) return true;
    return x < y + ys && y < x + xs;
  };
  const int64_t abases[2] = {a.base0, a.base1};
  const int64_t bbases[2] = {b.base0, b.base1};
  for (int ai = 0; ai < (a.base1 >= 0 ? 2 : 1); ++ai)
    for (int bi = 0; bi < (b.base1 >= 0 ? 2 : 1); ++bi)
      if (overlaps(abases[ai], a.bytes, bbases[bi], b.bytes)) return true;
  return false;
}


namespace {

using namespace analysis;

/// The driver of one function: the walk builds the model, then the passes run in order --
/// launch binding, counts and quantities, records -- and the function's records are final.
class FunctionAnalyzer {
 public:
  FunctionAnalyzer(const Op &func, const FunctionContext &fctx, const AnalysisOptions &opts, const AliasMap &aliases,
                   Program &program, std::deque<std::string> &names,
                   std::vector<std::pair<uint32_t, std::string_view>> &pending_locs)
      : func_(func), fctx_(fctx), ir_(opts, aliases, program), scope_(names), ev_(ir_),
        walker_(ir_, scope_, ev_, pending_locs), trips_(ir_, ev_), quantities_(ir_, ev_),
        counts_(ir_, ev_, trips_, quantities_), records_(ir_, ev_, trips_, counts_) {}

  void run(FunctionView &view);

 private:
  const Op &func_;
  const FunctionContext &fctx_;
  FunctionIr ir_;
  SsaScope scope_;
  ValueEvaluator ev_;
  FunctionWalker walker_;
  TripCounter trips_;
  OpQuantities quantities_;
  ExecutionCounts counts_;
  RecordAssembler records_;
};

void FunctionAnalyzer::run(FunctionView &view) {
  ir_.fn_index = static_cast<uint32_t>(ir_.prog.functions.size());
  ir_.prog.functions.emplace_back();
  FunctionRecord &fr = ir_.prog.functions.back();
  fr.index = ir_.fn_index;
  fr.line = func_.line;
  fr.end_line = func_.end_line;
  fr.dump_header = std::string(fctx_.dump_header);
  TokSpan s = tokens_of(func_);
  TokSpan attrs;
  std::vector<BlockArg> sig_args;
  std::vector<TokSpan> arg_attrs;
  if (func_.generic) {
    GenericParts g = generic_parts(func_);
    if (auto name = named_attr(g.props, "sym_name")) fr.name = "@" + std::string((*name)[0].text.substr(1, (*name)[0].text.size() - 2));
    else if (auto name2 = named_attr(g.attrs, "sym_name")) fr.name = "@" + std::string((*name2)[0].text.substr(1, (*name2)[0].text.size() - 2));
    attrs = g.attrs;
    if (!func_.regions.empty() && !func_.regions[0].blocks.empty()) sig_args = func_.regions[0].blocks[0].args;
    arg_attrs.resize(sig_args.size());
  } else {
    size_t at = 0;
    while (at < s.size() && s[at].kind != Tok::AtId) ++at;
    if (at < s.size()) fr.name = std::string(s[at].text);
    if (at + 1 < s.size() && s[at + 1].kind == Tok::LParen)
      if (auto g = group_at(s, at + 1)) {
        for (TokSpan entry : split_top(g->first, Tok::Comma)) {
          if (entry.size() < 3 || entry[0].kind != Tok::PercentId) continue;
          BlockArg a;
          a.name = entry[0].text;
          a.line = entry[0].line;
          TokSpan type = entry.from(2);
          TokSpan attr;
          if (auto brace = find_top(type, Tok::LBrace)) {
            if (auto ag = group_at(type, *brace)) attr = ag->first;
            type = type.sub(0, *brace);
          }
          if (auto loc = find_loc(type)) type = type.sub(0, *loc);
          a.type = type.text();
          sig_args.push_back(a);
          arg_attrs.push_back(attr);
        }
      }
    if (auto kw = find_word(s, "attributes"))
      if (*kw + 1 < s.size() && s[*kw + 1].kind == Tok::LBrace)
        if (auto g = group_at(s, *kw + 1)) attrs = g->first;
  }
  if (fr.name.empty()) fr.name = "@<unnamed>";
  if (auto core = named_attr(attrs, "hivm.func_core_type")) {
    std::string_view w = enum_word(core->from(core->size() > 1 ? 1 : 0));
    if (w == "func_core_type") w = enum_word(core->from(2));
    for (size_t idx = 0; idx < core->size(); ++idx)
      if ((*core)[idx].kind == Tok::BareId) w = (*core)[idx].text;
    if (w == "AIC") fr.core = CoreType::AIC;
    else if (w == "AIV") fr.core = CoreType::AIV;
    fr.core_source = "hivm.func_core_type = " + std::string(w);
    if (w == "MIX") fr.core_source += " (not split into AIC/AIV parts)";
  }
  if (fr.core == CoreType::Unknown) {
    if (fr.name.size() > 8 && fr.name.substr(fr.name.size() - 8) == "_mix_aic") {
      fr.core = CoreType::AIC;
      fr.core_source = "function name suffix _mix_aic";
    } else if (fr.name.size() > 8 && fr.name.substr(fr.name.size() - 8) == "_mix_aiv") {
      fr.core = CoreType::AIV;
      fr.core_source = "function name suffix _mix_aiv";
    }
  }
  if (auto mm = named_attr(attrs, "mix_mode"); mm && !mm->empty() && (*mm)[0].kind == Tok::String)
    fr.mix_mode = std::string((*mm)[0].text.substr(1, (*mm)[0].text.size() - 2));
  const bool part_of_mix = named_attr(attrs, "hivm.part_of_mix").has_value() || fr.mix_mode == "mix";
  if (part_of_mix && fr.core != CoreType::Unknown) fr.mix_part = core_name(fr.core);
  ir_.instances = (part_of_mix && fr.core == CoreType::AIV) ? std::max<uint32_t>(1, ir_.opts.vector_cores_per_cube_core) : 1;
  fr.instances_per_block = ir_.instances;

  // Arguments.
  scope_.push();
  for (size_t idx = 0; idx < sig_args.size(); ++idx) {
    FunctionArg fa;
    fa.name = std::string(sig_args[idx].name);
    fa.type = std::string(sig_args[idx].type);
    Value v;
    v.kind = VKind::Arg;
    v.c = static_cast<int64_t>(idx);
    v.type = parse_type(sig_args[idx].type, &ir_.aliases);
    if (auto role = named_attr(arg_attrs[idx], "hacc.arg_type")) {
      std::string_view w;
      for (size_t t = 0; t < role->size(); ++t)
        if ((*role)[t].kind == Tok::BareId) w = (*role)[t].text;
      fa.role = std::string(w);
    }
    if (fa.role.empty()) fa.role = v.type.kind == Type::Kind::Memref ? "pointer" : "scalar";
    if (v.type.kind == Type::Kind::Memref) {
      MemrefInfo info = static_memref_info(v.type);
      BufferRef root;
      root.kind = BufferRef::Kind::Arg;
      root.space = v.type.space == Space::Unknown ? Space::GM : v.type.space;
      root.id = static_cast<uint32_t>(idx);
      if (fa.role == "workspace") {
        root.kind = BufferRef::Kind::Workspace;
        root.base0 = 0;
        root.bytes = -1;
      }
      info.roots.push_back(root);
      v.mem = ir_.new_mem(std::move(info));
    }
    fr.args.push_back(std::move(fa));
    ValueId id = ir_.add_value(std::move(v));
    ir_.arg_values.push_back(id);
    scope_.define(sig_args[idx].name, id);
  }
  ir_.first_record = static_cast<uint32_t>(ir_.prog.ops.size());
  PathNode root;
  root.kind = PathNode::Kind::Root;
  int32_t root_path = ir_.add_path(std::move(root));
  if (!func_.regions.empty()) {
    const Region &body = func_.regions[0];
    if (body.blocks.size() > 1)
      ir_.prog.warnings.push_back(fr.name + " (line " + std::to_string(fr.line) + ") has " +
                               std::to_string(body.blocks.size()) +
                               " blocks: ops in every block are counted as executed once");
    for (size_t bi = 0; bi < body.blocks.size(); ++bi) {
      const Block &block = body.blocks[bi];
      if (bi > 0 || !func_.generic) {
        if (bi > 0)
          for (const BlockArg &arg : block.args) {
            Value v;
            v.type = parse_type(arg.type, &ir_.aliases);
            scope_.define(arg.name, ir_.add_value(std::move(v)));
          }
      }
      for (const Op &op : block.ops) walker_.handle(op, root_path);
    }
  }
  scope_.pop();
  // Core type from the pipes used when the function does not say.
  if (ir_.prog.functions[ir_.fn_index].core == CoreType::Unknown && ir_.prog.functions[ir_.fn_index].core_source.empty()) {
    bool cube = false, vec = false;
    for (uint32_t r = ir_.first_record; r < ir_.prog.ops.size(); ++r)
      for (Pipe p : ir_.prog.ops[r].pipes) {
        cube = cube || p == Pipe::M || p == Pipe::MTE1 || p == Pipe::FIX;
        vec = vec || p == Pipe::V || p == Pipe::MTE3;
      }
    FunctionRecord &f2 = ir_.prog.functions[ir_.fn_index];
    if (cube != vec) {
      f2.core = cube ? CoreType::AIC : CoreType::AIV;
      f2.core_source = "inferred from the pipes used (InferCoreType.cpp rule)";
      for (uint32_t r = ir_.first_record; r < ir_.prog.ops.size(); ++r) ir_.prog.ops[r].core = f2.core;
    } else {
      f2.core_source = cube ? "uses both cube-only and vector-only pipes" : "no core type attribute and no core-specific pipe";
    }
  }
  ev_.bind_launch();
  counts_.compute_counts();
  records_.finish_records();
  records_.finish_function(view);
  for (const auto &[name, n] : ir_.histogram) ir_.prog.histogram[std::string(name)] += n;
}

}  // namespace

Program start_program(const AnalysisOptions &options) {
  Program prog;
  prog.vector_repeat_bytes = options.vector_repeat_bytes;
  prog.vector_repeat_source = options.vector_repeat_source;
  if (options.have_launch && !options.grid.empty()) {
    int64_t blocks = 1;
    for (int64_t g : options.grid) blocks *= g;
    prog.blocks = blocks;
    prog.grid = options.grid;
    prog.blocks_source = "launch.grid product";
  }
  return prog;
}

namespace {

using namespace analysis;

Program analyze_once(std::string_view text, const AnalysisOptions &options) {
  Program prog = start_program(options);
  FileReader reader(text);
  prog.ops.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 16);
  std::deque<std::string> owned_names;
  std::vector<std::pair<uint32_t, std::string_view>> pending_locs;
  std::vector<FunctionView> views;
  reader.read([&](const Op &func, const FunctionContext &fctx) {
    if (!options.kernel.empty()) {
      std::string_view name;
      for (const Token &t : func.tokens)
        if (t.kind == Tok::AtId) {
          name = t.text.substr(1);
          break;
        }
      if (name.substr(0, options.kernel.size()) != options.kernel) return;
    }
    FunctionAnalyzer analyzer(func, fctx, options, reader.aliases(), prog, owned_names, pending_locs);
    FunctionView view;
    analyzer.run(view);
    views.push_back(std::move(view));
  });
  if (prog.functions.empty())
    throw SourceError(1, 1, "no function named '" + options.kernel + "...' in the dump (launch.kernel)");
  prog.lines_total = reader.line_count() > 0 ? reader.line_count() - 1 : 0;
  prog.warnings.insert(prog.warnings.end(), reader.warnings().begin(), reader.warnings().end());  // verify.hpp
  for (const auto &[record, loc_text] : pending_locs) {
    Lexer lex(loc_text);
    std::vector<Token> toks;
    for (Token t = lex.next(); t.kind != Tok::Eof && toks.size() < 4096; t = lex.next()) toks.push_back(t);
    prog.ops[record].loc = location_of({toks.data(), toks.data() + toks.size()}, reader.aliases());
  }
  for (const TopLevelLine &l : reader.lines()) {
    if (l.kind == TopLevelLine::Kind::DumpHeader) {
      prog.dump_headers.emplace_back(l.text);
    } else {
      if (l.kind == TopLevelLine::Kind::Diagnostic) ++prog.diagnostics_lines;
      ++prog.skipped_lines;
      if (prog.diagnostics.size() < 64) prog.diagnostics.emplace_back(l.line, std::string(l.text));
    }
  }
  for (const auto &[name, line] : reader.declarations())
    prog.warnings.push_back("function declaration " + std::string(name) + " (line " + std::to_string(line) +
                            ") has no body: skipped");
  // Block count without a launch grid.
  if (!prog.blocks) {
    for (const FunctionRecord &f : prog.functions)
      if (f.block_num.known) {
        prog.blocks = f.block_num.value;
        prog.blocks_source = "logical_block_num annotation in " + f.name;
      }
    if (!prog.blocks) {
      std::string which;
      for (const FunctionRecord &f : prog.functions)
        if (!f.logical_block_num.empty()) which = f.logical_block_num + " in " + f.name;
      prog.blocks_reason = which.empty()
                               ? "no launch grid and no {logical_block_num} annotation"
                               : "no launch grid: the block count is the product of the grid arguments (" + which + ")";
    }
  }
  // Launch arguments that matched nothing.
  for (const auto &[key, value] : options.args) {
    bool used = false;
    for (const FunctionRecord &f : prog.functions)
      for (const FunctionArg &a : f.args)
        if (a.value_source.find("\"" + key + "\"") != std::string::npos) used = true;
    if (!used) {
      // Name the positions, since the dump's own %argN count the hidden
      // hacc arguments too and are not Triton positions.
      std::string positions;
      for (const FunctionRecord &f : prog.functions)
        for (const FunctionArg &a : f.args)
          if (a.triton_index && positions.find(" " + a.name + ")") == std::string::npos)
            positions += (positions.empty() ? "" : ", ") + std::to_string(*a.triton_index) + " (" + a.role + " " +
                         a.name + ")";
      prog.warnings.push_back("launch argument '" + key +
                              "' matches no HIVM argument (HIVM carries no argument names: key scalars by their "
                              "Triton position, \"%argN\" or \"N\", which is not the dump's own %argN; positions: " +
                              (positions.empty() ? std::string("none") : positions) + ")");
    }
  }
  // Unmodelled ops.
  std::map<std::string, Unmodelled> unmodelled;
  for (const OpRecord &r : prog.ops) {
    if (r.modelled) continue;
    Unmodelled &u = unmodelled[r.name];
    u.op = r.name;
    ++u.count;
    if (u.lines.size() < 32) u.lines.push_back(r.line);
    if (u.reason.empty())
      u.reason = !r.unresolved_pipe.empty() ? r.unresolved_pipe : (r.notes.empty() ? "not modelled" : r.notes[0]);
  }
  for (auto &[name, u] : unmodelled) prog.unmodelled.push_back(std::move(u));
  analyze_sync(prog, views);
  return prog;
}

std::string trip_fact_json(const TripFact &f) {
  std::string out = "{";
  auto put = [&](const char *name, const std::string &value) {
    out += (out.size() > 1 ? "," : "") + std::string("\"") + name + "\":" + value;
  };
  if (f.min) put("min", std::to_string(*f.min));
  if (f.max) put("max", std::to_string(*f.max));
  if (f.sum) {
    put("sum", std::to_string(*f.sum));
    put("over", f.sum_over_grid ? "\"grid\"" : "\"block\"");
  }
  return out + "}";
}

std::string data_fact_json(const DataFact &f) {
  std::string out = "{\"elements\":" + std::to_string(f.values.size());
  if (f.source != "inline") {
    std::string path;
    for (char c : f.source) {
      if (c == '"' || c == '\\') path += '\\';
      path += c;
    }
    out += ",\"npy\":\"" + path + "\"";
  } else if (f.values.size() <= 64) {
    out += ",\"values\":[";
    for (size_t k = 0; k < f.values.size(); ++k) out += (k ? "," : "") + std::to_string(f.values[k]);
    out += "]";
  }
  return out + "}";
}

/// Refuses trips facts the IR contradicts: no loop on the line, or a trip count it cannot reach.
void check_trip_facts(const Program &strict, const AnalysisOptions &options) {
  for (const TripFact &f : options.trips) {
    const LoopRecord *loop = nullptr;
    for (const LoopRecord &l : strict.loops)
      if (l.line == f.line) loop = &l;
    const std::string key = "launch trips.\"" + f.key + "\"";
    if (loop == nullptr)
      throw SourceError(f.line, 1, key + ": no scf.for on line " + std::to_string(f.line) + " of the dump");
    if (f.min && loop->trip_max_any != kInf && *f.min > loop->trip_max_any)
      throw SourceError(f.line, 1, key + ": min = " + std::to_string(*f.min) + " cannot hold: the loop runs at most " +
                                       std::to_string(loop->trip_max_any) + " times per entry");
    if (f.max && *f.max < loop->trip_min_any)
      throw SourceError(f.line, 1, key + ": max = " + std::to_string(*f.max) + " cannot hold: the loop runs at least " +
                                       std::to_string(loop->trip_min_any) + " times per entry");
    if (f.min && f.max && *f.min > *f.max)
      throw SourceError(f.line, 1, key + ": min = " + std::to_string(*f.min) + " is above max = " + std::to_string(*f.max));
    if (f.sum && !f.sum_over_grid && *f.sum < loop->iterations.min)
      throw SourceError(f.line, 1, key + ": sum = " + std::to_string(*f.sum) + " per block cannot hold: the loop runs at least " +
                                       std::to_string(loop->iterations.min) + " iterations in every block");
  }
}

}  // namespace

Program analyze_text(std::string_view text, const AnalysisOptions &options) {
  if (!options.has_facts()) return analyze_once(text, options);
  if (options.trips.size() + options.data.size() > 64)
    throw FactError("launch: at most 64 trips and data facts together");
  // The strict records first (no facts), then the same records under the facts.
  AnalysisOptions strict_options = options;
  strict_options.trips.clear();
  strict_options.data.clear();
  Program strict = analyze_once(text, strict_options);
  check_trip_facts(strict, options);
  Program given = analyze_once(text, options);
  auto facts = std::make_shared<GivenFacts>();
  for (const TripFact &f : options.trips) facts->facts.push_back({"trips.\"" + std::to_string(f.line) + "\"", trip_fact_json(f), {f.line}});
  for (const DataFact &f : options.data) {
    GivenFacts::Fact fact{"data.\"" + f.key + "\"", data_fact_json(f), {}};
    const auto index = static_cast<uint32_t>(&f - options.data.data());
    if (auto it = given.data_fact_lines.find(index); it != given.data_fact_lines.end())
      fact.lines.assign(it->second.begin(), it->second.end());
    facts->facts.push_back(std::move(fact));
  }
  for (std::string &w : given.warnings)
    if (std::find(strict.warnings.begin(), strict.warnings.end(), w) == strict.warnings.end())
      strict.warnings.push_back(std::move(w));
  facts->ops = std::move(given.ops);
  strict.given = std::move(facts);
  return strict;
}

}  // namespace pb::hivm
