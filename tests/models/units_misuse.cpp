//===- units_misuse.cpp - model terms fed the wrong unit must not compile --===//
//
// Each case is built twice by tests/models/CMakeLists.txt: with
// -DPB_MODELS_UNITS_OK the correct call (part of the normal build, so a typo
// breaks the build instead of passing the test), without it the call that
// feeds a term the wrong unit, built only by the ctest, which passes when
// the compiler prints the units error.
//
//===----------------------------------------------------------------------===//
#include "formulas.hpp"

namespace m = pb::models;
namespace u = pb::units;

double models_units_case();
double models_units_case() {
#if PB_MODELS_UNITS_CASE == 1  // the memory term fed FLOP where it expects bytes
#ifdef PB_MODELS_UNITS_OK
  u::Seconds t = m::memory_time(u::Bytes{201326592}, u::BytesPerSecond{1.6e12});
#else
  u::Seconds t = m::memory_time(u::Flop{201326592}, u::BytesPerSecond{1.6e12});
#endif
  return t.value();
#elif PB_MODELS_UNITS_CASE == 2  // the grid floor binding FLOP to a byte rate
#ifdef PB_MODELS_UNITS_OK
  u::Seconds t = m::grid_floor(u::Flop{2.1e9}, 1.0, 20, 0.8, 1.0, u::FlopPerSecond{1.47e13});
#else
  u::Seconds t = m::grid_floor(u::Flop{2.1e9}, 1.0, 20, 0.8, 1.0, u::BytesPerSecond{1.47e13});
#endif
  return t.value();
#elif PB_MODELS_UNITS_CASE == 3  // vector repeats timed at a FLOP rate
#ifdef PB_MODELS_UNITS_OK
  u::Seconds t = m::time_at(u::Repeats{32768}, m::per_second(u::RepeatsPerCycle{1}, u::Hertz{1.8e9}));
#else
  u::Seconds t = m::time_at(u::Repeats{32768}, m::per_second(u::FlopPerCycle{128}, u::Hertz{1.8e9}));
#endif
  return t.value();
#elif PB_MODELS_UNITS_CASE == 4  // a handoff cost in seconds where cycles are expected
#ifdef PB_MODELS_UNITS_OK
  u::Seconds t = m::serialization_time(3, u::Cycles{5375}, u::Hertz{1.8e9});
#else
  u::Seconds t = m::serialization_time(3, u::Seconds{3e-6}, u::Hertz{1.8e9});
#endif
  return t.value();
#else
  return 0;
#endif
}
