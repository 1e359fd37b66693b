//===- verify.hpp - what MLIR's verifier would refuse, for the ops we read -===//
//
// The HIVM reader has its own parser (no libMLIR), so it must itself refuse
// IR that MLIR would not accept before a bound is computed from it:
//   - every use of an SSA value has a dominating definition (defined earlier
//     in its block or in an enclosing region, or anywhere in a multi-block
//     region: CFG dominance is not computed, only the scope);
//   - no value is defined twice while it is visible;
//   - a terminator is the last operation of its block; every block of a
//     function body ends in one; a loop or `scf.if` with results ends its
//     regions in `scf.yield` (`scf.condition` for the `scf.while` condition);
//   - an `scf.for` step is a positive constant (a non-constant step is
//     reported as a warning: it cannot be proved positive here);
//   - integer literals fit their type (`i32`, `si8`, `ui16`, `index`) and no
//     untyped one exceeds 64 bits.
// Errors throw SourceError at the offending token, naming the value.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_VERIFY_HPP
#define PERFBOUND_EXTRACT_HIVM_VERIFY_HPP

#include <string>
#include <string_view>
#include <vector>

#include "ir.hpp"

namespace pb::hivm {

/// Verifies one function (a `func.func` op with its body) parsed from `text`
/// (for the columns of its messages). Throws SourceError on the first
/// violation; appends warnings (non-constant loop steps).
void verify_function(const Op &func, std::string_view text, std::vector<std::string> &warnings);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_VERIFY_HPP
