//===- facts.cpp - the user's data facts from the launch document ----------===//
#include "facts.hpp"

#include <perfbound/sdk/input_file.hpp>

#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <stdexcept>

namespace pb::hivm {

namespace {

using json = nlohmann::json;

[[noreturn]] void npy_fail(const std::string &path, const std::string &why) {
  throw std::runtime_error(path + ": not a readable integer .npy file: " + why);
}

/// The text of `'key': value` in numpy's header dictionary.
std::string header_value(const std::string &header, const std::string &key, const std::string &path) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) npy_fail(path, "the header has no '" + key + "'");
  size_t start = header.find(':', at);
  if (start == std::string::npos) npy_fail(path, "the header's '" + key + "' has no value");
  start = header.find_first_not_of(' ', start + 1);
  if (start == std::string::npos) npy_fail(path, "the header's '" + key + "' has no value");
  const char open = header[start];
  const char close = open == '\'' ? '\'' : open == '(' ? ')' : '\0';
  size_t end = close != '\0' ? header.find(close, start + 1) : header.find_first_of(",}", start);
  if (end == std::string::npos) npy_fail(path, "the header's '" + key + "' is not closed");
  return close == '\'' ? header.substr(start + 1, end - start - 1) : header.substr(start, end - start + (close ? 1 : 0));
}

uint64_t element_count(const std::string &shape, const std::string &path) {
  uint64_t count = 1;
  uint64_t value = 0;
  bool digits = false;
  for (char c : shape) {
    if (c >= '0' && c <= '9') {
      if (value > std::numeric_limits<uint64_t>::max() / 16) npy_fail(path, "shape too large");
      value = value * 10 + static_cast<uint64_t>(c - '0');
      digits = true;
    } else if (c == ',' || c == ')') {
      if (digits) count *= value;
      value = 0;
      digits = false;
    } else if (c != ' ' && c != '(') {
      npy_fail(path, "shape '" + shape + "' is not a tuple of whole numbers");
    }
  }
  return count;
}

int64_t whole_number(const json &v, const std::string &where) {
  if (!v.is_number_integer() && !(v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>()))))
    throw std::runtime_error(where + ": expected a whole number");
  return v.is_number_integer() ? v.get<int64_t>() : static_cast<int64_t>(v.get<double>());
}

}  // namespace

std::vector<int64_t> read_npy_integers(const std::string &path) {
  // Regular files only, up to the data-file limit: /dev/zero or a FIFO is
  // refused, never read without end.
  std::string error;
  std::optional<std::string> read = pb::sdk::read_input_file(path, pb::sdk::kMaxDataFileBytes, error);
  if (!read) throw std::runtime_error(path + ": cannot read the .npy file: " + error);
  const std::string &bytes = *read;
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) npy_fail(path, "no \\x93NUMPY magic");
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_start = 10;
  } else if ((major == 2 || major == 3) && bytes.size() >= 12) {
    for (int idx = 3; idx >= 0; --idx) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + idx]);
    header_start = 12;
  } else {
    npy_fail(path, "unsupported format version " + std::to_string(major));
  }
  if (header_start + header_len > bytes.size()) npy_fail(path, "the header runs past the end of the file");
  const std::string header = bytes.substr(header_start, header_len);
  const std::string descr = header_value(header, "descr", path);
  if (header_value(header, "fortran_order", path).find("True") != std::string::npos)
    npy_fail(path, "Fortran order (save it C-ordered)");
  const uint64_t count = element_count(header_value(header, "shape", path), path);
  if (descr.size() < 3 || (descr[1] != 'i' && descr[1] != 'u' && descr[1] != 'b'))
    npy_fail(path, "dtype '" + descr + "' is not an integer type (int8..int64, uint8..uint64, bool)");
  const char order = descr[0];
  const char kind = descr[1];
  const std::string width_text = descr.substr(2);
  if (width_text != "1" && width_text != "2" && width_text != "4" && width_text != "8")
    npy_fail(path, "dtype '" + descr + "' has an unsupported width");
  const size_t width = std::stoul(width_text);
  const bool little = std::endian::native == std::endian::little;
  bool swap = false;
  if (order == '<') swap = !little;
  else if (order == '>') swap = little;
  else if (order != '|' && order != '=') npy_fail(path, "unsupported byte order in dtype '" + descr + "'");
  const size_t data_start = header_start + header_len;
  if (count > (bytes.size() - data_start) / width)
    npy_fail(path, "the data holds " + std::to_string(bytes.size() - data_start) + " bytes, the shape needs " +
                       std::to_string(count * width));
  std::vector<int64_t> out;
  out.reserve(count);
  for (uint64_t k = 0; k < count; ++k) {
    unsigned char b[8] = {};
    std::memcpy(b, bytes.data() + data_start + k * width, width);
    if (swap)
      for (size_t idx = 0; idx < width / 2; ++idx) std::swap(b[idx], b[width - 1 - idx]);
    uint64_t raw = 0;
    for (size_t idx = 0; idx < width; ++idx) raw |= static_cast<uint64_t>(b[little ? idx : width - 1 - idx]) << (8 * idx);
    if (kind == 'i' && width < 8 && (raw >> (8 * width - 1)) != 0) raw |= ~uint64_t{0} << (8 * width);  // sign-extend
    if (kind == 'u' && width == 8 && raw > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      npy_fail(path, "element " + std::to_string(k) + " does not fit in int64");
    out.push_back(static_cast<int64_t>(raw));
  }
  return out;
}

