//===- json_writer.hpp - a streaming JSON text writer ----------------------===//
//
// Writes JSON text straight into a string, without building a DOM: a
// document of a few thousand op records costs a few milliseconds instead of
// tens. Strings are escaped and made valid UTF-8 (invalid bytes become
// U+FFFD), so compiler output copied from a dump can never break the document.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_EXTRACT_HIVM_JSON_WRITER_HPP
#define PERFBOUND_EXTRACT_HIVM_JSON_WRITER_HPP

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pb::hivm {

class JsonWriter {
 public:
  explicit JsonWriter(size_t reserve = 0) { out_.reserve(reserve); }

  JsonWriter &begin_object() {
    separate();
    out_ += '{';
    first_.push_back(true);
    return *this;
  }
  JsonWriter &end_object() {
    out_ += '}';
    first_.pop_back();
    return *this;
  }
  JsonWriter &begin_array() {
    separate();
    out_ += '[';
    first_.push_back(true);
    return *this;
  }
  JsonWriter &end_array() {
    out_ += ']';
    first_.pop_back();
    return *this;
  }
  JsonWriter &key(std::string_view k) {
    separate();
    write_string(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter &value(int64_t v) {
    separate();
    char buf[24];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    out_.append(buf, static_cast<size_t>(res.ptr - buf));
    return *this;
  }
  JsonWriter &value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter &value(uint32_t v) { return value(static_cast<int64_t>(v)); }
  JsonWriter &value(uint64_t v) { return value(static_cast<int64_t>(v)); }
  JsonWriter &value(double v) {
    separate();
    if (v != v || v > 1.7e308 || v < -1.7e308) {
      out_ += "null";  // JSON has no NaN or infinity
      return *this;
    }
    char buf[32];
    int n = std::snprintf(buf, sizeof buf, "%.17g", v);
    out_.append(buf, static_cast<size_t>(n));
    return *this;
  }
  JsonWriter &value(bool v) {
    separate();
    out_ += v ? "true" : "false";
    return *this;
  }
  JsonWriter &value(std::string_view v) {
    separate();
    write_string(v);
    return *this;
  }
  JsonWriter &value(const char *v) { return value(std::string_view(v)); }
  JsonWriter &value(const std::string &v) { return value(std::string_view(v)); }
  /// A value that is already JSON text.
  JsonWriter &raw(std::string_view json) {
    separate();
    out_ += json;
    return *this;
  }
  JsonWriter &null() {
    separate();
    out_ += "null";
    return *this;
  }
  template <class T>
  JsonWriter &value(const std::optional<T> &v) {
    if (v) return value(*v);
    return null();
  }
  /// key + value in one call.
  template <class T>
  JsonWriter &field(std::string_view k, const T &v) {
    key(k);
    return value(v);
  }
  JsonWriter &null_field(std::string_view k) {
    key(k);
    return null();
  }
  template <class T>
  JsonWriter &array(std::string_view k, const std::vector<T> &items) {
    key(k);
    begin_array();
    for (const T &item : items) value(item);
    return end_array();
  }

  [[nodiscard]] const std::string &str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (first_.empty()) return;
    if (!first_.back()) out_ += ',';
    first_.back() = false;
  }

  void write_string(std::string_view s) {
    out_ += '"';
    size_t run = 0;  // start of the pending run of characters copied as they are
    for (size_t idx = 0; idx < s.size();) {
      auto c = static_cast<unsigned char>(s[idx]);
      if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
        ++idx;
        continue;
      }
      out_.append(s.data() + run, idx - run);
      if (c == '"' || c == '\\') {
        out_ += '\\';
        out_ += static_cast<char>(c);
        ++idx;
      } else if (c < 0x20) {
        static const char *hex = "0123456789abcdef";
        switch (c) {
          case '\n': out_ += "\\n"; break;
          case '\t': out_ += "\\t"; break;
          case '\r': out_ += "\\r"; break;
          default:
            out_ += "\\u00";
            out_ += hex[c >> 4];
            out_ += hex[c & 15];
        }
        ++idx;
      } else {
        size_t len = valid_utf8(s, idx);
        if (len == 0) {
          out_ += "\xEF\xBF\xBD";  // U+FFFD
          ++idx;
        } else {
          out_.append(s.data() + idx, len);
          idx += len;
        }
      }
      run = idx;
    }
    out_.append(s.data() + run, s.size() - run);
    out_ += '"';
  }

 public:
  /// Length of the valid UTF-8 sequence starting at `at`, 0 when invalid.
  static size_t valid_utf8(std::string_view s, size_t at) {
    auto c = static_cast<unsigned char>(s[at]);
    size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (len == 0 || at + len > s.size()) return 0;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[at + k]) & 0xC0) != 0x80) return 0;
    // No overlong forms, no surrogates, nothing above U+10FFFF.
    auto c1 = static_cast<unsigned char>(s[at + 1]);
    if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F) || (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
      return 0;
    return len;
  }

 private:
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace pb::hivm

#endif  // PERFBOUND_EXTRACT_HIVM_JSON_WRITER_HPP
