//===- plugin_check.cpp - `perfbound plugin check` ------------------------===//
#include "plugin_check.hpp"

#include <cstddef>
#include <cstring>
#include <sstream>

#include "engine.hpp"
#include "isolate.hpp"
#include "plugin_loader.hpp"
#include "run_context.hpp"

namespace perfbound {

namespace fs = std::filesystem;

size_t PluginCheckReport::failures() const {
  size_t n = 0;
  for (const CheckFinding &f : findings) n += f.status == "fail" ? 1 : 0;
  return n;
}

json PluginCheckReport::to_json() const {
  json j;
  j["schema"] = "perfbound.plugin_check/1";
  j["library"] = library.string();
  j["plugin"] = plugin_id.empty() ? json(nullptr) : json(plugin_id);
  j["failures"] = failures();
  j["findings"] = json::array();
  for (const CheckFinding &f : findings) j["findings"].push_back({{"check", f.check}, {"status", f.status}, {"detail", f.detail}});
  return j;
}

std::string PluginCheckReport::to_text() const {
  std::ostringstream os;
  os << "plugin check: " << library.string();
  if (!plugin_id.empty()) os << " (" << plugin_id << ")";
  os << "\n";
  for (const CheckFinding &f : findings) {
    os << "  [" << f.status << "] " << f.check;
    if (!f.detail.empty()) os << ": " << f.detail;
    os << "\n";
  }
  size_t fail = failures();
  os << (fail == 0 ? "OK: no violations\n" : std::to_string(fail) + " violation(s)\n");
  // One line per check, not wrapped: scripts and tests grep these lines
  // as they grep diagnostics (docs blocks that print them say wide=).
  return os.str();
}

namespace {

std::string status_name(pb_status st) {
  switch (st) {
    case PB_OK: return "PB_OK";
    case PB_ERR_INVALID_ARGUMENT: return "PB_ERR_INVALID_ARGUMENT";
    case PB_ERR_INVALID_INPUT: return "PB_ERR_INVALID_INPUT";
    case PB_ERR_VERSION: return "PB_ERR_VERSION";
    case PB_ERR_UNSUPPORTED: return "PB_ERR_UNSUPPORTED";
    case PB_ERR_RESOURCE: return "PB_ERR_RESOURCE";
    case PB_ERR_CANCELLED: return "PB_ERR_CANCELLED";
    case PB_ERR_INTERNAL: return "PB_ERR_INTERNAL";
    case PB_ERR_INFRA: return "PB_ERR_INFRA";
    default: return "status " + std::to_string(st);
  }
}

json findings_json(const std::vector<CheckFinding> &found) {
  json arr = json::array();
  for (const CheckFinding &f : found) arr.push_back({{"check", f.check}, {"status", f.status}, {"detail", f.detail}});
  return arr;
}

std::vector<CheckFinding> findings_from_json(const json &arr) {
  std::vector<CheckFinding> out;
  if (!arr.is_array()) return out;
  for (const json &f : arr)
    if (f.is_object()) out.push_back({f.value("check", ""), f.value("status", ""), f.value("detail", "")});
  return out;
}

std::string dump_safely(const json &j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

/// Runs `fn` in a child process; a crash, a hang or an exit becomes a finding.
std::vector<CheckFinding> isolated(const std::string &what, const std::function<std::vector<CheckFinding>(const PhaseFn &)> &fn) {
  IsolatedOutcome outcome = run_isolated([&](const PhaseFn &phase) { return dump_safely(findings_json(fn(phase))); },
                                         plugin_inspection_timeout());
  if (!outcome.answered) return {{what, "fail", outcome.failure}};
  json arr = json::parse(outcome.answer, nullptr, false);
  if (arr.is_discarded() || !arr.is_array()) return {{what, "fail", "the isolated check produced no result"}};
  return findings_from_json(arr);
}

json default_params(const KindInfo &kind, bool &has_required) {
  json params = json::object();
  has_required = false;
  for (const ParamInfo &p : kind.params) {
    if (p.required)
      has_required = true;
    else
      params[p.name] = p.default_value;
  }
  return params;
}

void sink_append(void *sink_data, const char *text, size_t size) {
  static_cast<std::string *>(sink_data)->append(text, size);
}

/// An example whose expected outcome is a refusal by create() (ABI 1.3):
/// create must return `expected` after logging an ERROR, and run is not called.
std::vector<CheckFinding> expect_create_refusal(const std::string &label, const pb_node_kind *kind, const std::string &params_text,
                                                pb_status expected, HostServices &host) {
  if (expected == PB_OK)
    return {{label + " create", "fail", "expected_at is PB_EXAMPLE_AT_CREATE but expected_status is PB_OK; a create-time example declares a refusal"}};
  pb_node *instance = nullptr;
  CallScope scope("check " + label);
  pb_status st = kind->create(kind, host.c_host(), "check", params_text.c_str(), &instance);
  if (st == PB_OK) {
    if (instance != nullptr) kind->destroy(instance);
    return {{label + " create", "fail", "create accepted the parameters; expected a refusal with " + status_name(expected)}};
  }
  if (st != expected)
    return {{label + " create", "fail", "create returned " + status_name(st) + ", expected " + status_name(expected) + ": " + scope.error_summary()}};
  if (scope.error_summary().empty())
    return {{label + " create", "fail", "create returned " + status_name(st) + " without logging an ERROR message explaining why"}};
  return {{label + " create", "pass", "refused as declared with " + status_name(st) + ": " + scope.error_summary()}};
}

/// create -> run -> destroy with the given inputs; checks status and outputs.
/// With `expected_at` PB_EXAMPLE_AT_CREATE, create must refuse instead.
std::vector<CheckFinding> exercise(const std::string &label, const pb_node_kind *kind, const KindInfo &info,
                                   const json &params, const std::vector<std::pair<std::string, DocumentPtr>> &inputs,
                                   std::optional<pb_status> expected, HostServices &host, const SchemaRegistry &schemas,
                                   const pb_ext_render *render, const PhaseFn &phase, uint32_t expected_at = PB_EXAMPLE_AT_RUN) {
  std::vector<CheckFinding> out;
  phase(label + " create");
  pb_node *instance = nullptr;
  std::string params_text = params.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (expected && expected_at == PB_EXAMPLE_AT_CREATE) return expect_create_refusal(label, kind, params_text, *expected, host);
  pb_status st = PB_ERR_INTERNAL;
  {
    CallScope scope("check " + label);
    st = kind->create(kind, host.c_host(), "check", params_text.c_str(), &instance);
    if (st != PB_OK) {
      out.push_back({label + " create", "fail", "create with valid parameters returned " + status_name(st) + ": " + scope.error_summary()});
      return out;
    }
  }
  if (instance == nullptr) {
    out.push_back({label + " create", "fail", "create returned PB_OK without an instance"});
    return out;
  }
  out.push_back({label + " create", "pass", ""});
  NodeRunContext ctx("check", info, host.logger());
  for (const auto &[port, doc] : inputs) ctx.add_input(port, doc);
  phase(label + " run");
  {
    CallScope scope("check " + label);
    st = kind->run(instance, ctx.c());
  }
  kind->destroy(instance);
  bool logged_error = false;
  for (const LogMessage &m : ctx.messages()) logged_error = logged_error || m.severity >= PB_SEVERITY_ERROR;
  for (const std::string &m : ctx.misuse()) out.push_back({label + " run", "fail", m});
  if (expected) {
    if (st != *expected)
      out.push_back({label + " run", "fail", "returned " + status_name(st) + ", expected " + status_name(*expected)});
    else
      out.push_back({label + " run", "pass", "returned " + status_name(st)});
  }
  if (st != PB_OK) {
    if (!logged_error)
      out.push_back({label + " run", "fail", "returned " + status_name(st) + " without logging an ERROR message explaining why"});
    return out;
  }
  for (const PortInfo &port : info.outputs) {
    auto it = ctx.outputs().find(port.name);
    if (it == ctx.outputs().end()) {
      out.push_back({label + " output '" + port.name + "'", "fail", "run returned PB_OK without setting this output"});
      continue;
    }
    Document doc(PB_ENCODING_JSON, port.schema, it->second, "check." + port.name);
    std::vector<std::string> problems = check_document(schemas, port.schema, doc, true);
    if (!schemas.has(port.schema)) problems.push_back("(note) no published JSON Schema for " + port.schema);
    bool real_problem = false;
    for (const std::string &p : problems) real_problem = real_problem || p.rfind("(note)", 0) != 0;
    std::string detail;
    for (const std::string &p : problems) detail += (detail.empty() ? "" : "; ") + p;
    out.push_back({label + " output '" + port.name + "'", real_problem ? "fail" : "pass", detail});
    if (render != nullptr && !real_problem) {
      phase(label + " render");
      for (const char *format : {"text", "md"}) {
        std::string text;
        pb_status rs = render->render(port.schema.c_str(), doc.data().c_str(), doc.data().size(), format, &sink_append, &text);
        if (rs != PB_OK && rs != PB_ERR_UNSUPPORTED)
          out.push_back({label + " render '" + port.name + "' as " + format, "fail", "render returned " + status_name(rs)});
        else if (rs == PB_OK && text.empty())
          out.push_back({label + " render '" + port.name + "' as " + format, "fail", "render returned PB_OK with empty text"});
      }
    }
  }
  return out;
}

}  // namespace

namespace {

/// The whole check, run in a child process by check_plugin().
PluginCheckReport check_in_child(const fs::path &library, HostServices &host, const SchemaRegistry &schemas,
                                 const PhaseFn &phase) {
  PluginCheckReport report;
  report.library = library;
  LoadedLibrary::OpenOptions options;
  options.keep_violations = true;
  options.on_phase = phase;
  auto opened = LoadedLibrary::open(library, host, options);
  if (!opened) {
    report.findings.push_back({"negotiation", "fail", opened.error().message});
    return report;
  }
  LoadedLibrary &lib = *opened->library;
  report.plugin_id = lib.info().id;
  report.findings.push_back({"negotiation", "pass", "ABI " + std::to_string(lib.info().abi_major) + "." + std::to_string(lib.info().abi_minor)});
  if (opened->violations.empty())
    report.findings.push_back({"descriptor", "pass", std::to_string(lib.info().kinds.size()) + " node kind(s)"});
  for (const std::string &v : opened->violations) report.findings.push_back({"descriptor", "fail", v});
  if (!opened->violations.empty()) return report;  // exercising a broken descriptor is unsafe

  phase("init");
  if (Status st = lib.initialize(host); !st) {
    report.findings.push_back({"init", "fail", st.error().message});
    return report;
  }
  report.findings.push_back({"init", "pass", ""});

  const auto *examples = static_cast<const pb_ext_examples *>(lib.extension(PB_EXT_EXAMPLES));
  const auto *render = static_cast<const pb_ext_render *>(lib.extension(PB_EXT_RENDER));
  for (const KindInfo &kinfo : lib.info().kinds) {
    const pb_node_kind *kind = lib.kind(kinfo.name);
    const std::string label = "kind '" + kinfo.name + "'";
    phase(label);
    auto findings = isolated(label, [&](const PhaseFn &kind_phase) {
      std::vector<CheckFinding> out;
      bool has_required = false;
      json params = default_params(kinfo, has_required);
      bool required_input = false;
      for (const PortInfo &p : kinfo.inputs) required_input = required_input || !p.optional() || !p.one_of.empty();
      if (has_required) {
        out.push_back({label + " without inputs", "skip", "has required parameters; exercised through its examples only"});
      } else {
        auto part = exercise(label + " without inputs", kind, kinfo, params, {}, std::nullopt, host, schemas, nullptr, kind_phase);
        if (required_input) {
          // exercise() reports a PB_OK run without outputs as output failures;
          // rephrase: a kind must not succeed with required inputs missing.
          std::vector<CheckFinding> rephrased;
          bool succeeded = false;
          for (const CheckFinding &f : part)
            if (f.check.find("output '") != std::string::npos) succeeded = true;
          for (const CheckFinding &f : part)
            if (f.check.find("output '") == std::string::npos) rephrased.push_back(f);
          if (succeeded)
            rephrased.push_back({label + " without inputs", "fail", "run returned PB_OK although required inputs were missing"});
          else
            rephrased.push_back({label + " without inputs", "pass", "refused missing required inputs cleanly"});
          part = rephrased;
        }
        out.insert(out.end(), part.begin(), part.end());
      }
      size_t used = 0;
      if (examples != nullptr) {
        for (uint32_t idx = 0; idx < examples->example_count; ++idx) {
          const pb_example *ex = examples->examples[idx];
          if (ex == nullptr || ex->kind == nullptr || kinfo.name != ex->kind) continue;
          ++used;
          std::string ex_label = label + " example '" + (ex->title != nullptr ? ex->title : "?") + "'";
          json ex_params = params;
          if (ex->params_json != nullptr) {
            json given = json::parse(ex->params_json, nullptr, false);
            if (given.is_discarded() || !given.is_object()) {
              out.push_back({ex_label, "fail", "params_json is not a JSON object"});
              continue;
            }
            for (const auto &[k, v] : given.items()) ex_params[k] = v;
          }
          std::vector<std::pair<std::string, DocumentPtr>> inputs;
          for (uint32_t in_idx = 0; in_idx < ex->input_count; ++in_idx) {
            const pb_example_input *in = ex->inputs[in_idx];
            if (in == nullptr || in->port == nullptr || in->schema == nullptr || in->data == nullptr) {
              out.push_back({ex_label, "fail", "example input " + std::to_string(in_idx) + " has NULL fields"});
              continue;
            }
            inputs.emplace_back(in->port, std::make_shared<const Document>(static_cast<pb_encoding>(in->encoding), in->schema,
                                                                           in->data, std::string("example:") + in->port));
          }
          // pb_example.expected_at is ABI 1.3: read only when the plugin's struct has it.
          uint32_t expected_at = ex->struct_size >= offsetof(pb_example, expected_at) + sizeof(ex->expected_at)
                                     ? ex->expected_at
                                     : PB_EXAMPLE_AT_RUN;
          if (expected_at != PB_EXAMPLE_AT_RUN && expected_at != PB_EXAMPLE_AT_CREATE) {
            out.push_back({ex_label, "fail", "expected_at is " + std::to_string(expected_at) +
                                                 "; known values are PB_EXAMPLE_AT_RUN (0) and PB_EXAMPLE_AT_CREATE (1)"});
            continue;
          }
          auto part = exercise(ex_label, kind, kinfo, ex_params, inputs, ex->expected_status, host, schemas, render, kind_phase,
                               expected_at);
          out.insert(out.end(), part.begin(), part.end());
        }
      }
      if (used == 0) out.push_back({label + " examples", "skip", "the plugin offers no example for this kind (perfbound.ext.examples/1)"});
      return out;
    });
    report.findings.insert(report.findings.end(), findings.begin(), findings.end());
  }
  return report;
}

}  // namespace

PluginCheckReport check_plugin(const fs::path &library, HostServices &host, const SchemaRegistry &schemas) {
  PluginCheckReport report;
  report.library = library;
  if (Status st = inspect_library_file(library); !st) {
    report.findings.push_back({"library file", "fail", st.error().message});
    return report;
  }
  report.findings.push_back({"library file", "pass", "ELF shared library exporting " PB_ENTRY_SYMBOL});
  // Everything that runs the library's code - its constructors included -
  // runs in a child: a crash, hang or exit there is a finding, not our end.
  // Each kind is isolated once more inside, with the same deadline, so the
  // outer deadline of a kind's phase leaves it 2 s more to report; load,
  // negotiate, describe and init get the documented deadline itself.
  IsolationLimits limits;
  limits.phase_timeout = plugin_inspection_timeout();
  limits.phase_slack = [](const std::string &phase) {
    return phase.rfind("kind '", 0) == 0 ? std::chrono::milliseconds(2000) : std::chrono::milliseconds(0);
  };
  IsolatedOutcome outcome = run_isolated(
      [&](const PhaseFn &phase) {
        PluginCheckReport inner = check_in_child(library, host, schemas, phase);
        return dump_safely({{"plugin", inner.plugin_id}, {"findings", findings_json(inner.findings)}});
      },
      limits);
  if (!outcome.answered) {
    std::string check = outcome.phase == "load" || outcome.phase == "negotiate" ? "negotiation" : outcome.phase;
    report.findings.push_back({check, "fail", outcome.failure});
    return report;
  }
  json answer = json::parse(outcome.answer, nullptr, false);
  if (answer.is_discarded() || !answer.is_object()) {
    report.findings.push_back({"check", "fail", "the child process checking the plugin gave no readable answer"});
    return report;
  }
  report.plugin_id = answer.value("plugin", "");
  auto found = findings_from_json(answer.value("findings", json::array()));
  report.findings.insert(report.findings.end(), found.begin(), found.end());
  return report;
}

}  // namespace perfbound
