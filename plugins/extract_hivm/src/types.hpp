//===- types.hpp - MLIR builtin types as HIVM uses them --------------------===//
//
// memref/tensor/vector types with shapes, element types, strided layouts and
// HIVM address spaces (`#hivm.address_space<ub>`), plus scalar types. Parsed
// from the source text of a type, independently of the token stream.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_TYPES_HPP
#define PERFBOUND_EXTRACT_HIVM_TYPES_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pb::hivm {

constexpr int64_t kDynamic = INT64_MIN;

enum class Space : uint8_t { Unknown, Zero, GM, L1, L0A, L0B, L0C, UB, SSBUF };

/// Printed name of an address space ("gm", "cbuf", "ub", ...); nullptr when unknown.
const char *space_name(Space space);
Space space_from_name(std::string_view name);

struct ElemType {
  std::string_view name;  // "bf16", "i32", "index"
  uint32_t bits = 0;      // 0 when unknown
  bool is_float = false;
  bool is_int = false;
  bool is_index = false;
  [[nodiscard]] bool known() const { return bits != 0; }
};

struct Type {
  enum class Kind : uint8_t { Unknown, Scalar, Memref, Tensor, Vector, Other };
  Kind kind = Kind::Unknown;
  std::string_view text;
  ElemType elem;               // the scalar type, or the element type of a shaped type
  std::vector<int64_t> shape;  // kDynamic for '?'
  bool has_strides = false;    // an explicit strided<...> layout
  std::vector<int64_t> strides;  // always filled for memrefs: explicit, or row-major for the identity layout
  bool strides_known = true;   // false for affine_map layouts
  int64_t offset = 0;          // kDynamic for '?'
  Space space = Space::Unknown;
  bool space_explicit = false;

  [[nodiscard]] bool shaped() const { return kind == Kind::Memref || kind == Kind::Tensor || kind == Kind::Vector; }
  [[nodiscard]] size_t rank() const { return shape.size(); }
  /// Number of elements when every dimension is static.
  [[nodiscard]] std::optional<int64_t> static_elements() const;
  /// True when the layout is compact row-major (no gaps between elements).
  [[nodiscard]] bool contiguous() const;
};

using AliasMap = std::map<std::string_view, std::string_view, std::less<>>;

/// Parses a type from its source text. Unknown constructs give Kind::Other or
/// Kind::Unknown, never an exception.
Type parse_type(std::string_view text, const AliasMap *aliases = nullptr);

/// Element type from its spelling ("f32", "bf16", "i1", "index").
ElemType parse_elem_type(std::string_view name);

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_TYPES_HPP
