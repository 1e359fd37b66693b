//===- journal.cpp - the resumable, fingerprinted, append-only run journal --===//
#include "journal.hpp"

#include "result.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include <perfbound/sdk/json.hpp>

#include <perfbound/sdk/sha256.hpp>
#include "process.hpp"

namespace pb::bench {

namespace {

constexpr const char *kParts[] = {"plan", "source", "hardware"};

/// Leaf members of a JSON value by JSON-pointer-like dotted path.
void flatten(const json &value, const std::string &path, std::map<std::string, json> &out) {
  if (value.is_object() && !value.empty()) {
    for (const auto &[key, member] : value.items()) flatten(member, path.empty() ? key : path + "." + key, out);
    return;
  }
  if (value.is_array() && !value.empty()) {
    for (size_t idx = 0; idx < value.size(); ++idx) flatten(value[idx], path + "[" + std::to_string(idx) + "]", out);
    return;
  }
  out[path] = value;
}

std::string short_value(const json &value) {
  std::string text = value.dump();
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

}  // namespace

json fingerprint_digests(const json &fingerprint) {
  json digests;
  for (const char *part : kParts)
    digests[part] = pb::sdk::sha256_hex(fingerprint.contains(part) ? fingerprint.at(part).dump() : std::string("null"));
  return digests;
}

std::optional<std::string> compare_fingerprints(const json &recorded, const json &current) {
  std::string message;
  for (const char *part : kParts) {
    json old_part = recorded.contains(part) ? recorded.at(part) : json(nullptr);
    json new_part = current.contains(part) ? current.at(part) : json(nullptr);
    if (old_part == new_part) continue;
    std::map<std::string, json> before;
    std::map<std::string, json> after;
    flatten(old_part, "", before);
    flatten(new_part, "", after);
    std::vector<std::string> changes;
    for (const auto &[path, value] : before) {
      auto it = after.find(path);
      if (it == after.end())
        changes.push_back(path + " " + short_value(value) + " -> (absent)");
      else if (it->second != value)
        changes.push_back(path + " " + short_value(value) + " -> " + short_value(it->second));
    }
    for (const auto &[path, value] : after)
      if (before.count(path) == 0) changes.push_back(path + " (absent) -> " + short_value(value));
    message += message.empty() ? "" : "; ";
    message += std::string(part) + " changed: ";
    for (size_t change_idx = 0; change_idx < changes.size() && change_idx < 4; ++change_idx)
      message += (change_idx > 0 ? ", " : "") + changes[change_idx];
    if (changes.size() > 4) message += " (and " + std::to_string(changes.size() - 4) + " more)";
  }
  if (message.empty()) return std::nullopt;
  return message;
}

JournalContents read_journal(const fs::path &path) {
  std::optional<std::string> text = read_whole_file(path);
  if (!text) throw pb::sdk::InputError(path.string() + ": cannot read the journal");
  JournalContents contents;
  size_t offset = 0;
  int line_no = 0;
  while (offset < text->size()) {
    ++line_no;
    size_t newline = text->find('\n', offset);
    bool complete = newline != std::string::npos;
    std::string line = text->substr(offset, complete ? newline - offset : std::string::npos);
    json parsed = json::parse(line, nullptr, false);
    bool valid = complete && !parsed.is_discarded() && parsed.is_object();
    if (!valid) {
      // Each line is written by one write() of JSON (which never contains a
      // raw newline) plus "\n", so a crash can only leave a last line
      // without its newline. Anything else is corruption.
      if (complete)
        throw pb::sdk::InputError(path.string() + ":" + std::to_string(line_no) +
                                  ": not a valid journal line; only a last line without its newline can come from "
                                  "a crash (a torn write), so the journal is corrupt");
      contents.torn_bytes = text->size() - offset;
      break;
    }
    if (line_no == 1) {
      if (parsed.value("schema", "") != kJournalHeaderSchema)
        throw pb::sdk::InputError(path.string() + ":1: the first line is not a " + std::string(kJournalHeaderSchema) +
                                  " header");
      contents.header = parsed;
    } else {
      if (parsed.value("schema", "") != kJournalRecordSchema || !parsed.contains("case_id") ||
          !parsed.contains("row"))
        throw pb::sdk::InputError(path.string() + ":" + std::to_string(line_no) + ": not a " +
                                  std::string(kJournalRecordSchema) + " record");
      check_row_numbers(parsed, json::json_pointer("/row"),
                        pb::sdk::JsonSource(path.string(), line, static_cast<std::uint32_t>(line_no)));
      contents.records.push_back(parsed);
    }
    offset = newline + 1;
    contents.good_bytes = offset;
  }
  if (contents.header.is_null())
    throw pb::sdk::InputError(path.string() + ": the journal has no complete header line (the run died while "
                              "starting); remove it and start the run again");
  return contents;
}

JournalWriter JournalWriter::create(const fs::path &path, const json &header) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw pb::sdk::InfraError("cannot create the journal " + path.string() + ": " + std::strerror(errno));
  JournalWriter writer(path, fd);
  writer.append(header);
  // Make the new directory entry durable too.
  int dir_fd = open(path.parent_path().empty() ? "." : path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    fsync(dir_fd);
    close(dir_fd);
  }
  return writer;
}

JournalWriter JournalWriter::reopen(const fs::path &path, uint64_t good_bytes) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) throw pb::sdk::InfraError("cannot open the journal " + path.string() + ": " + std::strerror(errno));
  if (ftruncate(fd, static_cast<off_t>(good_bytes)) != 0) {
    int error = errno;
    close(fd);
    throw pb::sdk::InfraError("cannot cut the torn line off " + path.string() + ": " + std::strerror(error));
  }
  fsync(fd);
  return JournalWriter(path, fd);
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) close(fd_);
}

void JournalWriter::append(const json &line) {
  std::string data = line.dump() + "\n";
  size_t written = 0;
  while (written < data.size()) {
    ssize_t got = write(fd_, data.data() + written, data.size() - written);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) throw pb::sdk::InfraError("cannot append to the journal " + path_.string() + ": " + std::strerror(errno));
    written += static_cast<size_t>(got);
  }
  if (fsync(fd_) != 0) throw pb::sdk::InfraError("cannot fsync the journal " + path_.string() + ": " + std::strerror(errno));
}

}  // namespace pb::bench
