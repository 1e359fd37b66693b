//===- term.cpp - one bound term (perfbound.bound_term/1) ------------------===//
#include "term.hpp"

#include "render_numbers.hpp"

#include <algorithm>

namespace pb::models {

const char *assurance_name(Assurance a) {
  switch (a) {
    case Assurance::Strict: return "strict";
    case Assurance::Given: return "given";
    case Assurance::Argued: return "argued";
    case Assurance::Diagnostic: return "diagnostic";
  }
  return "strict";
}

Assurance assurance_from(const std::string &name, Assurance fallback) {
  if (name == "strict") return Assurance::Strict;
  if (name == "given") return Assurance::Given;
  if (name == "argued") return Assurance::Argued;
  if (name == "diagnostic") return Assurance::Diagnostic;
  return fallback;
}

std::string human_seconds(double seconds) { return fmt::seconds(seconds); }

json Time::to_json() const {
  json out = json::object();
  out["value"] = seconds ? json(*seconds) : json(nullptr);
  out["unit"] = "s";
  if (!seconds) out["reason"] = reason.empty() ? std::string("unknown") : reason;
  return out;
}

Time Time::from_json(const json &value) {
  if (value.is_number()) return Time::known(value.get<double>());
  if (!value.is_object()) return Time::unknown("no value");
  auto v = value.find("value");
  if (v != value.end() && v->is_number()) return Time::known(v->get<double>());
  auto r = value.find("reason");
  return Time::unknown(r != value.end() && r->is_string() ? r->get<std::string>() : "unknown");
}

void Term::add_rate(const RateRecord &record, const std::string &use, const std::string &argument) {
  for (size_t idx = 0; idx < rates.size(); ++idx)
    if (rates[idx].source == record.source && rates[idx].name == record.name) return;
  rates.push_back(record);
  // A rate that may not enter a strict value is never "bound": what rests on
  // it is argued, and its argument is the profile's note.
  const bool demote = use == "bound" && !strict_kind(record.kind);
  rate_use.push_back(demote ? "argued" : use);
  rate_argument.push_back(demote && argument.empty() ? (record.note.empty() ? "the profile marks it " + std::string(rate_kind_name(record.kind)) : record.note)
                                                     : argument);
}

void Term::settle() {
  const ComponentValue *best = nullptr;
  const ComponentValue *best_strict = nullptr;
  bool any_unknown = false;
  std::string unknown_reason;
  for (const ComponentValue &cv : per_component) {
    if (cv.assurance == Assurance::Diagnostic) continue;
    if (!cv.value.seconds) {
      any_unknown = true;
      if (unknown_reason.empty()) unknown_reason = cv.key() + ": " + cv.value.reason;
      continue;
    }
    if (best == nullptr || *cv.value.seconds > *best->value.seconds) best = &cv;
    if (cv.strict_value.seconds &&
        (best_strict == nullptr || *cv.strict_value.seconds > *best_strict->strict_value.seconds))
      best_strict = &cv;
  }
  if (best == nullptr) {
    value = Time::unknown(unknown_reason.empty() ? "no component could be counted" : unknown_reason);
    strict_value = value;
    return;
  }
  value = best->value;
  component = best->component;
  core = best->core;
  strict_value = best_strict != nullptr ? best_strict->strict_value : Time::known(0);
  // The term rests on the weakest claim of any component that lifts it
  // above its strict value.
  assurance = Assurance::Strict;
  if (value.seconds && strict_value.seconds && *value.seconds > *strict_value.seconds)
    for (const ComponentValue &cv : per_component)
      if ((cv.assurance == Assurance::Argued || cv.assurance == Assurance::Given) && cv.value.seconds &&
          cv.strict_value.seconds && *cv.value.seconds > *cv.strict_value.seconds)
        assurance = weaker(assurance, cv.assurance);
  if (any_unknown)
    not_counted.push_back({"components with an unknown value", unknown_reason});
}

namespace {

/// `member` as an rvalue when the document is built from a term that is
/// done (Move), else as a const reference (copied into the document).
template <bool Move, class X>
decltype(auto) pass(X &member) {
  if constexpr (Move) return std::move(member);
  else return static_cast<const X &>(member);
}

template <bool Move, class T>
json term_document(T &t) {
  json doc = pb::sdk::make_document(kTermSchema);
  doc["term"] = t.name;
  doc["tier"] = t.tier;
  doc["role"] = t.role;
  doc["value"] = t.value.to_json();
  doc["strict_value"] = t.strict_value.to_json();
  doc["assurance"] = assurance_name(t.assurance);
  doc["sound"] = t.assurance == Assurance::Strict && t.value.seconds.has_value();
  doc["component"] = t.component.empty() ? json(nullptr) : json(t.component);
  doc["core"] = t.core.empty() ? json(nullptr) : json(t.core);
  json comps = json::array();
  for (auto &cv : t.per_component) {
    json c = json::object();
    c["component"] = cv.component;
    c["core"] = cv.core.empty() ? json(nullptr) : json(cv.core);
    c["value"] = cv.value.to_json();
    c["strict_value"] = cv.strict_value.to_json();
    c["assurance"] = assurance_name(cv.assurance);
    c["work"] = pass<Move>(cv.work);
    if (cv.rate.is_array()) c["rate"] = json{{"by_class", pass<Move>(cv.rate)}};
    else c["rate"] = pass<Move>(cv.rate);
    comps.push_back(std::move(c));
  }
  doc["per_component"] = std::move(comps);
  json rate_list = json::array();
  for (size_t idx = 0; idx < t.rates.size(); ++idx) {
    json r = t.rates[idx].to_json();
    r["use"] = t.rate_use[idx];
    if (!t.rate_argument[idx].empty()) r["argument"] = t.rate_argument[idx];
    rate_list.push_back(std::move(r));
  }
  doc["rates"] = std::move(rate_list);
  doc["work"] = pass<Move>(t.work);
  json nc = json::array();
  for (const NotCounted &n : t.not_counted) nc.push_back({{"what", n.what}, {"reason", n.reason}});
  doc["not_counted"] = std::move(nc);
  doc["evidence"] = pass<Move>(t.evidence);
  if (!t.schedule.is_null()) doc["schedule"] = pass<Move>(t.schedule);
  if (!t.formula.empty()) doc["formula"] = t.formula;
  doc["producer"] = pass<Move>(t.producer);
  return doc;
}

}  // namespace

json Term::to_json() const & { return term_document<false>(*this); }

json Term::to_json() && { return term_document<true>(*this); }

namespace {
std::string str(const json &obj, const char *key) {
  if (!obj.is_object()) return {};
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}
}  // namespace

Term Term::from_json(const json &doc, const std::string &origin, Read read) {
  const bool all = read == Read::All;
  const std::string where = origin + ": perfbound.bound_term/1";
  Term t;
  t.name = pb::sdk::require_string(doc, "term", where);
  t.tier = pb::sdk::require_string(doc, "tier", where);
  t.role = pb::sdk::require_string(doc, "role", where);
  if (t.tier != "dsl" && t.tier != "hivm") throw pb::sdk::InputError(where + ": tier must be dsl or hivm");
  if (t.role != "floor" && t.role != "additive") throw pb::sdk::InputError(where + ": role must be floor or additive");
  t.value = Time::from_json(pb::sdk::require(doc, "value", where));
  // A vendor term without `assurance` is strict when it says it is sound,
  // diagnostic otherwise.
  bool sound = doc.contains("sound") && doc["sound"].is_boolean() && doc["sound"].get<bool>();
  t.assurance = assurance_from(str(doc, "assurance"), sound ? Assurance::Strict : Assurance::Diagnostic);
  t.strict_value = doc.contains("strict_value") ? Time::from_json(doc["strict_value"])
                   : t.assurance == Assurance::Strict ? t.value
                                                      : Time::known(0);
  t.component = str(doc, "component");
  t.core = str(doc, "core");
  if (doc.contains("per_component") && doc["per_component"].is_array()) {
    for (const json &c : doc["per_component"]) {
      ComponentValue cv;
      cv.component = str(c, "component");
      cv.core = str(c, "core");
      cv.value = c.contains("value") ? Time::from_json(c["value"]) : Time::unknown("no value");
      cv.assurance = assurance_from(str(c, "assurance"), t.assurance);
      cv.strict_value = c.contains("strict_value") ? Time::from_json(c["strict_value"])
                        : cv.assurance == Assurance::Strict ? cv.value
                                                            : Time::known(0);
      if (c.contains("work")) cv.work = c["work"];
      if (all && c.contains("rate")) cv.rate = c["rate"];
      t.per_component.push_back(std::move(cv));
    }
  }
  if (all && doc.contains("rates") && doc["rates"].is_array()) {
    for (const json &r : doc["rates"]) {
      RateRecord rec;
      rec.name = str(r, "name");
      if (r.contains("value") && r["value"].is_number()) rec.value = r["value"].get<double>();
      rec.unit = str(r, "unit");
      std::string kind = str(r, "kind");
      rec.kind = kind == "peak"        ? RateKind::Peak
                 : kind == "sustained" ? RateKind::Sustained
                 : kind == "argued"    ? RateKind::Argued
                                       : RateKind::Theoretical;
      rec.source = str(r, "source");
      rec.note = str(r, "note");
      std::string use = str(r, "use");
      t.rates.push_back(rec);
      t.rate_use.push_back(use.empty() ? "bound" : use);
      t.rate_argument.push_back(str(r, "argument"));
    }
  }
  if (all && doc.contains("work")) t.work = doc["work"];
  if (doc.contains("not_counted") && doc["not_counted"].is_array())
    for (const json &n : doc["not_counted"]) t.not_counted.push_back({str(n, "what"), str(n, "reason")});
  if (all && doc.contains("evidence") && doc["evidence"].is_array()) t.evidence = doc["evidence"];
  if (doc.contains("schedule")) t.schedule = doc["schedule"];
  if (all && doc.contains("producer")) t.producer = doc["producer"];
  t.formula = str(doc, "formula");
  return t;
}

}  // namespace pb::models
