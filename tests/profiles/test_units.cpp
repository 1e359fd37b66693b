//===- test_units.cpp - units as C++ types and the one unit table ---------===//
#include <doctest/doctest.h>

#include <type_traits>

#include <perfbound/sdk/units.hpp>

namespace u = pb::units;

TEST_CASE("dividing and multiplying quantities combines their dimensions") {
  // The type of each result is the dimension the brief asks for.
  static_assert(std::is_same_v<decltype(u::Bytes{} / u::Seconds{}), u::BytesPerSecond>);
  static_assert(std::is_same_v<decltype(u::Flop{} / u::FlopPerSecond{}), u::Seconds>);
  static_assert(std::is_same_v<decltype(u::Cycles{} / u::Hertz{}), u::Seconds>);
  static_assert(std::is_same_v<decltype(u::BytesPerCycle{} * u::Hertz{}), u::BytesPerSecond>);
  static_assert(std::is_same_v<decltype(u::FlopPerCycle{} * u::Hertz{}), u::FlopPerSecond>);
  static_assert(std::is_same_v<decltype(u::Bytes{} / u::BytesPerSecond{}), u::Seconds>);
  static_assert(std::is_same_v<decltype(u::Seconds{} * u::Hertz{}), u::Cycles>);
  static_assert(std::is_same_v<decltype(u::Bytes{} / u::Bytes{}), u::Scalar>);
  // Mixing dimensions is refused by the compiler: tests units_compile_*.

  // 196608 B of UB moved at 128 B/cycle and 1.8 GHz: 196608 / 128 = 1536
  // cycles, 1536 / 1.8e9 s = 853.33 ns.
  u::Seconds t = u::Bytes{196608} / (u::BytesPerCycle{128} * u::Hertz{1.8e9});
  CHECK(t.value() == doctest::Approx(853.333333e-9));
  u::Cycles c = t * u::Hertz{1.8e9};
  CHECK(c.value() == doctest::Approx(1536));
  // 2 * 128^3 FLOP on one AIC at 8192 FLOP/cycle: 4194304 / 8192 = 512 cycles.
  u::Cycles mmad = u::Flop{2.0 * 128 * 128 * 128} / u::FlopPerCycle{8192};
  CHECK(mmad.value() == 512);
  // Dimensionless results read as numbers: 64 KiB / 32 KiB = 2.
  double ratio = u::Bytes{65536} / u::Bytes{32768};
  CHECK(ratio == 2);
  CHECK((u::Seconds{1} + u::Seconds{0.5}).value() == 1.5);
  CHECK(u::Cycles{3} < u::Cycles{4});
}

TEST_CASE("the unit table converts declared units to canonical ones and refuses other dimensions") {
  // 192 KiB = 192 * 1024 = 196608 B; 1.8 GHz = 1.8e9 Hz; 1.6 TB/s = 1.6e12
  // B/s (decimal); 64 GiB = 64 * 2^30 = 68719476736 B.
  CHECK(u::from_declared<u::Bytes>(192, "KiB")->value() == 196608);
  CHECK(u::from_declared<u::Hertz>(1.8, "GHz")->value() == doctest::Approx(1.8e9));
  CHECK(u::from_declared<u::BytesPerSecond>(1.6, "TB/s")->value() == doctest::Approx(1.6e12));
  CHECK(u::from_declared<u::Bytes>(64, "GiB")->value() == 68719476736.0);
  CHECK(u::from_declared<u::Seconds>(5, "us")->value() == doctest::Approx(5e-6));
  CHECK(u::from_declared<u::Scalar>(20, "1")->value() == 20);
  // Wrong dimension or unknown name: no quantity.
  CHECK_FALSE(u::from_declared<u::Bytes>(1.8, "GHz").has_value());
  CHECK_FALSE(u::from_declared<u::BytesPerCycle>(1.6, "TB/s").has_value());
  CHECK_FALSE(u::from_declared<u::Bytes>(1, "Kib").has_value());
  CHECK_FALSE(u::find_unit("Gb").has_value());

  CHECK(u::dimension_of<u::BytesPerSecond>() == u::Dimension::Bandwidth);
  CHECK(u::canonical_unit_of<u::FlopPerCycle>() == "FLOP/cycle");
  CHECK(u::canonical_unit_of<u::Hertz>() == "Hz");
  // Every unit's dimension has a canonical unit that is itself in the table
  // with factor 1.
  for (const u::UnitSpec &spec : u::kUnits) {
    INFO(spec.name);
    auto canonical = u::find_unit(u::canonical_unit(spec.dimension));
    REQUIRE(canonical.has_value());
    CHECK(canonical->factor == 1.0);
    CHECK(canonical->dimension == spec.dimension);
  }
  // Per-cycle rates times a frequency give per-second rates, at run time too.
  CHECK(u::dimension_with(u::exponents(u::Dimension::BytesPerCycle) * u::exponents(u::Dimension::Frequency)) ==
        u::Dimension::Bandwidth);
  CHECK_FALSE(u::dimension_with(u::exponents(u::Dimension::Bytes) * u::exponents(u::Dimension::Bytes)).has_value());
}