void apply_launch_facts(const json &launch, AnalysisOptions &options) {
  if (launch.contains("trips")) {
    const json &trips = launch["trips"];
    if (!trips.is_object()) throw std::runtime_error("trips: expected a table keyed by HIVM dump line");
    for (const auto &[key, fact] : trips.items()) {
      const std::string where = "trips.\"" + key + "\"";
      if (key.rfind("ttir:", 0) == 0) continue;  // the TTIR extractor's
      std::string digits = key.rfind("hivm:", 0) == 0 ? key.substr(5) : key;
      if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
        throw std::runtime_error(where + ": the key is not a dump line (\"1106\" or \"hivm:1106\"; \"ttir:N\" for TTIR)");
      TripFact t;
      t.key = key;
      t.line = static_cast<uint32_t>(std::stoul(digits));
      if (!fact.is_object() || fact.empty())
        throw std::runtime_error(where + ": expected a table with min, max or sum (and over)");
      for (const auto &[name, v] : fact.items()) {
        if (name == "over") {
          if (!v.is_string() || (v != "block" && v != "grid"))
            throw std::runtime_error(where + ".over: expected \"block\" or \"grid\"");
          t.sum_over_grid = v == "grid";
          continue;
        }
        std::optional<int64_t> *slot = name == "min" ? &t.min : name == "max" ? &t.max : name == "sum" ? &t.sum : nullptr;
        if (slot == nullptr) throw std::runtime_error(where + "." + name + ": unknown member (min, max, sum, over)");
        int64_t n = whole_number(v, where + "." + name);
        if (n < 0) throw std::runtime_error(where + "." + name + ": a trip count cannot be negative");
        *slot = n;
      }
      if (fact.contains("over") && !t.sum) throw std::runtime_error(where + ".over: given without a sum");
      if (!t.min && !t.max && !t.sum) throw std::runtime_error(where + ": give min, max or sum");
      for (const TripFact &other : options.trips)
        if (other.line == t.line) throw std::runtime_error(where + ": line " + digits + " is given twice");
      options.trips.push_back(std::move(t));
    }
  }
  if (launch.contains("data")) {
    const json &data = launch["data"];
    if (!data.is_object()) throw std::runtime_error("data: expected a table keyed by Triton argument");
    for (const auto &[key, fact] : data.items()) {
      const std::string where = "data.\"" + key + "\"";
      DataFact d;
      d.key = key;
      if (fact.is_array()) {
        d.source = "inline";
        for (size_t k = 0; k < fact.size(); ++k) d.values.push_back(whole_number(fact[k], where + "[" + std::to_string(k) + "]"));
      } else if (fact.is_object() && fact.size() == 1 && fact.contains("npy") && fact["npy"].is_string()) {
        d.source = fact["npy"].get<std::string>();
        try {
          d.values = read_npy_integers(d.source);
        } catch (const std::exception &e) {
          throw std::runtime_error(where + ".npy: " + e.what());
        }
      } else {
        throw std::runtime_error(where + ": expected an array of integers or { npy = \"file.npy\" }");
      }
      if (d.values.empty()) throw std::runtime_error(where + ": no elements");
      options.data.push_back(std::move(d));
    }
  }
}

}  // namespace pb::hivm
