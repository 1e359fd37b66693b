//===- given_facts.cpp - launch.trips and launch.data ---------------------===//
//===----------------------------------------------------------------------===//
#include "given_facts.hpp"

#include <perfbound/sdk/input_file.hpp>

#include <cstdlib>
#include <set>

namespace perfbound::ttir {

using pb::sdk::InputError;

namespace {

/// Reads a little-endian integer .npy array (any shape, C order), flattened.
std::vector<std::int64_t> read_npy(const std::string &path, const std::string &where) {
  // Regular files only, up to the data-file limit: /dev/zero or a FIFO is
  // refused, never read without end.
  std::string error;
  std::optional<std::string> read = pb::sdk::read_input_file(path, pb::sdk::kMaxDataFileBytes, error);
  if (!read) throw InputError(where + ": cannot read '" + path + "': " + error);
  const std::string &bytes = *read;
  auto bad = [&](const std::string &why) { return InputError(where + ": '" + path + "' is not a usable .npy file: " + why); };
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw bad("no \\x93NUMPY magic");
  const auto major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0;
  size_t header_at = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) throw bad("truncated header");
    for (int b = 3; b >= 0; --b) header_len = (header_len << 8) | static_cast<unsigned char>(bytes[8 + static_cast<size_t>(b)]);
    header_at = 12;
  } else {
    throw bad("format version " + std::to_string(major));
  }
  if (header_at + header_len > bytes.size()) throw bad("truncated header");
  const std::string header = bytes.substr(header_at, header_len);
  auto field = [&](const std::string &name) -> std::string {
    size_t at = header.find("'" + name + "'");
    if (at == std::string::npos) throw bad("header without '" + name + "'");
    at = header.find(':', at);
    size_t start = header.find_first_not_of(' ', at + 1);
    if (start == std::string::npos) throw bad("malformed header");
    size_t end = header[start] == '\'' ? header.find('\'', start + 1) + 1
                 : header[start] == '(' ? header.find(')', start) + 1
                                        : header.find_first_of(",}", start);
    return header.substr(start, end - start);
  };
  std::string descr = field("descr");
  if (field("fortran_order").rfind("True", 0) == 0) throw bad("Fortran order is not supported");
  if (descr.size() < 5 || (descr[1] != '<' && descr[1] != '|' && descr[1] != '=') || (descr[2] != 'i' && descr[2] != 'u'))
    throw bad("dtype " + descr + " (expected little-endian integers, e.g. '<i4' or '<i8')");
  const int width = std::atoi(descr.substr(3, descr.size() - 4).c_str());
  if (width != 1 && width != 2 && width != 4 && width != 8) throw bad("dtype " + descr);
  const bool is_signed = descr[2] == 'i';
  std::string shape = field("shape");
  std::int64_t count = 1;
  for (size_t at = 0; at < shape.size();) {
    size_t digit = shape.find_first_of("0123456789", at);
    if (digit == std::string::npos) break;
    size_t end = shape.find_first_not_of("0123456789", digit);
    count *= std::stoll(shape.substr(digit, end - digit));
    at = end;
  }
  const size_t data_at = header_at + header_len;
  if (bytes.size() - data_at < static_cast<size_t>(count) * static_cast<size_t>(width))
    throw bad("shape " + shape + " needs " + std::to_string(count * width) + " bytes of data, the file has " +
              std::to_string(bytes.size() - data_at));
  std::vector<std::int64_t> out(static_cast<size_t>(count));
  for (size_t idx = 0; idx < out.size(); ++idx) {
    std::uint64_t v = 0;
    for (int b = width - 1; b >= 0; --b)
      v = (v << 8) | static_cast<unsigned char>(bytes[data_at + idx * static_cast<size_t>(width) + static_cast<size_t>(b)]);
    if (is_signed && width < 8 && (v >> (width * 8 - 1)) != 0) v |= ~std::uint64_t{0} << (width * 8);
    out[idx] = static_cast<std::int64_t>(v);
  }
  return out;
}

/// The kernel argument a launch key names (name, "%argN" or "N"), or nullptr.
const KernelArg *arg_named(const KernelModel &k, const std::string &key) {
  for (const KernelArg &a : k.args)
    if ((!a.name.empty() && a.name == key) || key == "%arg" + std::to_string(a.index) || key == std::to_string(a.index))
      return &a;
  return nullptr;
}

}  // namespace

