//===- perfbound/sdk/shell.hpp - text written into shell scripts ----------===//
//
// A plugin that writes a script another program will run (a Slurm batch
// script, a remote command line for ssh) puts names and paths taken from its
// input into shell syntax. Every such string goes through one of these:
//   - quote(): a word for a POSIX shell (bash, sh, ssh's remote shell). The
//     result is always one single-quoted word, whatever the text holds
//     (`$(...)`, backticks, quotes, newlines, glob characters): the shell
//     never expands, splits or executes any part of it;
//   - comment(): text for a `#` comment line, with every control character
//     (a newline would end the comment) shown as '?';
//   - directive_problem(): why a value cannot sit in a line another tool
//     reads word by word without a shell (an `#SBATCH` directive), or "".
// Header-only, standard library only.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_SDK_SHELL_HPP
#define PERFBOUND_SDK_SHELL_HPP

#include <string>
#include <string_view>

namespace pb::sdk::shell {

/// `text` as one single-quoted POSIX shell word: 'it'\''s' for it's. Inside
/// single quotes every byte but the quote itself is literal, so the only
/// transformation is closing the quote, writing an escaped quote and
/// reopening it. The empty string becomes ''.
inline std::string quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '\'';
  for (char c : text) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  out += '\'';
  return out;
}

/// `text` for a comment line: control characters (newline, carriage return,
/// NUL, escape) become '?', so the comment stays one line.
inline std::string comment(std::string_view text) {
  std::string out(text);
  for (char &c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return out;
}

/// Why `text` cannot be written as the value of a directive that is read
/// without a shell, word by word (`#SBATCH --output=VALUE`): empty, a control
/// character, white space, a quote or a backslash (the reader's own quoting),
/// or one of `extra` (e.g. "%" where the reader expands %-patterns). Returns
/// "" when the value can be written as it is.
inline std::string directive_problem(std::string_view text, std::string_view extra = {}) {
  if (text.empty()) return "it is empty";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) return "it holds a control character (a line break, a tab)";
    if (c == ' ') return "it holds a space";
    if (c == '\'' || c == '"' || c == '\\') return std::string("it holds the character ") + c;
    if (extra.find(c) != std::string_view::npos) return std::string("it holds the character ") + c;
  }
  return {};
}

}  // namespace pb::sdk::shell

#endif  // PERFBOUND_SDK_SHELL_HPP
