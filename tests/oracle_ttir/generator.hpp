//===- generator.hpp - random well-formed TTIR kernels for the oracle -----===//
//
// generate(seed) writes one kernel in the printed form of Triton 3.x and a
// launch for it, reproducibly from the seed: 1-D blocks or 2-D tiles (f32 or
// f16), one to three inputs, offsets with optional strides and `% n`
// wrap-around (repeated bytes), masks on the tail (or none), an optional
// scf.for over chunks carrying an accumulator (re-reads and overlaps between
// iterations), an optional scf.while counter loop, elementwise chains
// (add, mul, max, select on a data compare, exp), an optional scf.if around
// the store (on the program id's parity or a flag argument), an optional
// reduction stored per program. Grids of 1 to 5 programs per axis, sizes
// that leave tails.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TESTS_ORACLE_TTIR_GENERATOR_HPP
#define PERFBOUND_TESTS_ORACLE_TTIR_GENERATOR_HPP

#include <cstdint>
#include <string>

#include "ttir_oracle.hpp"

namespace oracletest {

struct Generated {
  std::string text;                  // the TTIR
  perfbound::ttir_oracle::json launch;
  std::string shape;                 // what was drawn, for messages
};

Generated generate(std::uint64_t seed);

}  // namespace oracletest

#endif  // PERFBOUND_TESTS_ORACLE_TTIR_GENERATOR_HPP
