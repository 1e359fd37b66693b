//===- driver.cpp - running the differential check on many programs -------===//
#include "driver.hpp"

#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

namespace pb::oracle_test {

using json = nlohmann::json;

Case generated_case(uint64_t seed) {
  Choices choices(seed);
  Program p = generate(choices);
  Case c;
  c.name = "seed " + std::to_string(seed);
  c.text = std::move(p.text);
  c.launch = std::move(p.launch);
  c.index_data = std::move(p.index_data);
  c.seed = seed;
  return c;
}

std::string regress_text(const Case &c) {
  json head = {{"launch", c.launch}, {"seed", c.seed}};
  json data = json::object();
  for (const auto &[k, v] : c.index_data) data[k] = v;
  head["index_data"] = data;
  return std::string(kRegressPrefix) + head.dump() + "\n" + c.text;
}

Case regress_case(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  const std::string prefix = kRegressPrefix;
  if (text.compare(0, prefix.size(), prefix) != 0)
    throw std::runtime_error(path + ":1: expected a first line '" + prefix + "{\"launch\": ..., \"seed\": N}'");
  const size_t eol = text.find('\n');
  json head = json::parse(text.substr(prefix.size(), eol - prefix.size()), nullptr, false);
  if (head.is_discarded() || !head.is_object() || !head.contains("launch"))
    throw std::runtime_error(path + ":1: the header is not a JSON object with a launch");
  Case c;
  c.name = path;
  c.text = text;  // the header is a comment: line numbers stay those of the file
  c.launch = head["launch"];
  c.seed = head.value("seed", uint64_t{1});
  if (head.contains("index_data") && head["index_data"].is_object())
    for (const auto &[k, v] : head["index_data"].items()) c.index_data[k] = v.get<std::vector<int64_t>>();
  return c;
}

std::string describe(const Case &c, const CheckReport &r) {
  std::ostringstream os;
  os << c.name << ": " << r.violations.size() << " violation(s), " << r.waived.size() << " known (waived)\n";
  os << "  launch given to the extractor: " << r.launch.dump() << "\n";
  if (!r.facts_summary.empty()) os << "  facts: " << r.facts_summary << "\n";
  if (r.enumeration_budget != 0) os << "  extractor enumeration budget: " << r.enumeration_budget << " per op\n";
  for (const Violation &v : r.violations) os << "  " << v.str() << "\n";
  for (const Violation &v : r.waived) os << "  " << v.str() << "\n";
  if (c.name.rfind("seed ", 0) == 0)
    os << "  reproduce: build/bin/perfbound_hivm_oracle_check --seed " << c.seed
       << "   (--print writes the program; --regress FILE writes a regression file)\n";
  else
    os << "  reproduce: build/bin/perfbound_hivm_oracle_check --file " << c.name << "\n";
  return os.str();
}

std::string BatchSummary::str() const {
  std::ostringstream os;
  os << programs << " programs: " << (programs - skipped) << " checked, " << skipped << " skipped by the oracle, " << failed
     << " with violations, " << waived << " with known (waived) review items; " << records << " op records, "
     << oracle_ops << " oracle op executions\n";
  os << "  critical path compared with the executed order in " << critical_path_checked << " programs\n";
  for (const auto &[k, n] : critical_path_skips) os << "  critical path not compared: " << n << " x " << k << "\n";
  for (const auto &[k, n] : skip_reasons) os << "  skipped: " << n << " x " << k << "\n";
  for (const auto &[k, n] : violation_classes) os << "  violation: " << n << " x " << k << "\n";
  for (const auto &[k, n] : waived_classes) os << "  known: " << n << " x " << k << "\n";
  std::string f;
  for (const auto &[k, n] : features) f += k + "=" + std::to_string(n) + " ";
  if (!f.empty()) os << "  features: " << f << "\n";
  if (!failing_seeds.empty()) {
    os << "  failing seeds:";
    for (size_t i = 0; i < failing_seeds.size() && i < 20; ++i) os << " " << failing_seeds[i];
    os << "\n" << first_failure;
  }
  return os.str();
}

BatchSummary run_batch(uint64_t first, uint64_t count, const CheckOptions &base, bool stop_at_failure) {
  BatchSummary s;
  for (uint64_t seed = first; seed < first + count; ++seed) {
    Choices choices(seed);
    Program p = generate(choices);
    Case c;
    c.name = "seed " + std::to_string(seed);
    c.seed = seed;
    c.text = p.text;
    c.launch = p.launch;
    c.index_data = p.index_data;
    CheckOptions opt = base;
    opt.seed = seed;
    CheckReport r = check_program(c.text, c.launch, c.index_data, opt);
    ++s.programs;
    std::string feat = p.features;
    for (size_t at = 0; at <= feat.size();) {
      size_t comma = feat.find(',', at);
      if (comma == std::string::npos) comma = feat.size();
      if (comma > at) ++s.features[feat.substr(at, comma - at)];
      at = comma + 1;
    }
    if (r.skipped) {
      ++s.skipped;
      std::string key = r.skip_reason.substr(0, r.skip_reason.find(':', 8));
      ++s.skip_reasons[key.substr(0, 120)];
      continue;
    }
    s.records += r.records;
    s.oracle_ops += r.oracle_ops;
    if (r.critical_path_compared > 0) ++s.critical_path_checked;
    else if (!r.critical_path_skip.empty()) ++s.critical_path_skips[r.critical_path_skip.substr(0, 80)];
    if (!r.waived.empty()) ++s.waived;
    for (const Violation &v : r.waived) ++s.waived_classes[v.known + ": " + v.cls];
    if (!r.violations.empty()) {
      ++s.failed;
      for (const Violation &v : r.violations) ++s.violation_classes[v.cls];
      s.failing_seeds.push_back(seed);
      if (s.first_failure.empty()) s.first_failure = describe(c, r);
      if (stop_at_failure) break;
    }
  }
  return s;
}

}  // namespace pb::oracle_test
