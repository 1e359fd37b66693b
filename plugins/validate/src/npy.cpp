//===- npy.cpp - NumPy .npy arrays and an allclose check ------------------===//
#include "npy.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

namespace perfbound::validate {

namespace {

[[noreturn]] void fail(const std::string &origin, const std::string &message) {
  throw pb::sdk::InputError(origin + ": not a valid .npy file: " + message);
}

/// The value of `key` in numpy's header dict literal ("{'descr': '<f4', ...}").
std::string header_field(const std::string &header, const std::string &key, const std::string &origin) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) fail(origin, "the header has no '" + key + "'");
  size_t colon = header.find(':', at);
  if (colon == std::string::npos) fail(origin, "the header's '" + key + "' has no value");
  size_t start = header.find_first_not_of(' ', colon + 1);
  if (start == std::string::npos) fail(origin, "the header's '" + key + "' has no value");
  if (header[start] == '\'') {
    size_t end = header.find('\'', start + 1);
    if (end == std::string::npos) fail(origin, "unterminated string in the header");
    return header.substr(start + 1, end - start - 1);
  }
  if (header[start] == '(') {
    size_t end = header.find(')', start);
    if (end == std::string::npos) fail(origin, "unterminated shape tuple in the header");
    return header.substr(start, end - start + 1);
  }
  size_t end = header.find_first_of(",}", start);
  return header.substr(start, end - start);
}

std::vector<uint64_t> parse_shape(const std::string &tuple, const std::string &origin) {
  std::vector<uint64_t> shape;
  std::string inner = tuple.substr(1, tuple.size() - 2);
  std::stringstream items(inner);
  std::string item;
  while (std::getline(items, item, ',')) {
    size_t first = item.find_first_not_of(' ');
    if (first == std::string::npos) continue;  // "(3,)"
    size_t last = item.find_last_not_of(' ');
    std::string digits = item.substr(first, last - first + 1);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos)
      fail(origin, "shape entry '" + digits + "' is not a whole number");
    shape.push_back(std::stoull(digits));
  }
  return shape;
}

template <class T>
T load(const char *data, bool swap) {
  unsigned char bytes[sizeof(T)];
  std::memcpy(bytes, data, sizeof(T));
  if (swap)
    for (size_t idx = 0; idx < sizeof(T) / 2; ++idx) std::swap(bytes[idx], bytes[sizeof(T) - 1 - idx]);
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

double half_to_double(uint16_t bits) {
  int sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1f, mantissa = bits & 0x3ff;
  double value;
  if (exponent == 0)
    value = std::ldexp(mantissa, -24);
  else if (exponent == 31)
    value = mantissa == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  else
    value = std::ldexp(mantissa + 1024, exponent - 25);
  return sign ? -value : value;
}

}  // namespace

NpyArray parse_npy(const std::string &bytes, const std::string &origin) {
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) fail(origin, "no \\x93NUMPY magic at byte 0");
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(origin, "truncated header length");
    for (int idx = 3; idx >= 0; --idx) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + idx]);
    header_start = 12;
  } else {
    fail(origin, "unsupported format version " + std::to_string(major));
  }
  if (header_start + header_len > bytes.size()) fail(origin, "the header runs past the end of the file");
  const std::string header = bytes.substr(header_start, header_len);
  NpyArray array;
  array.descr = header_field(header, "descr", origin);
  array.fortran_order = header_field(header, "fortran_order", origin).find("True") != std::string::npos;
  std::string shape_text = header_field(header, "shape", origin);
  if (shape_text.empty() || shape_text.front() != '(') fail(origin, "shape is not a tuple");
  array.shape = parse_shape(shape_text, origin);
  uint64_t count = 1;
  for (uint64_t dim : array.shape) count *= dim;

  if (array.descr.size() < 3) fail(origin, "unsupported dtype '" + array.descr + "'");
  const char order = array.descr[0];
  const char kind = array.descr[1];
  const size_t width = std::stoul(array.descr.substr(2));
  const bool little_host = std::endian::native == std::endian::little;
  bool swap = false;
  if (order == '<') swap = !little_host;
  else if (order == '>') swap = little_host;
  else if (order != '|' && order != '=') fail(origin, "unsupported byte order in dtype '" + array.descr + "'");
  const size_t data_start = header_start + header_len;
  if (bytes.size() - data_start < count * width)
    fail(origin, "the data holds " + std::to_string(bytes.size() - data_start) + " bytes, the header promises " +
                     std::to_string(count * width));
  array.values.reserve(count);
  const char *data = bytes.data() + data_start;
  for (uint64_t idx = 0; idx < count; ++idx, data += width) {
    double value = 0;
    if (kind == 'f' && width == 8) value = load<double>(data, swap);
    else if (kind == 'f' && width == 4) value = load<float>(data, swap);
    else if (kind == 'f' && width == 2) value = half_to_double(load<uint16_t>(data, swap));
    else if (kind == 'i' && width == 8) value = static_cast<double>(load<int64_t>(data, swap));
    else if (kind == 'i' && width == 4) value = load<int32_t>(data, swap);
    else if (kind == 'i' && width == 2) value = load<int16_t>(data, swap);
    else if (kind == 'i' && width == 1) value = static_cast<int8_t>(*data);
    else if (kind == 'u' && width == 8) value = static_cast<double>(load<uint64_t>(data, swap));
    else if (kind == 'u' && width == 4) value = load<uint32_t>(data, swap);
    else if (kind == 'u' && width == 2) value = load<uint16_t>(data, swap);
    else if ((kind == 'u' || kind == 'b') && width == 1) value = static_cast<unsigned char>(*data);
    else fail(origin, "unsupported dtype '" + array.descr + "' (floats f2/f4/f8, ints, unsigned and bool are read)");
    array.values.push_back(value);
  }
  return array;
}

