//===- analyze.cpp - from HIVM text to a Program ---------------------------===//
#include "analyze.hpp"

#include <algorithm>
#include <deque>
#include <memory>
#include <set>

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
  walker_.walk_function(func_, fctx_);
  ev_.bind_launch();
  counts_.compute_counts();
  records_.finish_records();
  records_.finish_function(view);
  for (const auto &[name, n] : ir_.histogram) ir_.prog.histogram[std::string(name)] += n;
  // A function analysed as a mix kernel (walk.cpp): its AIV part. One AIC and
  // `vector_cores_per_cube_core` AIVs run a block of a mix kernel; the vector
  // ops' per-block work is the function's, shared by those AIVs.
  FunctionRecord &aic = ir_.prog.functions[ir_.fn_index];
  if (aic.split_mix) {
    FunctionRecord aiv = aic;
    aiv.index = static_cast<uint32_t>(ir_.prog.functions.size());
    aiv.core = CoreType::AIV;
    aiv.mix_part = "aiv";
    aiv.instances_per_block = std::max<uint32_t>(1, ir_.opts.vector_cores_per_cube_core);
    aiv.split_mix = false;
    ir_.prog.functions.push_back(std::move(aiv));
  }
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

/// launch.kernel: "NAME" or "NAME:LINE".
struct Selection {
  std::string name;
  uint32_t line = 0;  // 0: any
  [[nodiscard]] bool empty() const { return name.empty(); }
  [[nodiscard]] std::string text() const { return line ? name + ":" + std::to_string(line) : name; }
};

Selection parse_selection(const std::string &kernel) {
  Selection sel;
  sel.name = kernel;
  if (!sel.name.empty() && sel.name[0] == '@') sel.name.erase(0, 1);
  const size_t colon = sel.name.rfind(':');
  if (colon != std::string::npos && colon + 1 < sel.name.size() &&
      sel.name.find_first_not_of("0123456789", colon + 1) == std::string::npos && colon + 1 + 9 >= sel.name.size()) {
    sel.line = static_cast<uint32_t>(std::stoul(sel.name.substr(colon + 1)));
    sel.name.erase(colon);
  }
  return sel;
}

/// Which functions of one input a selection takes: the ones named exactly, else
/// the ones whose name starts with it (a mix kernel's _mix_aic/_mix_aiv halves).
bool exact_match(std::string_view function, const Selection &sel) { return function == sel.name; }
bool prefix_match(std::string_view function, const Selection &sel) {
  return function.substr(0, sel.name.size()) == sel.name;
}

std::string site_list(const std::vector<std::pair<size_t, FunctionSite>> &sites) {
  std::string list;
  size_t shown = 0;
  for (const auto &[section, site] : sites) {
    if (shown++ == 24) {
      list += ", and " + std::to_string(sites.size() - 24) + " more";
      break;
    }
    list += (list.empty() ? "" : ", ") + site.name + ":" + std::to_string(site.line);
  }
  return list.empty() ? "none" : list;
}

