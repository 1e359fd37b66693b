//===- hivm_edit.cpp - counterfactual edits of a raw HIVM dump ------------===//
#include "hivm_edit.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <set>

namespace perfbound::validate {

namespace {

/// The dump as lines (without '\n'; a '\r' stays in its line).
struct Lines {
  std::vector<std::string> lines;
  bool final_newline = false;

  explicit Lines(const std::string &text) {
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) {
        lines.push_back(text.substr(start));
        return;
      }
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    final_newline = !text.empty();
  }
  [[nodiscard]] bool has(uint32_t line) const { return line >= 1 && line <= lines.size(); }
  [[nodiscard]] const std::string &at(uint32_t line) const { return lines[line - 1]; }
};

std::string trim(const std::string &text) {
  size_t first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  size_t last = text.find_last_not_of(" \t\r");
  return text.substr(first, last - first + 1);
}

std::vector<const json *> ops_on_line(const json &program, uint32_t line) {
  std::vector<const json *> out;
  for (const json &op : program["ops"])
    if (op.value("line", 0u) == line) out.push_back(&op);
  return out;
}

/// The one op on `line`, which must be `op_name` written on that line alone.
const json &single_op(const json &program, const Lines &lines, uint32_t line, const std::string &op_name,
                      const std::string &where) {
  if (!lines.has(line))
    throw pb::sdk::InputError(where + ": line " + std::to_string(line) + " is past the end of the dump (" +
                              std::to_string(lines.lines.size()) + " lines)");
  std::vector<const json *> ops = ops_on_line(program, line);
  const std::string text = trim(lines.at(line));
  if (ops.empty())
    throw pb::sdk::InputError(where + ": line " + std::to_string(line) + " holds no op the extractor read (it reads '" +
                              text.substr(0, 80) + "'); expected " + op_name);
  if (ops.size() > 1 || (*ops.front())["op"] != op_name)
    throw pb::sdk::InputError(where + ": line " + std::to_string(line) + " holds " + (*ops.front())["op"].get<std::string>() +
                              (ops.size() > 1 ? " and more" : "") + ", not " + op_name + " (refusing to edit the wrong op)");
  // A pretty-printed sync op fits on its line: `hivm.hir.x[...]` with the
  // brackets closed. Anything else (a multi-line or generic form) is not
  // edited by line.
  const std::string bare = op_name.substr(op_name.rfind('.') + 1);
  if (text.rfind(op_name, 0) != 0 || std::count(text.begin(), text.end(), '[') != std::count(text.begin(), text.end(), ']'))
    throw pb::sdk::InputError(where + ": line " + std::to_string(line) + " does not hold the whole " + bare +
                              " op on its own ('" + text.substr(0, 80) + "'); only single-line ops are edited");
  return *ops.front();
}

std::string bracket_args(const std::string &text) {
  size_t open = text.find('['), close = text.rfind(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return "";
  std::string inner = text.substr(open + 1, close - open - 1);
  inner.erase(std::remove(inner.begin(), inner.end(), ' '), inner.end());
  return inner;
}

const json *find_barrier(const json &program, uint32_t line) {
  for (const json &barrier : program["sync"]["barriers"])
    if (barrier.value("line", 0u) == line) return &barrier;
  return nullptr;
}

bool contains_line(const json &lines, uint32_t line) {
  for (const json &l : lines)
    if (l.get<uint32_t>() == line) return true;
  return false;
}

std::string lines_text(const json &lines) {
  std::string out;
  for (const json &l : lines) out += (out.empty() ? "" : ", ") + std::to_string(l.get<uint32_t>());
  return "[" + out + "]";
}

AppliedEdit remove_barrier(const json &program, const Lines &lines, const EditSpec &spec) {
  const json &op = single_op(program, lines, spec.line, "hivm.hir.pipe_barrier", spec.where);
  const json *barrier = find_barrier(program, spec.line);
  if (barrier == nullptr)
    throw pb::sdk::InputError(spec.where + ": the program lists no barrier at line " + std::to_string(spec.line));
  const std::string pipe = (*barrier)["pipe"].get<std::string>();
  if (spec.pipe && *spec.pipe != pipe)
    throw pb::sdk::InputError(spec.where + ": the barrier at line " + std::to_string(spec.line) + " drains PIPE_" + pipe +
                              ", not PIPE_" + *spec.pipe + " (refusing to edit the wrong op)");
  AppliedEdit edit;
  edit.spec = spec;
  edit.removed_lines = {spec.line};
  edit.removed_ops = {op["id"].get<int64_t>()};
  edit.record = {{"kind", "remove_barrier"},
                 {"line", spec.line},
                 {"text", trim(lines.at(spec.line))},
                 {"op", op["id"]},
                 {"core", (*barrier)["core"]},
                 {"pipe", pipe},
                 {"count_per_block", (*barrier)["count"]},
                 {"count_instance", op.value("count_instance", json(nullptr))},
                 {"extractor_kind", (*barrier)["kind"]},
                 {"extractor_reason", (*barrier)["reason"]}};
  if ((*barrier)["kind"] == "mandatory")
    edit.record["warning"] = "the extractor judges this barrier mandatory (" + (*barrier)["reason"].get<std::string>() +
                             "): without it the kernel may compute wrong results; verify its outputs";
  return edit;
}

AppliedEdit remove_sync_pair(const json &program, const Lines &lines, const EditSpec &spec) {
  const json &set = single_op(program, lines, spec.set_line, "hivm.hir.set_flag", spec.where);
  const json &wait = single_op(program, lines, spec.wait_line, "hivm.hir.wait_flag", spec.where);
  if (set["function"] != wait["function"])
    throw pb::sdk::InputError(spec.where + ": the set_flag at line " + std::to_string(spec.set_line) +
                              " and the wait_flag at line " + std::to_string(spec.wait_line) + " are in different functions");
  const std::string set_args = bracket_args(lines.at(spec.set_line)), wait_args = bracket_args(lines.at(spec.wait_line));
  if (set_args != wait_args)
    throw pb::sdk::InputError(spec.where + ": set_flag[" + set_args + "] at line " + std::to_string(spec.set_line) +
                              " and wait_flag[" + wait_args + "] at line " + std::to_string(spec.wait_line) +
                              " name different pipes or events");
  const json *handoff = nullptr;
  std::string partners;
  for (const json &h : program["sync"]["handoffs"]) {
    if (!contains_line(h.value("set_lines", json::array()), spec.set_line)) continue;
    partners += (partners.empty() ? "" : ", ") + lines_text(h.value("wait_lines", json::array()));
    if (contains_line(h.value("wait_lines", json::array()), spec.wait_line)) handoff = &h;
  }
  if (handoff == nullptr)
    throw pb::sdk::InputError(spec.where + ": the set_flag at line " + std::to_string(spec.set_line) + " and the wait_flag at line " +
                              std::to_string(spec.wait_line) + " are not one handoff of the program" +
                              (partners.empty() ? std::string(" (the set has no handoff)") : " (the set pairs with wait lines " + partners + ")"));
  AppliedEdit edit;
  edit.spec = spec;
  edit.removed_lines = {spec.set_line, spec.wait_line};
  edit.removed_ops = {set["id"].get<int64_t>(), wait["id"].get<int64_t>()};
  edit.record = {{"kind", "remove_sync_pair"},
                 {"set_line", spec.set_line},
                 {"wait_line", spec.wait_line},
                 {"text", {trim(lines.at(spec.set_line)), trim(lines.at(spec.wait_line))}},
                 {"ops", edit.removed_ops},
                 {"handoff", (*handoff)["id"]},
                 {"core", (*handoff)["core"]},
                 {"producer", (*handoff)["producer"]},
                 {"consumer", (*handoff)["consumer"]},
                 {"event", (*handoff)["event"]},
                 {"set_count_per_block", set["count"]},
                 {"extractor_kind", (*handoff)["kind"]},
                 {"extractor_reason", (*handoff)["reason"]}};
  if ((*handoff)["kind"] == "mandatory")
    edit.record["warning"] = "the extractor judges this handoff mandatory (" + (*handoff)["reason"].get<std::string>() +
                             "): without it the kernel may compute wrong results; verify its outputs";
  return edit;
}

AppliedEdit set_multi_buffer(const json &program, Lines &lines, const EditSpec &spec) {
  const json &op = single_op(program, lines, spec.line, "annotation.mark", spec.where);
  std::string &mark = lines.lines[spec.line - 1];
  static const std::regex kCount(R"(hivm\.multi_buffer\s*=\s*(\d+))");
  std::smatch match;
  if (!std::regex_search(mark, match, kCount))
    throw pb::sdk::InputError(spec.where + ": the annotation.mark at line " + std::to_string(spec.line) +
                              " carries no hivm.multi_buffer count");
  const int64_t current = std::stoll(match[1].str());
  if (spec.buffers == current)
    throw pb::sdk::InputError(spec.where + ": the buffer at line " + std::to_string(spec.line) + " already has " +
                              std::to_string(current) + " buffers (the edit would change nothing)");
  if (spec.buffers < 1 || spec.buffers > current)
    throw pb::sdk::InputError(spec.where + ": buffers = " + std::to_string(spec.buffers) + ": only lowering is supported (1.." +
                              std::to_string(current - 1) + "); more buffers need UB addresses the compiler did not allocate");
  static const std::regex kValue(R"(annotation\.mark\s+(%[A-Za-z0-9_$.\-]+))");
  std::smatch value_match;
  if (!std::regex_search(mark, value_match, kValue))
    throw pb::sdk::InputError(spec.where + ": cannot read which value the annotation.mark at line " + std::to_string(spec.line) + " marks");
  const std::string value = value_match[1].str();
  // The pointer_cast that defines the value, earlier in the same function.
  const int64_t function = op["function"].get<int64_t>();
  uint32_t cast_line = 0;
  for (const json &candidate : program["ops"]) {
    if (candidate["function"].get<int64_t>() != function || candidate["op"] != "hivm.hir.pointer_cast") continue;
    uint32_t l = candidate["line"].get<uint32_t>();
    if (l < spec.line && trim(lines.at(l)).rfind(value + " = hivm.hir.pointer_cast(", 0) == 0) cast_line = l;
  }
  if (cast_line == 0)
    throw pb::sdk::InputError(spec.where + ": no `" + value + " = hivm.hir.pointer_cast(...)` before line " +
                              std::to_string(spec.line) + " in its function");
  std::string &cast = lines.lines[cast_line - 1];
  size_t open = cast.find("pointer_cast(") + std::string("pointer_cast(").size();
  size_t close = cast.find(')', open);
  std::vector<std::string> addresses;
  std::string inner = cast.substr(open, close - open);
  for (size_t start = 0; start <= inner.size();) {
    size_t comma = inner.find(',', start);
    if (comma == std::string::npos) comma = inner.size();
    addresses.push_back(trim(inner.substr(start, comma - start)));
    start = comma + 1;
  }
  if (static_cast<int64_t>(addresses.size()) != current)
    throw pb::sdk::InputError(spec.where + ": the pointer_cast at line " + std::to_string(cast_line) + " has " +
                              std::to_string(addresses.size()) + " addresses but the annotation says " +
                              std::to_string(current) + " buffers");
  AppliedEdit edit;
  edit.spec = spec;
  edit.changed_lines = {cast_line, spec.line};
  const std::string cast_before = trim(cast), mark_before = trim(mark);
  std::string kept;
  for (int64_t idx = 0; idx < spec.buffers; ++idx) kept += (idx > 0 ? ", " : "") + addresses[static_cast<size_t>(idx)];
  cast = cast.substr(0, open) + kept + cast.substr(close);
  mark = std::string(match.prefix()) + "hivm.multi_buffer = " + std::to_string(spec.buffers) + std::string(match.suffix());
  edit.record = {{"kind", "set_multi_buffer"},
                 {"line", spec.line},
                 {"pointer_cast_line", cast_line},
                 {"value", value},
                 {"from", current},
                 {"to", spec.buffers},
                 {"before", {cast_before, mark_before}},
                 {"after", {trim(cast), trim(mark)}}};
  return edit;
}

std::set<uint32_t> removed_line_set(const EditResult &result) {
  std::set<uint32_t> removed;
  for (const AppliedEdit &edit : result.edits) removed.insert(edit.removed_lines.begin(), edit.removed_lines.end());
  return removed;
}

}  // namespace

EditResult apply_edits(const std::string &text, const json &program, const std::vector<EditSpec> &edits) {
  if (edits.empty()) throw pb::sdk::InputError("counterfactual: no edits given");
  if (!program.is_object() || program.value("schema", std::string()) != "perfbound.hivm_program/1")
    throw pb::sdk::InputError("counterfactual: the program is not a perfbound.hivm_program/1 document");
  Lines lines(text);
  EditResult result;
  std::set<uint32_t> touched;
  for (const EditSpec &spec : edits) {
    AppliedEdit edit;
    if (spec.kind == "remove_barrier")
      edit = remove_barrier(program, lines, spec);
    else if (spec.kind == "remove_sync_pair")
      edit = remove_sync_pair(program, lines, spec);
    else if (spec.kind == "set_multi_buffer")
      edit = set_multi_buffer(program, lines, spec);
    else
      throw pb::sdk::InputError(spec.where + ": unknown edit kind '" + spec.kind +
                                "'; known: remove_barrier, remove_sync_pair, set_multi_buffer");
    std::vector<uint32_t> edited = edit.removed_lines;
    edited.insert(edited.end(), edit.changed_lines.begin(), edit.changed_lines.end());
    for (uint32_t line : edited)
      if (!touched.insert(line).second)
        throw pb::sdk::InputError(spec.where + ": line " + std::to_string(line) + " is already edited by an earlier edit");
    result.edits.push_back(std::move(edit));
  }
  const std::set<uint32_t> removed = removed_line_set(result);
  std::string out;
  out.reserve(text.size());
  for (uint32_t line = 1; line <= lines.lines.size(); ++line) {
    if (removed.count(line) != 0) continue;
    out += lines.at(line);
    if (line < lines.lines.size() || lines.final_newline) out += '\n';
  }
  if (out == text) throw pb::sdk::InputError("counterfactual: the edits leave the dump unchanged");
  result.text = std::move(out);
  return result;
}

json check_reextraction(const json &before, const json &after, const EditResult &result) {
  const std::set<uint32_t> removed_lines = removed_line_set(result);
  std::set<int64_t> removed_ops;
  for (const AppliedEdit &edit : result.edits) removed_ops.insert(edit.removed_ops.begin(), edit.removed_ops.end());
  auto new_line = [&](uint32_t old) {
    return old - static_cast<uint32_t>(std::distance(removed_lines.begin(), removed_lines.lower_bound(old)));
  };
  json problems = json::array(), checks = json::array(), side_effects = json::array();
  auto problem = [&](const std::string &text) {
    if (problems.size() < 20) problems.push_back(text);
  };

  // 1. Op records: the original minus the removed ones, in order.
  std::vector<const json *> expected;
  std::map<std::string, double> removed_sync;  // op class -> executions per block removed
  for (const json &op : before["ops"]) {
    if (removed_ops.count(op["id"].get<int64_t>()) == 0) {
      expected.push_back(&op);
      continue;
    }
    double count = op["count"]["value"].is_number() ? op["count"]["value"].get<double>() : 0;
    removed_sync[op["class"].get<std::string>()] += count;
  }
  const json &after_ops = after["ops"];
  if (after_ops.size() != expected.size())
    problem("the edited program has " + std::to_string(after_ops.size()) + " ops; expected " + std::to_string(expected.size()) +
            " (" + std::to_string(before["ops"].size()) + " minus " + std::to_string(removed_ops.size()) + " removed)");
  for (size_t idx = 0; idx < std::min(after_ops.size(), expected.size()); ++idx) {
    const json &was = *expected[idx], &now = after_ops[idx];
    const uint32_t want_line = new_line(was["line"].get<uint32_t>());
    std::string what = was["op"].get<std::string>() + " (line " + std::to_string(was["line"].get<uint32_t>()) + ")";
    if (now["op"] != was["op"]) problem("op " + std::to_string(idx) + ": " + what + " became " + now["op"].get<std::string>());
    else if (now["line"].get<uint32_t>() != want_line)
      problem(what + " is at line " + std::to_string(now["line"].get<uint32_t>()) + ", expected " + std::to_string(want_line));
    else if (now["pipes"] != was["pipes"]) problem(what + ": pipes changed from " + was["pipes"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " to " + now["pipes"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    else if (now["count"]["value"] != was["count"]["value"])
      problem(what + ": executions per block changed from " + was["count"]["value"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + " to " + now["count"]["value"].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    else if (now.value("exec", json::object()) != was.value("exec", json::object()))
      problem(what + ": per-execution quantities changed");
  }
  checks.push_back("op records: the original " + std::to_string(before["ops"].size()) + " minus the " +
                   std::to_string(removed_ops.size()) + " removed, same names, lines (shifted), pipes, counts and "
                   "per-execution quantities");

  // 2. Work totals unchanged; sync totals lower by the removed executions.
  for (const char *scope : {"per_block", "per_block_min", "per_instance"}) {
    const json &was = before["totals"][scope], &now = after["totals"][scope];
    for (const char *core : {"aic", "aiv"}) {
      if (!was.contains(core) || was[core].is_null()) continue;
      if (!now.contains(core) || now[core].is_null()) {
        problem(std::string("totals.") + scope + "." + core + " disappeared");
        continue;
      }
      for (const char *part : {"vector", "cube", "mte"})
        if (was[core].value(part, json()) != now[core].value(part, json()))
          problem(std::string("totals.") + scope + "." + core + "." + part + " changed");
    }
  }
  checks.push_back("vector, cube and DMA totals identical per block, per block (minimum) and per instance");
  json sync_was = json::object(), sync_now = json::object();
  for (const char *core : {"aic", "aiv"}) {
    const json w = before["totals"]["per_block"].value(core, json(nullptr));
    const json n = after["totals"]["per_block"].value(core, json(nullptr));
    const json w_sync = w.is_object() ? w.value("sync", json::object()) : json::object();
    const json n_sync = n.is_object() ? n.value("sync", json::object()) : json::object();
    for (const auto &[key, value] : w_sync.items()) sync_was[key] = sync_was.value(key, 0.0) + value.get<double>();
    for (const auto &[key, value] : n_sync.items()) sync_now[key] = sync_now.value(key, 0.0) + value.get<double>();
  }
  for (const auto &[key, value] : sync_was.items()) {
    double want = value.get<double>() - removed_sync[key];
    double got = sync_now.value(key, 0.0);
    if (got != want)
      problem("totals.per_block sync." + key + " is " + std::to_string(got) + ", expected " + std::to_string(want));
  }
  checks.push_back("sync executions per block lower by exactly the removed ops' executions");

  // 3. The synchronisation graph: untouched barriers keep their place; a
  // changed judgement of one is a side effect worth showing, not an error.
  std::map<uint32_t, const json *> after_barriers;
  for (const json &b : after["sync"]["barriers"]) after_barriers[b["line"].get<uint32_t>()] = &b;
  size_t expected_barriers = 0;
  for (const json &b : before["sync"]["barriers"]) {
    uint32_t line = b["line"].get<uint32_t>();
    if (removed_lines.count(line) != 0) continue;
    ++expected_barriers;
    auto it = after_barriers.find(new_line(line));
    if (it == after_barriers.end() || (*it->second)["pipe"] != b["pipe"]) {
      problem("the barrier at line " + std::to_string(line) + " (PIPE_" + b["pipe"].get<std::string>() + ") is gone");
      continue;
    }
    if ((*it->second)["kind"] != b["kind"])
      side_effects.push_back("barrier at line " + std::to_string(line) + " (now " + std::to_string(new_line(line)) + "): " +
                             b["kind"].get<std::string>() + " -> " + (*it->second)["kind"].get<std::string>() + " (" +
                             (*it->second)["reason"].get<std::string>() + ")");
  }
  if (after_barriers.size() != expected_barriers)
    problem("the edited program has " + std::to_string(after_barriers.size()) + " barriers; expected " +
            std::to_string(expected_barriers));
  auto handoff_key = [](const json &h) {
    return h["core"].get<std::string>() + ":" + h["producer"].get<std::string>() + "->" + h["consumer"].get<std::string>() +
           " " + h["event"].get<std::string>();
  };
  std::map<std::string, const json *> after_handoffs;
  for (const json &h : after["sync"]["handoffs"]) after_handoffs[handoff_key(h) + lines_text(h.value("set_lines", json::array()))] = &h;
  for (const json &h : before["sync"]["handoffs"]) {
    json sets = json::array();
    for (const json &l : h.value("set_lines", json::array()))
      if (removed_lines.count(l.get<uint32_t>()) == 0) sets.push_back(new_line(l.get<uint32_t>()));
    if (sets.empty()) continue;  // the whole handoff was removed
    auto it = after_handoffs.find(handoff_key(h) + lines_text(sets));
    if (it == after_handoffs.end()) {
      problem("handoff " + handoff_key(h) + " (set lines " + lines_text(h.value("set_lines", json::array())) + ") is gone");
      continue;
    }
    if ((*it->second)["kind"] != h["kind"])
      side_effects.push_back("handoff " + handoff_key(h) + ": " + h["kind"].get<std::string>() + " -> " +
                             (*it->second)["kind"].get<std::string>());
  }
  checks.push_back("every untouched barrier and handoff is still there (judgements that changed are side effects)");
  for (const AppliedEdit &edit : result.edits)
    if (edit.spec.kind == "set_multi_buffer")
      checks.push_back("line " + std::to_string(edit.spec.line) +
                       ": the multi_buffer count is not part of perfbound.hivm_program/1; the edit itself is the text "
                       "shown in 'after', and everything the extractor reports stayed the same");
  return json{{"passed", problems.empty()}, {"checks", checks}, {"problems", problems}, {"side_effects", side_effects}};
}

}  // namespace perfbound::validate
