//===- eligibility.hpp - which unit an op lands on, and scalar fallbacks --===//
//
// judge_eligibility() decides, for one record after its counts are known,
// the record's Eligibility: the units that may do its work (cube for cube
// ops, vector for vector classes, else the unit of its pipe) and the unit it
// lands on; and whether it is a scalar fallback -- scalar work (arithmetic,
// compares, casts, address computation, scalar GM/UB accesses, loop control)
// inside an element-by-element loop, i.e. a loop with scalar memory accesses
// and no HIVM op, such as the loops marked {ExtractedLoadOrStore}. A fallback
// lands on the scalar unit, names its cause (gather, scatter, i64 index
// arithmetic, ...) and is listed in Program::fallbacks with its count.
// Inputs: the record, the loops around it (function_ir.hpp).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_ELIGIBILITY_HPP
#define PERFBOUND_EXTRACT_HIVM_ELIGIBILITY_HPP

#include <string>

#include "function_ir.hpp"

namespace pb::hivm::analysis {

/// Sets ir.rec(r).eligibility; a scalar fallback is also appended to ir.prog.fallbacks.
void judge_eligibility(FunctionIr &ir, uint32_t r);

/// Why a scalar op inside an element-by-element loop is a fallback, in words.
std::string fallback_cause(const OpRecord &r, bool extracted);

}  // namespace pb::hivm::analysis

#endif  // PERFBOUND_EXTRACT_HIVM_ELIGIBILITY_HPP