/// The input of a lit file to analyse (split_sections), chosen by the selection.
Section choose_section(std::string_view text, const std::vector<Section> &sections, const Selection &sel) {
  std::vector<std::pair<size_t, FunctionSite>> sites;
  std::vector<std::pair<size_t, SourceError>> unreadable;
  for (size_t idx = 0; idx < sections.size(); ++idx) {
    const Section &sec = sections[idx];
    FileReader reader(text.substr(sec.begin, sec.end - sec.begin), sec.first_line);
    try {
      for (FunctionSite &site : reader.list_functions()) sites.emplace_back(idx, std::move(site));
    } catch (const SourceError &e) {
      unreadable.emplace_back(idx, e);
    }
  }
  auto only_section = [&](const std::vector<std::pair<size_t, FunctionSite>> &matches) -> std::optional<size_t> {
    std::optional<size_t> section;
    for (const auto &[idx, site] : matches) {
      if (section && *section != idx) return std::nullopt;
      section = idx;
    }
    return section;
  };
  auto unreadable_note = [&]() -> std::string {
    if (unreadable.empty()) return {};
    const SourceError &e = unreadable.front().second;
    return "; " + std::to_string(unreadable.size()) + " input(s) could not be read, the first at line " +
           std::to_string(e.line()) + ": " + e.what();
  };
  if (sel.empty()) {
    if (sites.empty()) {
      if (!unreadable.empty()) throw unreadable.front().second;
      throw SourceError(sections.back().first_line, 1,
                        "no function with a body found in any of the " + std::to_string(sections.size()) +
                            " inputs of this lit file (cut at its '// -----' lines; split = auto)");
    }
    if (std::optional<size_t> idx = only_section(sites)) return sections[*idx];
    std::set<size_t> with_functions;
    for (const auto &entry : sites) with_functions.insert(entry.first);
    throw SourceError(1, 1,
                      "this lit file holds functions in " + std::to_string(with_functions.size()) +
                          " of its inputs (cut at its '// -----' lines; split = auto); choose one with launch.kernel = "
                          "\"NAME\" or \"NAME:LINE\", or read the file whole with split = off (kernels: " +
                          site_list(sites) + ")" + unreadable_note());
  }
  std::vector<std::pair<size_t, FunctionSite>> matches;
  for (int pass = 0; pass < 2 && matches.empty(); ++pass)
    for (const auto &entry : sites)
      if ((pass == 0 ? exact_match(entry.second.name, sel) : prefix_match(entry.second.name, sel)) &&
          (sel.line == 0 || entry.second.line == sel.line))
        matches.push_back(entry);
  if (matches.empty())
    throw FactError("launch.kernel = \"" + sel.text() + "\": no such kernel in this lit file (kernels: " +
                    site_list(sites) + ")" + unreadable_note());
  if (std::optional<size_t> idx = only_section(matches)) return sections[*idx];
  throw FactError("launch.kernel = \"" + sel.text() + "\" matches kernels in " + std::to_string(matches.size()) +
                  " places of this lit file; choose one with \"NAME:LINE\" (candidates: " + site_list(matches) + ")");
}

