//===- types.cpp - MLIR builtin types as HIVM uses them --------------------===//
#include "types.hpp"

#include <cctype>
#include <charconv>

#include <boost/container/small_vector.hpp>

namespace pb::hivm {

const char *space_name(Space space) {
  switch (space) {
    case Space::Zero: return "zero";
    case Space::GM: return "gm";
    case Space::L1: return "cbuf";
    case Space::L0A: return "ca";
    case Space::L0B: return "cb";
    case Space::L0C: return "cc";
    case Space::UB: return "ub";
    case Space::SSBUF: return "ssbuf";
    case Space::Unknown: break;
  }
  return nullptr;
}

Space space_from_name(std::string_view name) {
  if (name == "gm") return Space::GM;
  if (name == "cbuf") return Space::L1;
  if (name == "ca") return Space::L0A;
  if (name == "cb") return Space::L0B;
  if (name == "cc") return Space::L0C;
  if (name == "ub") return Space::UB;
  if (name == "ssbuf") return Space::SSBUF;
  if (name == "zero") return Space::Zero;
  return Space::Unknown;
}

std::optional<int64_t> Type::static_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d == kDynamic || d < 0) return std::nullopt;
    n *= d;
  }
  return n;
}

bool Type::contiguous() const {
  if (!strides_known) return false;
  if (!has_strides) return true;  // the identity layout is compact by definition
  int64_t expect = 1;
  for (size_t idx = shape.size(); idx-- > 0;) {
    if (shape[idx] == 1) continue;  // the stride of a unit dimension does not matter
    if (strides[idx] == kDynamic || strides[idx] != expect) return false;
    if (shape[idx] == kDynamic) return idx == 0;  // only the outermost may be dynamic
    expect *= shape[idx];
  }
  return true;
}

ElemType parse_elem_type(std::string_view name) {
  ElemType e;
  e.name = name;
  auto bits_after = [&](size_t prefix) -> uint32_t {
    uint32_t v = 0;
    auto [p, ec] = std::from_chars(name.data() + prefix, name.data() + name.size(), v);
    if (ec != std::errc() || p != name.data() + name.size()) return 0;
    return v;
  };
  if (name == "index") {
    e.bits = 64;
    e.is_index = true;
    e.is_int = true;
  } else if (name == "bf16" || name == "f16") {
    e.bits = 16;
    e.is_float = true;
  } else if (name == "f32" || name == "tf32") {
    e.bits = 32;
    e.is_float = true;
  } else if (name == "f64") {
    e.bits = 64;
    e.is_float = true;
  } else if (name.substr(0, 2) == "f8" || name.substr(0, 2) == "f6" || name.substr(0, 2) == "f4") {
    e.bits = name[1] == '8' ? 8 : (name[1] == '6' ? 6 : 4);
    e.is_float = true;
  } else if (name.size() > 1 && name[0] == 'i') {
    e.bits = bits_after(1);
    e.is_int = e.bits != 0;
  } else if (name.size() > 2 && (name.substr(0, 2) == "ui" || name.substr(0, 2) == "si")) {
    e.bits = bits_after(2);
    e.is_int = e.bits != 0;
  }
  return e;
}

namespace {

class TypeParser {
 public:
  TypeParser(std::string_view s, const AliasMap *aliases) : s_(s), aliases_(aliases) {}

  void skip() {
    while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\n' || s_[p_] == '\r')) ++p_;
  }
  bool eat(char c) {
    skip();
    if (p_ < s_.size() && s_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  bool eat_word(std::string_view w) {
    skip();
    if (s_.substr(p_, w.size()) == w) {
      p_ += w.size();
      return true;
    }
    return false;
  }
  std::optional<int64_t> integer() {
    skip();
    bool neg = eat('-');
    int64_t v = 0;
    auto [q, ec] = std::from_chars(s_.data() + p_, s_.data() + s_.size(), v);
    if (ec != std::errc()) return std::nullopt;
    p_ = static_cast<size_t>(q - s_.data());
    return neg ? -v : v;
  }
  /// Skips a balanced <...> / [...] / (...) group starting at the current char.
  std::string_view balanced() {
    skip();
    size_t start = p_;
    int depth = 0;
    while (p_ < s_.size()) {
      char c = s_[p_];
      if (c == '-' && p_ + 1 < s_.size() && s_[p_ + 1] == '>') {
        p_ += 2;
        continue;
      }
      if (c == '<' || c == '[' || c == '(' || c == '{') ++depth;
      if (c == '>' || c == ']' || c == ')' || c == '}') {
        --depth;
        if (depth == 0) {
          ++p_;
          break;
        }
      }
      ++p_;
    }
    return s_.substr(start, p_ - start);
  }
  std::string_view word() {
    skip();
    size_t start = p_;
    while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) || s_[p_] == '_' || s_[p_] == '.' ||
                              s_[p_] == '$'))
      ++p_;
    return s_.substr(start, p_ - start);
  }

