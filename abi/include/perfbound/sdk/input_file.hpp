//===- perfbound/sdk/input_file.hpp - bounded, checked reading of input files ===//
//
// Every file perfbound reads from outside comes through here: only regular
// files (a device such as /dev/zero, a FIFO or a directory is refused before
// a byte is read), only up to a stated size, and text formats (TOML, JSON,
// CSV) validated as UTF-8 with the line and column of the first bad byte.
// The limits are listed in docs/cli.md ("Limits").
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_INPUT_FILE_HPP
#define PERFBOUND_SDK_INPUT_FILE_HPP

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace pb::sdk {

/// Configuration-like files: pipelines, profiles, calibration files and
/// specs, manifests, schemas, testlists, counterfactual configs.
inline constexpr std::uint64_t kMaxConfigFileBytes = std::uint64_t{16} << 20;  // 16 MiB
/// Data files: IR dumps, profiler CSVs, measurement records, node inputs.
inline constexpr std::uint64_t kMaxDataFileBytes = std::uint64_t{1} << 30;  // 1 GiB

/// The size limit as people write it ("16 MiB").
inline std::string format_byte_limit(std::uint64_t bytes) {
  if (bytes % (std::uint64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes % (std::uint64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

/// Opens `path` for reading after the checks every input gets: a regular
/// file (a device such as /dev/zero, a FIFO or a directory is refused before
/// a byte is read) of at most `max_bytes`. On failure returns nullopt and sets
/// `error` to the reason, without the path ("not a regular file ..."); callers
/// prefix it. A reader that streams the file (the msprof CSV reader) must
/// still stop past `max_bytes`: the file may grow while it is read.
inline std::optional<std::ifstream> open_input_file(const std::filesystem::path &path, std::uint64_t max_bytes,
                                                    std::string &error) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::file_status status = fs::status(path, ec);
  if (ec && ec.value() == ELOOP) {
    error = "is a loop of symbolic links (too many levels of symbolic links), not a file";
    return std::nullopt;
  }
  if (status.type() == fs::file_type::not_found) {
    error = "no such file";
    return std::nullopt;
  }
  if (ec) {
    error = "cannot be looked at: " + ec.message();
    return std::nullopt;
  }
  if (status.type() == fs::file_type::directory) {
    error = "is a directory, not a file";
    return std::nullopt;
  }
  if (status.type() != fs::file_type::regular) {
    error = "not a regular file (a device, FIFO or socket is never read as input)";
    return std::nullopt;
  }
  const std::uintmax_t size = fs::file_size(path, ec);
  if (!ec && size > max_bytes) {
    error = "" + std::to_string(size) + " bytes is more than the limit of " + format_byte_limit(max_bytes) +
            " for this kind of input";
    return std::nullopt;
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int why = errno;
    error = why != 0 ? "cannot open: " + std::generic_category().message(why) : std::string("cannot open");
    return std::nullopt;
  }
  return in;
}

/// Reads `path` whole (the checks of open_input_file). On failure returns
/// nullopt and sets `error` to the reason, without the path; callers prefix it.
/// `poll`, when given, runs between chunks of 64 KiB (and, in UTF-8 validation, every 16,384
/// lines): a reader of a large file passes a cancel check (pb::sdk::throw_if_cancelled) so that
/// Ctrl-C stops it within a chunk rather than after the whole file.
inline std::optional<std::string> read_input_file(const std::filesystem::path &path, std::uint64_t max_bytes,
                                                  std::string &error, const std::function<void()> &poll = {}) {
  std::optional<std::ifstream> in = open_input_file(path, max_bytes, error);
  if (!in) return std::nullopt;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  std::string text;
  text.reserve(ec ? 0 : static_cast<size_t>(size));
  char buffer[1 << 16];
  while (*in) {
    if (poll) poll();
    in->read(buffer, sizeof(buffer));
    text.append(buffer, static_cast<size_t>(in->gcount()));
    if (text.size() > max_bytes) {  // the file grew while being read
      error = "more than the limit of " + format_byte_limit(max_bytes) + " for this kind of input";
      return std::nullopt;
    }
  }
  if (in->bad()) {
    error = "read error";
    return std::nullopt;
  }
  return text;
}

/// Where the first byte that is not well-formed UTF-8 sits (1-based line and
/// column, the column counting bytes), or nullopt when `text` is valid.
/// Overlong forms, surrogates and code points above U+10FFFF are refused.
struct Utf8Error {
  std::uint32_t line = 1;
  std::uint32_t column = 1;
  unsigned char byte = 0;
};
inline std::optional<Utf8Error> find_invalid_utf8(std::string_view text, const std::function<void()> &poll = {}) {
  std::uint32_t line = 1;
  size_t line_start = 0;
  size_t i = 0;
  const size_t n = text.size();
  auto at = [&](size_t pos) {
    return Utf8Error{line, static_cast<std::uint32_t>(pos - line_start + 1), static_cast<unsigned char>(text[pos])};
  };
  while (i < n) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (c == '\n') {
        ++line;
        line_start = i + 1;
        if (poll && (line & 0x3FFFu) == 0) poll();
      }
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) len = 2;
    else if (c == 0xE0) len = 3, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC) len = 3;
    else if (c == 0xED) len = 3, hi = 0x9F;
    else if (c >= 0xEE && c <= 0xEF) len = 3;
    else if (c == 0xF0) len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3) len = 4;
    else if (c == 0xF4) len = 4, hi = 0x8F;
    else return at(i);
    if (i + len > n) return at(i);
    for (size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      const unsigned char min = k == 1 ? lo : 0x80, max = k == 1 ? hi : 0xBF;
      if (b < min || b > max) return at(i + k);
    }
    i += len;
  }
  return std::nullopt;
}