Program analyze_once(std::string_view whole, const AnalysisOptions &options) {
  Program prog = start_program(options);
  const Selection sel = parse_selection(options.kernel);
  // A lit file: its inputs are separate modules; one is read.
  std::string_view text = whole;
  uint32_t first_line = 1;
  const bool split = options.split == SplitMode::On || (options.split == SplitMode::Auto && has_split_marker_line(whole));
  if (split) {
    std::vector<Section> sections = split_sections(whole);
    if (sections.size() > 1) {
      Section chosen = choose_section(whole, sections, sel);
      text = whole.substr(chosen.begin, chosen.end - chosen.begin);
      first_line = chosen.first_line;
      prog.warnings.push_back("lit file: " + std::to_string(sections.size()) + " inputs cut at its '// -----' lines; "
                              "the one at line " + std::to_string(first_line) + " is analysed");
    }
  }
  FileReader reader(text, first_line);
  prog.ops.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 16);
  std::deque<std::string> owned_names;
  std::vector<std::pair<uint32_t, std::string_view>> pending_locs;
  std::vector<FunctionView> views;
  // The functions the selection takes (exact names, else prefixes), decided
  // once every function of the input has been seen: the whole input is read
  // first only when a selection is given.
  std::vector<FunctionSite> sites;
  bool use_prefix = false;
  if (!sel.empty()) {
    FileReader lister(text, first_line);
    sites = lister.list_functions();
    bool exact = false, at_line = sel.line == 0;
    for (const FunctionSite &site : sites) exact = exact || exact_match(site.name, sel);
    use_prefix = !exact;
    for (const FunctionSite &site : sites)
      if (site.line == sel.line && (use_prefix ? prefix_match(site.name, sel) : exact_match(site.name, sel))) at_line = true;
    bool any = false;
    for (const FunctionSite &site : sites) any = any || (use_prefix ? prefix_match(site.name, sel) : exact_match(site.name, sel));
    if (!any || !at_line) {
      std::vector<std::pair<size_t, FunctionSite>> listed;
      for (const FunctionSite &site : sites) listed.emplace_back(0, site);
      throw FactError("launch.kernel = \"" + sel.text() + "\": no such kernel in the dump (kernels: " + site_list(listed) + ")");
    }
  }
  reader.read([&](const Op &func, const FunctionContext &fctx) {
    if (!sel.empty()) {
      std::string name = symbol_of(func);
      if (!name.empty()) name.erase(0, 1);
      if (!(use_prefix ? prefix_match(name, sel) : exact_match(name, sel))) return;
    }
    FunctionAnalyzer analyzer(func, fctx, options, reader.aliases(), prog, owned_names, pending_locs);
    FunctionView view;
    analyzer.run(view);
    views.push_back(std::move(view));
  });
  // Functions no core could be put on: refused when no other function has one,
  // else named (their work is listed as not counted, on no core).
  {
    const FunctionRecord *unplaced = nullptr;
    bool placed = false;
    for (const FunctionRecord &f : prog.functions) {
      if (f.core != CoreType::Unknown) placed = true;
      else if (unplaced == nullptr) unplaced = &f;
    }
    auto why = [](const FunctionRecord &f) {
      return "function " + f.name + " (line " + std::to_string(f.line) + ") has no core type: " + f.core_source;
    };
    if (unplaced != nullptr && !placed)
      throw SourceError(unplaced->line, 1,
                        why(*unplaced) + "; no bound can be put on a core (give the function "
                                         "hivm.func_core_type = #hivm.func_core_type<AIV> or <AIC>)");
    for (const FunctionRecord &f : prog.functions)
      if (f.core == CoreType::Unknown) prog.warnings.push_back(why(f) + ": its ops are on no core and not in the bound");
  }
  prog.lines_total = static_cast<uint32_t>(std::count(whole.begin(), whole.end(), '\n')) +
                     (!whole.empty() && whole.back() != '\n' ? 1 : 0);
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
  // Launch arguments that matched nothing: the user's mistake (a typo, a
  // name the dump cannot resolve), refused unless listed as optional.
  for (const auto &[key, value] : options.args) {
    bool used = false;
    for (const FunctionRecord &f : prog.functions)
      for (const FunctionArg &a : f.args)
        if (a.value_source.find("\"" + key + "\"") != std::string::npos) used = true;
    if (used || std::find(options.optional_args.begin(), options.optional_args.end(), key) != options.optional_args.end())
      continue;
    // Name the positions, since the dump's own %argN count the hidden
    // hacc arguments too and are not Triton positions.
    std::string positions;
    for (const FunctionRecord &f : prog.functions)
      for (const FunctionArg &a : f.args)
        if (a.triton_index && positions.find(" " + a.name + ")") == std::string::npos)
          positions += (positions.empty() ? "" : ", ") + std::to_string(*a.triton_index) + " (" + a.role + " " + a.name +
                       (a.loc_name.empty() ? std::string() : " " + a.loc_name) + ")";
    const bool positional = key.find_first_not_of("0123456789") == std::string::npos ||
                            (key.rfind("%arg", 0) == 0 && key.size() > 4 &&
                             key.find_first_not_of("0123456789", 4) == std::string::npos);
    std::string why = positional ? "the kernel has no Triton argument at that position"
                      : options.arg_names_source.empty()
                          ? "the HIVM dump carries no argument names and no TTIR signature is wired in (pipelines/bound.toml "
                            "wires one); key it by its Triton position \"N\", which is not the dump's own %argN"
                          : "no argument has that name in " + options.arg_names_source;
    throw FactError("launch.args.\"" + key + "\" matches no argument of the kernel: " + why + " (Triton positions: " +
                    (positions.empty() ? std::string("none") : positions) +
                    "); a key that may match nothing goes in launch.optional_args");
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
      u.reason = !r.unresolved_pipe.empty() ? r.unresolved_pipe.str() : (r.notes.empty() ? "not modelled" : r.notes[0]);
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
