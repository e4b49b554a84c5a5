// The journal of a running campaign: append-only JSON lines in the output folder, each
// written with one write(2) and fsync'd, so that a campaign killed at any point (SIGKILL,
// power loss) can be resumed without losing or repeating a finished test. Line 1 is the
// header (`{"journal":"hsalit-campaign-journal/1","campaign":{...}}`), every later line one
// finished test (`{"test":{...}}`, the record of results.json).
#pragma once

#include <filesystem>
#include <mutex>
#include <string_view>
#include <vector>

#include "hsalit/results/campaign.hpp"

namespace hsalit::results {

inline constexpr std::string_view kJournalSchema = "hsalit-campaign-journal/1";
inline constexpr std::string_view kJournalFile = "journal.jsonl";

struct JournalContents {
  CampaignInfo info;
  std::vector<TestRecord> records;  // one per test (its last record), in the order they finished
  std::size_t valid_bytes = 0;      // the prefix made of whole, readable lines
  bool torn_tail = false;           // a last line cut short by a kill (dropped)
};

// Reads a journal. A last line without its newline, or not JSON, is a torn write and is
// dropped; any other bad line throws ResultsError naming `file:line`.
JournalContents read_journal(const std::filesystem::path& file);

class Journal {
 public:
  // A fresh journal with its header (replacing any previous one).
  static Journal create(const std::filesystem::path& file, const CampaignInfo& info);
  // Continues an existing journal: cuts a torn tail, then appends after the last whole line.
  static Journal reopen(const std::filesystem::path& file, std::size_t valid_bytes);

  Journal(Journal&& other) noexcept;
  Journal& operator=(Journal&&) = delete;
  Journal(const Journal&) = delete;
  ~Journal();

  // Appends one finished test; safe to call from several threads.
  void append(const TestRecord& record);

 private:
  Journal(int fd, std::filesystem::path file) : fd_(fd), file_(std::move(file)) {}
  void write_line(std::string line);
  int fd_ = -1;
  std::filesystem::path file_;
  std::mutex mutex_;
};

}  // namespace hsalit::results
