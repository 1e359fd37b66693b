//===- hivm_test_util.hpp - helpers for the extract_hivm tests -------------===//
#ifndef PERFBOUND_TESTS_EXTRACT_HIVM_UTIL_HPP
#define PERFBOUND_TESTS_EXTRACT_HIVM_UTIL_HPP

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "analyze.hpp"
#include "ir.hpp"
#include "parser.hpp"
#include "program.hpp"
#include "support/test_support.hpp"

namespace hivmtest {

inline std::string shared_hivm(const std::string &name) {
  return pbtest::read_file(pbtest::shared_dir() / "data" / "hivm" / name);
}

inline std::string test_data(const std::string &name) {
  return pbtest::read_file(std::filesystem::path(PB_HIVM_TEST_DATA) / name);
}

inline pb::hivm::AnalysisOptions launch(std::vector<int64_t> grid, std::map<std::string, double> args = {}) {
  pb::hivm::AnalysisOptions o;
  o.have_launch = true;
  o.grid = std::move(grid);
  for (const auto &[key, value] : args) o.args[key] = value;
  return o;
}

/// The records on a line (several ops never share a line in these dumps, but be safe).
inline std::vector<const pb::hivm::OpRecord *> at_line(const pb::hivm::Program &p, uint32_t line) {
  std::vector<const pb::hivm::OpRecord *> out;
  for (const pb::hivm::OpRecord &r : p.ops)
    if (r.line == line) out.push_back(&r);
  return out;
}

/// The single op on `line`; fails the test when there is none.
inline const pb::hivm::OpRecord &op_at(const pb::hivm::Program &p, uint32_t line) {
  auto ops = at_line(p, line);
  REQUIRE_MESSAGE(ops.size() == 1, "expected one op on line " << line << ", found " << ops.size());
  return *ops[0];
}

/// The kernels of a file as launch.kernel selections: "NAME:LINE" for every
/// function of every input of a lit file (inputs cut at its `// -----` lines;
/// an input that cannot be read gives none), or one empty selection (the whole
/// file) for a file that is not one.
inline std::vector<std::string> kernels_of(const std::string &text) {
  if (!pb::hivm::has_split_marker_line(text)) return {""};
  std::vector<std::string> out;
  for (const pb::hivm::Section &s : pb::hivm::split_sections(text)) {
    pb::hivm::FileReader reader(std::string_view(text).substr(s.begin, s.end - s.begin), s.first_line);
    try {
      for (const pb::hivm::FunctionSite &site : reader.list_functions())
        out.push_back(site.name + ":" + std::to_string(site.line));
    } catch (const pb::hivm::SourceError &) {
    }
  }
  return out;
}

/// `o` with launch.kernel = `kernel`.
inline pb::hivm::AnalysisOptions with_kernel(pb::hivm::AnalysisOptions o, const std::string &kernel) {
  o.kernel = kernel;
  return o;
}

/// The error a malformed text produces (SourceError), or "" when it parses.
struct ParseFailure {
  uint32_t line = 0;
  uint32_t col = 0;
  std::string message;
};
inline ParseFailure failure_of(const std::string &text) {
  try {
    (void)pb::hivm::analyze_text(text, {});
  } catch (const pb::hivm::SourceError &e) {
    return {e.line(), e.col(), e.what()};
  }
  return {};
}

inline int64_t value(const pb::hivm::Quantity &q) {
  REQUIRE_MESSAGE(q.value.has_value(), "quantity unknown: " << q.reason);
  return *q.value;
}

}  // namespace hivmtest

#endif  // PERFBOUND_TESTS_EXTRACT_HIVM_UTIL_HPP
