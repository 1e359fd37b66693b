//===- journal.hpp - the resumable, fingerprinted, append-only run journal --===//
//
// journal.jsonl: one JSON object per line. Line 1 is the header
// (perfbound.bench_journal_header/1) with the run's fingerprint in three
// parts: plan (the plan hash, its protocol constants, its cases), source (the
// perfbound executable, the bench plugin and the backend plugin, each with a
// SHA-256 of the file) and hardware (the backend's device identity, the host).
// Every later line is one finished case (perfbound.bench_journal_record/1),
// written with one write() and fsync()ed before the next case starts.
//
// Resume rules: the recorded fingerprint must equal the current one, part by
// part, or the resume is refused with what changed; a torn last line (a crash
// in the middle of a write) is cut off and its case runs again; a bad line
// anywhere else is corruption and refuses the resume; a case with a record is
// never run again.
//
//===----------------------------------------------------------------------===//
#ifndef PERFBOUND_TIMING_JOURNAL_HPP
#define PERFBOUND_TIMING_JOURNAL_HPP

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pb::bench {

using json = nlohmann::json;
namespace fs = std::filesystem;

inline constexpr const char *kJournalHeaderSchema = "perfbound.bench_journal_header/1";
inline constexpr const char *kJournalRecordSchema = "perfbound.bench_journal_record/1";

/// {"plan": {...}, "source": {...}, "hardware": {...}} plus the SHA-256 of
/// each part's canonical JSON.
json fingerprint_digests(const json &fingerprint);

/// nullopt when `recorded` and `current` fingerprints match; otherwise a
/// message naming each part that changed and its first differing members,
/// e.g. "hardware changed: device.name \"A\" -> \"B\"".
std::optional<std::string> compare_fingerprints(const json &recorded, const json &current);

struct JournalContents {
  json header;
  std::vector<json> records;       // complete case records, file order
  uint64_t good_bytes = 0;         // bytes up to the end of the last good line
  uint64_t torn_bytes = 0;         // bytes of a torn last line (0: none)
};

/// Reads a journal. Throws pb::sdk::InputError for a missing or unreadable
/// file, a bad header, or a bad line that is not the last one.
JournalContents read_journal(const fs::path &path);

class JournalWriter {
 public:
  /// Creates a new journal holding only `header`; refuses to overwrite.
  static JournalWriter create(const fs::path &path, const json &header);
  /// Opens an existing journal for appending after cutting it to
  /// `good_bytes` (dropping a torn last line).
  static JournalWriter reopen(const fs::path &path, uint64_t good_bytes);
  ~JournalWriter();
  JournalWriter(JournalWriter &&other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) { other.fd_ = -1; }
  JournalWriter(const JournalWriter &) = delete;
  JournalWriter &operator=(const JournalWriter &) = delete;

  /// Appends one line and fsyncs it. Throws pb::sdk::InfraError.
  void append(const json &line);
  [[nodiscard]] const fs::path &path() const { return path_; }

 private:
  JournalWriter(fs::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  fs::path path_;
  int fd_ = -1;
};

}  // namespace pb::bench

#endif  // PERFBOUND_TIMING_JOURNAL_HPP
