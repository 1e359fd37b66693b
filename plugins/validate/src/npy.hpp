//===- npy.hpp - NumPy .npy arrays and an allclose check ------------------===//
//
// Counterfactual runs check that the edited kernel still computes the same
// thing: the run step saves outputs as .npy (numpy.save), and the edited
// variant's outputs are compared with the baseline's like numpy.allclose:
// |actual - expected| <= atol + rtol * |expected| elementwise, equal
// infinities equal, NaN equal only with equal_nan. Format versions 1.0, 2.0
// and 3.0; little-, big- and native-endian floats, ints, unsigned and bool.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_NPY_HPP
#define PERFBOUND_VALIDATE_NPY_HPP

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <perfbound/sdk/json.hpp>

namespace perfbound::validate {

struct NpyArray {
  std::string descr;             // as written, e.g. "<f4"
  std::vector<uint64_t> shape;   // () for a scalar
  bool fortran_order = false;
  std::vector<double> values;    // in file order
};

/// Parses .npy bytes; throws InputError "origin: ..." for anything that is
/// not a well-formed .npy of a supported dtype.
NpyArray parse_npy(const std::string &bytes, const std::string &origin);
NpyArray read_npy(const std::filesystem::path &path);
/// Serializes values as a little-endian .npy (format 1.0) of dtype "<f4" or
/// "<f8", C order (tests and tools write reference files with it).
std::string write_npy(const std::vector<double> &values, const std::vector<uint64_t> &shape, const std::string &descr);

struct Tolerance {
  double rtol = 1e-5;  // numpy.allclose defaults
  double atol = 1e-8;
  bool equal_nan = false;
};

/// numpy.allclose(actual, expected) with the worst element named: a JSON
/// object {passed, elements, mismatches, max_abs_err, max_rel_err, worst,
/// rtol, atol, criterion}. Different shapes fail with a reason.
pb::sdk::json allclose(const NpyArray &actual, const NpyArray &expected, const Tolerance &tolerance);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_NPY_HPP