NpyArray read_npy(const std::filesystem::path &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw pb::sdk::InputError(path.string() + ": cannot open .npy file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  return parse_npy(buffer.str(), path.string());
}

std::string write_npy(const std::vector<double> &values, const std::vector<uint64_t> &shape, const std::string &descr) {
  if (descr != "<f4" && descr != "<f8") throw std::invalid_argument("write_npy writes <f4 or <f8 only");
  std::string shape_text = "(";
  for (uint64_t dim : shape) shape_text += std::to_string(dim) + ", ";
  if (shape.size() > 1) shape_text.resize(shape_text.size() - 2);
  else if (shape.size() == 1) shape_text.resize(shape_text.size() - 1);
  shape_text += ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape_text + ", }";
  // Pad with spaces so data starts at a multiple of 64, ending in '\n'.
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(header.size() & 0xff);
  out += static_cast<char>((header.size() >> 8) & 0xff);
  out += header;
  for (double value : values) {
    if (descr == "<f4") {
      auto f = static_cast<float>(value);
      out.append(reinterpret_cast<const char *>(&f), sizeof f);
    } else {
      out.append(reinterpret_cast<const char *>(&value), sizeof value);
    }
  }
  return out;
}

pb::sdk::json allclose(const NpyArray &actual, const NpyArray &expected, const Tolerance &tolerance) {
  using pb::sdk::json;
  json out = {{"rtol", tolerance.rtol}, {"atol", tolerance.atol}, {"equal_nan", tolerance.equal_nan},
              {"criterion", "|actual - expected| <= atol + rtol * |expected| (numpy.allclose)"},
              {"elements", actual.values.size()}, {"mismatches", 0}, {"max_abs_err", nullptr}, {"max_rel_err", nullptr},
              {"worst", nullptr}};
  if (actual.shape != expected.shape) {
    auto text = [](const std::vector<uint64_t> &shape) {
      std::string s = "(";
      for (uint64_t dim : shape) s += std::to_string(dim) + ",";
      return s + ")";
    };
    out["passed"] = false;
    out["reason"] = "shape " + text(actual.shape) + " differs from the reference's " + text(expected.shape);
    return out;
  }
  size_t mismatches = 0;
  double max_abs = 0, max_rel = 0, worst_excess = -1;
  json worst = nullptr;
  for (size_t idx = 0; idx < actual.values.size(); ++idx) {
    double a = actual.values[idx], e = expected.values[idx];
    bool close;
    double abs_err = 0;
    if (std::isnan(a) || std::isnan(e)) {
      close = tolerance.equal_nan && std::isnan(a) && std::isnan(e);
      abs_err = close ? 0 : std::numeric_limits<double>::infinity();
    } else if (std::isinf(a) || std::isinf(e)) {
      close = a == e;
      abs_err = close ? 0 : std::numeric_limits<double>::infinity();
    } else {
      abs_err = std::fabs(a - e);
      close = abs_err <= tolerance.atol + tolerance.rtol * std::fabs(e);
    }
    double rel_err = e != 0 && std::isfinite(abs_err) ? abs_err / std::fabs(e) : (abs_err == 0 ? 0 : abs_err);
    max_abs = std::max(max_abs, abs_err);
    max_rel = std::max(max_rel, rel_err);
    if (!close) {
      ++mismatches;
      double excess = abs_err - (tolerance.atol + tolerance.rtol * std::fabs(e));
      if (excess > worst_excess || worst.is_null()) {
        worst_excess = excess;
        worst = {{"index", idx}, {"actual", std::isfinite(a) ? json(a) : json(std::to_string(a))},
                 {"expected", std::isfinite(e) ? json(e) : json(std::to_string(e))}};
      }
    }
  }
  out["mismatches"] = mismatches;
  out["max_abs_err"] = std::isfinite(max_abs) ? json(max_abs) : json("inf");
  out["max_rel_err"] = std::isfinite(max_rel) ? json(max_rel) : json("inf");
  out["worst"] = worst;
  out["passed"] = mismatches == 0;
  return out;
}

}  // namespace perfbound::validate
