// Running a campaign: for each litmus test, check it against the model (the allowed outcome
// set, races), compile it for the target, run it on a backend, and compare (`run_test`);
// over many tests, in parallel, journalled so that an interrupted campaign resumes
// (`run_campaign`).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/results/campaign.hpp"
#include "hsalit/results/findings.hpp"
#include "hsalit/runner/backend.hpp"

namespace hsalit::results {

// Everything one test needs besides its file. The references must outlive the campaign.
struct TestContext {
  const codegen::Target& target;
  const codegen::MappingTable& table;
  codegen::CompileOptions compile_options;
  model::CheckOptions model_options;
  const runner::Backend& backend;
  runner::BackendRequest request;  // exhaustive or iterations; the seed is mixed with the test's name
  double time_limit_seconds = 60;  // the whole test: model, compile and run together
};

// One test, start to end. Never throws: a stage that fails makes the test `unknown` with why.
TestRecord run_test(const std::filesystem::path& file, const TestContext& context);

// The verdict class and its one-line reason, from the stages of a record (judgements of
// observed outcomes and coverage of allowed outcomes must already be filled in).
void classify(TestRecord& record);

// `I/N` with 0 <= I < N.
std::optional<Shard> parse_shard(std::string_view text);
// The tests of a shard: every N-th of the sorted list, starting at the I-th.
std::vector<std::filesystem::path> shard_files(std::span<const std::filesystem::path> files, Shard shard);

struct Progress {
  std::size_t done = 0;     // finished, in this run or an earlier one (resumed)
  std::size_t resumed = 0;  // of which finished earlier
  std::size_t total = 0;
  double elapsed_seconds = 0;        // of this run
  const TestRecord* last = nullptr;  // the test that just finished; null for the first call
};

struct CampaignRun {
  CampaignInfo info;                         // configuration; times are filled in
  std::vector<std::filesystem::path> files;  // the tests of this campaign (or shard)
  std::filesystem::path out_dir;
  unsigned jobs = 1;
  bool resume = false;  // continue the journal in out_dir; otherwise it must not exist
  bool force = false;   // replace the results of another run in out_dir (not with resume: it wins)
  // The documented findings (read_findings): each violation records those it matches.
  std::vector<Finding> findings;
  std::function<void(const Progress&)> on_progress;
};

// Thrown by run_campaign when SIGINT or SIGTERM arrived (support::interrupted): the tests
// finished before are in the journal, those cut short are not, and no results.json or report
// is written, so `--resume` continues where it stopped.
struct CampaignInterrupted : std::runtime_error {
  CampaignInterrupted(std::size_t done, std::size_t total);
  std::size_t done = 0, total = 0;  // tests in the journal, and of the campaign
};

// Runs what the journal does not hold yet, then writes results.json and every report. Holds
// the folder's lock (FolderLock) throughout. Throws ResultsError for an unusable output
// folder, one another process writes, a journal of another configuration, or (unless force)
// the results of another run; CampaignInterrupted when a signal stops it.
CampaignResults run_campaign(const CampaignRun& run, const TestContext& context);

// The current time, ISO 8601 UTC to the second.
std::string utc_now();

}  // namespace hsalit::results
