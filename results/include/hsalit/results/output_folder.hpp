// The folders commands write into, and the names of the files there. A test's name comes
// from its input and may hold anything (`../x`, `/tmp/x`, a NUL, 10,000 bytes), so a file
// named after a test gets a sanitised, unique name, and every such write is refused outside
// its folder. A results folder belongs to one run: a second writer fails fast on its lock,
// and results of another kind or configuration are not replaced without --force
// (docs/campaigns.md, "The output folder").
#pragma once

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "hsalit/results/campaign.hpp"
#include "hsalit/support/file_names.hpp"

namespace hsalit::results {

// safe_file_stem and kMaxFileStem (hsalit/support/file_names.hpp), under the names this
// component has always used.
using support::kMaxFileStem;
using support::safe_file_stem;

// The file names of one output folder, given out in a fixed order: `STEM.EXT` with the stem
// of safe_file_stem, or `STEM~2.EXT`, `STEM~3.EXT`... when an earlier name of the folder is
// the same ignoring case (so that two tests named `Same`, or `a/b` and `a_b`, or `MP` and
// `mp` on a case-insensitive file system, never share a file).
class OutputNames {
 public:
  // `extension` with its dot (`.dot`, `.litmus`).
  std::string claim(std::string_view name, std::string_view extension);

 private:
  std::set<std::string> taken_;  // lower-cased
};

// `dir / file_name`, where `file_name` must be one plain name (not empty, no `/`, NUL, `.` or
// `..`): anything else throws ResultsError, so no input reaches a file outside `dir`.
std::filesystem::path path_in_folder(const std::filesystem::path& dir, std::string_view file_name);

// An exclusive lock on a results folder (`DIR/hsalit.lock`, flock(2)), held while a command
// writes there and released when it ends, crashes included. The lock file holds the pid of
// the process holding it.
inline constexpr std::string_view kLockFile = "hsalit.lock";
class FolderLock {
 public:
  // Creates `dir` if needed. Throws ResultsError naming the lock file (and the holder's pid
  // when it can be read) when another process holds it: it does not wait.
  explicit FolderLock(const std::filesystem::path& dir);
  FolderLock(FolderLock&& other) noexcept;
  FolderLock& operator=(FolderLock&& other) noexcept;
  FolderLock(const FolderLock&) = delete;
  ~FolderLock();

 private:
  int fd_ = -1;
};

// The results a writer puts into a folder: a campaign's (journal, results.json) or a
// verification's (results.json with its verification block).
enum class ResultsKind { Campaign, Verification };

// What in `dir` belongs to another run than one of `kind` with `info` (configuration, inputs
// and shard), if anything: a campaign's journal, a results.json of the other kind, of another
// configuration or unreadable. nullopt when `dir` holds none, or results of this same run.
// (A campaign decides about its own journal itself: --resume.)
std::optional<std::string> results_of_another_run(const std::filesystem::path& dir, ResultsKind kind,
                                                  const CampaignInfo& info);

// Refuses, unless `force`, to write into `dir` what results_of_another_run finds there:
// throws ResultsError saying what it is, and that --force replaces it.
void refuse_results_of_another_run(const std::filesystem::path& dir, ResultsKind kind, const CampaignInfo& info,
                                   bool force);

// Removes the files of earlier results that a new run would not replace: the journal,
// verify.txt, mutation.txt and mutation.json, and counterexamples/*.litmus (the folder too
// once empty). results.json and the reports are left for the new run to replace atomically.
void remove_stale_results(const std::filesystem::path& dir);

}  // namespace hsalit::results