/// "invalid UTF-8 byte 0xFF (the file must be UTF-8 text)".
inline std::string describe_utf8_error(const Utf8Error &bad) {
  char hex[8];
  std::snprintf(hex, sizeof(hex), "0x%02X", static_cast<unsigned>(bad.byte));
  return std::string("invalid UTF-8 byte ") + hex + " (the file must be UTF-8 text)";
}

/// "<origin>:<line>:<column>: invalid UTF-8 byte 0xFF ..." or "" when valid.
inline std::string utf8_error_message(std::string_view text, const std::string &origin,
                                      const std::function<void()> &poll = {}) {
  auto bad = find_invalid_utf8(text, poll);
  if (!bad) return {};
  return origin + ":" + std::to_string(bad->line) + ":" + std::to_string(bad->column) + ": " + describe_utf8_error(*bad);
}

/// read_input_file plus UTF-8 validation, for text formats; here `error` is
/// a whole message: "<path>: <reason>" or "<path>:<line>:<column>: invalid
/// UTF-8 byte ...".
inline std::optional<std::string> read_text_input_file(const std::filesystem::path &path, std::uint64_t max_bytes,
                                                       std::string &error, const std::function<void()> &poll = {}) {
  auto text = read_input_file(path, max_bytes, error, poll);
  if (!text) {
    error = path.string() + ": " + error;
    return text;
  }
  error = utf8_error_message(*text, path.string(), poll);
  if (!error.empty()) return std::nullopt;
  return text;
}

/// Deepest nesting of JSON arrays and objects a reader accepts: nlohmann's
/// parser does not recurse, but serialising and walking a document do.
inline constexpr int kMaxJsonDepth = 256;

/// "<origin>:<line>:<column>: JSON arrays and objects nested deeper than N
/// levels" at the bracket that crosses the limit, or "" (strings skipped).
inline std::string json_depth_error(std::string_view text, const std::string &origin, int max_depth = kMaxJsonDepth) {
  int depth = 0;
  bool in_string = false, escaped = false;
  std::uint32_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      line_start = i + 1;
    }
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        return origin + ":" + std::to_string(line) + ":" + std::to_string(i - line_start + 1) +
               ": JSON arrays and objects nested deeper than " + std::to_string(max_depth) + " levels";
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return {};
}

/// read_text_input_file plus the JSON depth limit; parse the text after.
inline std::optional<std::string> read_json_input_file(const std::filesystem::path &path, std::uint64_t max_bytes,
                                                       std::string &error) {
  auto text = read_text_input_file(path, max_bytes, error);
  if (!text) return text;
  error = json_depth_error(*text, path.string());
  if (!error.empty()) return std::nullopt;
  return text;
}

}  // namespace pb::sdk

#endif  // PERFBOUND_SDK_INPUT_FILE_HPP
