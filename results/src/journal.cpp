#include "hsalit/results/journal.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "hsalit/results/atomic_file.hpp"

namespace hsalit::results {

JournalContents read_journal(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ResultsError(fmt::format("{}: error: cannot read the journal", file.string()));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  JournalContents contents;
  std::unordered_map<std::string, std::size_t> index_of_file;  // where each test's record is
  bool have_header = false;
  std::size_t start = 0;
  for (int line = 1; start < text.size(); ++line) {
    std::size_t end = text.find('\n', start);
    bool last = end == std::string::npos || end + 1 == text.size();
    std::string_view body(text.data() + start, (end == std::string::npos ? text.size() : end) - start);
    nlohmann::json j;
    bool parsed = end != std::string::npos;
    if (parsed) {
      j = nlohmann::json::parse(body, nullptr, false);
      parsed = !j.is_discarded();
    }
    if (!parsed) {
      if (last) {  // a write cut short by the kill
        contents.torn_tail = true;
        break;
      }
      throw ResultsError(fmt::format("{}:{}: error: not a JSON line", file.string(), line));
    }
    std::string where = fmt::format("{}:{}", file.string(), line);
    try {
      if (!have_header) {
        if (!j.is_object() || j.value("journal", "") != kJournalSchema || !j.contains("campaign"))
          throw ResultsError(fmt::format("not a journal of schema {}", kJournalSchema));
        contents.info = campaign_info_from_json(j.at("campaign"), "campaign");
        have_header = true;
      } else {
        if (!j.is_object() || !j.contains("test")) throw ResultsError("a line without 'test'");
        // A test recorded twice (two writers before the folder lock, or an edited journal)
        // keeps its later record in its first place, as --resume takes it: results hold
        // each test once (read_results refuses a test listed twice).
        TestRecord record = test_record_from_json(j.at("test"), "test");
        const auto [at, fresh] = index_of_file.emplace(record.file, contents.records.size());
        if (fresh)
          contents.records.push_back(std::move(record));
        else
          contents.records[at->second] = std::move(record);
      }
    } catch (const ResultsError& e) {
      throw ResultsError(fmt::format("{}: error: {}", where, e.what()));
    }
    start = end + 1;
    contents.valid_bytes = start;
  }
  if (!have_header) throw ResultsError(fmt::format("{}: error: the journal has no header line", file.string()));
  return contents;
}

namespace {

int open_for_append(const std::filesystem::path& file, int flags) {
  int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC | flags, 0644);
  if (fd < 0) throw ResultsError(fmt::format("{}: error: cannot open: {}", file.string(), std::strerror(errno)));
  return fd;
}

}  // namespace

// The header is written whole before the journal exists (beside it, then renamed over it),
// so a run killed at any point leaves no journal, or one whose header --resume reads.
Journal Journal::create(const std::filesystem::path& file, const CampaignInfo& info) {
  nlohmann::json header = {{"journal", kJournalSchema}, {"campaign", to_json(info)}};
  try {
    write_file_atomically(file, header.dump() + "\n");
  } catch (const std::runtime_error& e) {
    throw ResultsError(fmt::format("{}: error: {}", file.string(), e.what()));
  }
  return Journal(open_for_append(file, O_APPEND), file);
}

Journal Journal::reopen(const std::filesystem::path& file, std::size_t valid_bytes) {
  int fd = open_for_append(file, O_APPEND);
  if (::ftruncate(fd, static_cast<off_t>(valid_bytes)) != 0) {
    ::close(fd);
    throw ResultsError(
        fmt::format("{}: error: cannot cut the torn last line: {}", file.string(), std::strerror(errno)));
  }
  return Journal(fd, file);
}

Journal::Journal(Journal&& other) noexcept : fd_(other.fd_), file_(std::move(other.file_)) { other.fd_ = -1; }

Journal::~Journal() {
  if (fd_ >= 0) ::close(fd_);
}

void Journal::append(const TestRecord& record) {
  nlohmann::json line = {{"test", to_json(record)}};
  write_line(line.dump());
}

void Journal::write_line(std::string line) {
  line += '\n';
  std::lock_guard lock(mutex_);
  std::size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw ResultsError(fmt::format("{}: error: cannot append: {}", file_.string(), std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
  if (::fsync(fd_) != 0)
    throw ResultsError(fmt::format("{}: error: cannot sync: {}", file_.string(), std::strerror(errno)));
}

}  // namespace hsalit::results