  Type parse() {
    Type t;
    t.text = s_;
    skip();
    if (eat_word("memref<")) {
      t.kind = Type::Kind::Memref;
      parse_shaped_body(t, true);
    } else if (eat_word("tensor<")) {
      t.kind = Type::Kind::Tensor;
      parse_shaped_body(t, false);
    } else if (eat_word("vector<")) {
      t.kind = Type::Kind::Vector;
      parse_shaped_body(t, false);
    } else {
      std::string_view w = word();
      ElemType e = parse_elem_type(w);
      if (e.known()) {
        t.kind = Type::Kind::Scalar;
        t.elem = e;
      } else {
        const bool dialect_type = w.empty() && p_ < s_.size() && s_[p_] == '!';
        t.kind = (w.empty() && !dialect_type) ? Type::Kind::Unknown : Type::Kind::Other;
      }
    }
    return t;
  }

  // The dimensions are collected here (no heap for the usual ranks) and
  // copied into the Type's exact-size Dims at the end.
  using Scratch = boost::container::small_vector<int64_t, 8>;

  void parse_shaped_body(Type &t, bool is_memref) {
    Scratch shape, strides;
    parse_shaped_body(t, is_memref, shape, strides);
    t.shape = Dims(shape.data(), shape.size());
    t.strides = Dims(strides.data(), strides.size());
  }

  void parse_shaped_body(Type &t, bool is_memref, Scratch &shape, Scratch &strides) {
    if (eat('*')) {  // unranked
      eat('x');
      t.kind = Type::Kind::Other;
      return;
    }
    // Dimensions: (N|?) 'x' ..., then the element type.
    while (true) {
      skip();
      if (p_ < s_.size() && s_[p_] == '?') {
        ++p_;
        if (!eat('x')) {
          t.kind = Type::Kind::Other;
          return;
        }
        shape.push_back(kDynamic);
        continue;
      }
      if (p_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[p_]))) {
        auto v = integer();
        if (!v || !eat('x')) {
          t.kind = Type::Kind::Other;
          return;
        }
        shape.push_back(*v);
        continue;
      }
      break;
    }
    // Element type (possibly itself parameterized, e.g. vector<4xf32>).
    skip();
    size_t elem_start = p_;
    std::string_view w = word();
    if (p_ < s_.size() && s_[p_] == '<') balanced();
    t.elem = parse_elem_type(w);
    if (!t.elem.known()) t.elem.name = s_.substr(elem_start, p_ - elem_start);
    while (eat(',')) {
      skip();
      if (eat_word("strided<")) {
        t.has_strides = true;
        eat('[');
        while (!eat(']')) {
          if (eat('?')) {
            strides.push_back(kDynamic);
          } else if (auto v = integer()) {
            strides.push_back(*v);
          } else {
            t.strides_known = false;
            break;
          }
          eat(',');
        }
        if (eat(',') && eat_word("offset")) {
          eat(':');
          if (eat('?')) t.offset = kDynamic;
          else if (auto v = integer()) t.offset = *v;
        }
        eat('>');
      } else if (eat_word("affine_map")) {
        balanced();
        t.strides_known = false;
      } else if (eat_word("#hivm.address_space<")) {
        t.space = space_from_name(word());
        t.space_explicit = true;
        eat('>');
      } else if (p_ < s_.size() && s_[p_] == '#') {
        ++p_;
        std::string_view name = word();
        std::string alias = "#" + std::string(name);
        if (aliases_ != nullptr) {
          auto it = aliases_->find(alias);
          if (it != aliases_->end()) apply_attr_alias(t, it->second);
        }
        if (p_ < s_.size() && s_[p_] == '<') balanced();
      } else if (auto v = integer()) {
        (void)v;  // numeric memory space: meaning unknown here
        t.space_explicit = true;
      } else {
        // Unknown attribute (tensor encoding, ...): skip it.
        word();
        if (p_ < s_.size() && s_[p_] == '<') balanced();
      }
    }
    (void)is_memref;
    if (!t.has_strides) {
      strides.assign(shape.size(), 1);
      int64_t running = 1;
      for (size_t idx = shape.size(); idx-- > 0;) {
        strides[idx] = running;
        if (running != kDynamic) running = shape[idx] == kDynamic ? kDynamic : running * shape[idx];
      }
    } else if (strides.size() != shape.size()) {
      t.strides_known = false;
      strides.assign(shape.size(), kDynamic);
    }
  }

  static void apply_attr_alias(Type &t, std::string_view value) {
    TypeParser inner(value, nullptr);
    if (inner.eat_word("#hivm.address_space<")) {
      t.space = space_from_name(inner.word());
      t.space_explicit = true;
    } else if (inner.eat_word("affine_map")) {
      t.strides_known = false;
    }
  }

 private:
  std::string_view s_;
  size_t p_ = 0;
  const AliasMap *aliases_;
};

}  // namespace

Type parse_type(std::string_view text, const AliasMap *aliases) {
  TypeParser parser(text, aliases);
  return parser.parse();
}

}  // namespace pb::hivm
