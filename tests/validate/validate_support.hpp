//===- validate_support.hpp - helpers shared by the validate test files ---===//
#ifndef PERFBOUND_TESTS_VALIDATE_SUPPORT_HPP
#define PERFBOUND_TESTS_VALIDATE_SUPPORT_HPP

#include <filesystem>
#include <string>

#include <perfbound/sdk/json.hpp>

#include "measurement.hpp"
#include "support/test_support.hpp"

namespace pbtest::validate {

/// tests/validate/fixtures: small profiler files written by us.
inline std::filesystem::path fixtures() { return test_source_dir() / "validate" / "fixtures"; }

/// The message of the InputError `fn` throws ("" when it does not throw).
template <class Fn>
std::string error_of(Fn &&fn) {
  try {
    fn();
  } catch (const pb::sdk::InputError &e) {
    return e.what();
  }
  return "";
}

/// A measurement request: kernel name and warm-up launches to drop.
inline perfbound::validate::MeasureRequest request_for(const std::string &kernel, size_t warmup) {
  perfbound::validate::MeasureRequest request;
  request.kernel = kernel;
  request.warmup = warmup;
  return request;
}

}  // namespace pbtest::validate

#endif  // PERFBOUND_TESTS_VALIDATE_SUPPORT_HPP