/// Reads launch.trips (keys "ttir:N"; other keys are HIVM lines and are left
/// to that extractor) and launch.data. A fact that names no loop or no
/// pointer argument is refused with the file and line.
GivenFacts read_facts(const KernelModel &k, const json &launch, const std::string &origin) {
  GivenFacts facts;
  if (!launch.is_object()) return facts;
  if (auto it = launch.find("trips"); it != launch.end()) {
    if (!it->is_object()) throw InputError("launch.trips: expected a table keyed by \"ttir:LINE\", got " + it->dump());
    for (const auto &[key, value] : it->items()) {
      if (key.rfind("ttir:", 0) != 0) continue;
      const std::string where = "launch.trips.\"" + key + "\"";
      TripFact f;
      f.key = "trips.\"" + key + "\"";
      const std::string digits = key.substr(5);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9)
        throw InputError(where + ": expected \"ttir:LINE\" with the TTIR line of an scf.for or scf.while");
      f.line = std::stoi(digits);
      if (!value.is_object()) throw InputError(where + ": expected a table with min, max or sum, got " + value.dump());
      for (const auto &[member, v] : value.items()) {
        if (member == "over") {
          if (!v.is_string() || (v != "block" && v != "grid"))
            throw InputError(where + ".over: expected \"block\" or \"grid\", got " + v.dump());
          f.grid = v == "grid";
          continue;
        }
        if (member != "min" && member != "max" && member != "sum")
          throw InputError(where + ": unknown member '" + member + "' (expected min, max, sum, over)");
        if (!v.is_number_integer() || v.get<std::int64_t>() < 0)
          throw InputError(where + "." + member + ": expected a non-negative integer, got " + v.dump());
        (member == "min" ? f.min : member == "max" ? f.max : f.sum) = v.get<std::int64_t>();
      }
      if (!f.min && !f.max && !f.sum) throw InputError(where + ": give at least one of min, max, sum");
      if (f.min && f.max && *f.min > *f.max)
        throw InputError(where + ": min = " + std::to_string(*f.min) + " is above max = " + std::to_string(*f.max));
      bool found = false;
      std::string lines;
      std::set<int> seen;
      for (const Loop &l : k.loops) {
        found = found || l.loc.ttir_line == f.line;
        if (l.loc.ttir_line > 0 && seen.insert(l.loc.ttir_line).second)
          lines += (lines.empty() ? "" : ", ") + std::to_string(l.loc.ttir_line);
      }
      if (!found)
        throw InputError(origin + ":" + digits + ": " + where + ": there is no scf.for or scf.while of kernel '" +
                         k.name + "' at this line (its loops are at TTIR lines " +
                         (lines.empty() ? std::string("none") : lines) + ")");
      facts.echo.push_back({{"fact", f.key}, {"value", value}});
      facts.trips[f.line] = std::move(f);
    }
  }
  if (auto it = launch.find("data"); it != launch.end()) {
    if (!it->is_object()) throw InputError("launch.data: expected a table keyed by argument name or position");
    for (const auto &[key, value] : it->items()) {
      const std::string where = "launch.data." + key;
      const KernelArg *arg = arg_named(k, key);
      if (arg == nullptr) throw InputError(where + ": kernel '" + k.name + "' has no argument '" + key + "'");
      if (arg->kind != ArgKind::Pointer || arg->is_float)
        throw InputError(where + ": argument '" + arg->key() + "' is " + arg->type +
                         ", not a pointer to integers: only loaded integers take given data");
      std::vector<std::int64_t> values;
      if (value.is_array()) {
        for (size_t idx = 0; idx < value.size(); ++idx) {
          if (!value[idx].is_number_integer())
            throw InputError(where + "[" + std::to_string(idx) + "]: expected an integer, got " + value[idx].dump());
          values.push_back(value[idx].get<std::int64_t>());
        }
      } else if (value.is_object() && value.size() == 1 && value.contains("npy") && value["npy"].is_string()) {
        // A relative path is read from the current directory (perfbound.launch/1).
        values = read_npy(value["npy"].get<std::string>(), where + ".npy");
      } else {
        throw InputError(where + ": expected an array of integers or { npy = \"file.npy\" }, got " + value.dump());
      }
      facts.data[arg->index] = std::move(values);
      facts.data_key[arg->index] = "data." + key;
      facts.echo.push_back({{"fact", "data." + key},
                            {"value", value.is_array() ? json("[" + std::to_string(value.size()) + " integers]")
                                                       : value},
                            {"elements", facts.data[arg->index].size()}});
    }
  }
  return facts;
}

}  // namespace perfbound::ttir
