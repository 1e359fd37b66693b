//===- units_misuse.cpp - code that must not compile (units_compile_* tests) ===//
//
// Each case is built twice by tests/profiles/CMakeLists.txt:
//   -DPB_UNITS_CASE=N -DPB_UNITS_OK  the correct line; part of the normal
//                                    build, so a typo in the case breaks the
//                                    build instead of passing the test;
//   -DPB_UNITS_CASE=N                the line that mixes dimensions; built
//                                    only by the ctest, which passes when
//                                    the compiler prints the dimension error.
//
//===----------------------------------------------------------------------===//
#include <perfbound/sdk/units.hpp>

namespace u = pb::units;

double seconds_of(u::Seconds t);
double seconds_of(u::Seconds t) { return t.value(); }

double units_case();
double units_case() {
#if PB_UNITS_CASE == 1  // bytes + seconds
#ifdef PB_UNITS_OK
  u::Bytes sum = u::Bytes{1} + u::Bytes{2};
#else
  auto sum = u::Bytes{1} + u::Seconds{2};
#endif
  return sum.value();
#elif PB_UNITS_CASE == 2  // a bandwidth is not a time
#ifdef PB_UNITS_OK
  u::Seconds t = u::Bytes{4096} / u::BytesPerSecond{1e9};
#else
  u::Seconds t = u::Bytes{4096} / u::Seconds{1e-6};
#endif
  return t.value();
#elif PB_UNITS_CASE == 3  // FLOP over a byte rate is not a time
#ifdef PB_UNITS_OK
  u::Seconds t = u::Flop{1e12} / u::FlopPerSecond{1e14};
#else
  u::Seconds t = u::Flop{1e12} / u::BytesPerSecond{1e12};
#endif
  return t.value();
#elif PB_UNITS_CASE == 4  // cycles - seconds
#ifdef PB_UNITS_OK
  u::Cycles c = u::Cycles{100} - u::Cycles{7};
#else
  auto c = u::Cycles{100} - u::Seconds{7};
#endif
  return c.value();
#elif PB_UNITS_CASE == 5  // comparing bytes with FLOP
#ifdef PB_UNITS_OK
  return u::Bytes{1} < u::Bytes{2} ? 1.0 : 0.0;
#else
  return u::Bytes{1} < u::Flop{2} ? 1.0 : 0.0;
#endif
#elif PB_UNITS_CASE == 6  // a frequency passed where a time is expected
#ifdef PB_UNITS_OK
  return seconds_of(u::Cycles{1800} / u::Hertz{1.8e9});
#else
  return seconds_of(u::Hertz{1.8e9});
#endif
#elif PB_UNITS_CASE == 7  // bandwidth x time is bytes, not FLOP
#ifdef PB_UNITS_OK
  u::Bytes moved = u::BytesPerSecond{1e9} * u::Seconds{2};
#else
  u::Flop moved = u::BytesPerSecond{1e9} * u::Seconds{2};
#endif
  return moved.value();
#elif PB_UNITS_CASE == 8  // a raw number has no unit
#ifdef PB_UNITS_OK
  u::Bytes size{4096.0};
#else
  u::Bytes size = 4096.0;
#endif
  return size.value();
#else
#error "PB_UNITS_CASE must be 1..8"
#endif
}
