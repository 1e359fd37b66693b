//===- expr.hpp - arithmetic in calibration specs ("2*128*128*4096*30") ---===//
//
// A calibration spec writes the work of a benchmark as the arithmetic a
// reader can check against the kernel source, not as a pre-multiplied
// number. Grammar: numbers (1, 2.5, 1e6), + - * /, parentheses, and the
// functions ceil(x), floor(x), min(a, b), max(a, b).
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_VALIDATE_EXPR_HPP
#define PERFBOUND_VALIDATE_EXPR_HPP

#include <string>
#include <string_view>

namespace perfbound::validate {

/// Evaluates `text`. Throws std::invalid_argument with a message naming the
/// 1-based character position of the problem ("at column 5: expected ')'").
double evaluate_expression(std::string_view text);

}  // namespace perfbound::validate

#endif  // PERFBOUND_VALIDATE_EXPR_HPP
