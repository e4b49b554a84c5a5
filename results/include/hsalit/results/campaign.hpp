// The results of a campaign: per litmus test, what the model allows, what a backend observed,
// and the verdict class of the comparison; the campaign's configuration; and the
// `results.json` file (schema `hsalit-campaign/1`, docs/campaigns.md) that every report is
// regenerated from.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace hsalit::results {

inline constexpr std::string_view kCampaignSchema = "hsalit-campaign/1";

// What comparing the allowed set with the observed histogram says about one test.
enum class VerdictClass : std::uint8_t {
  Consistent,  // every observed outcome is allowed by the model
  Violation,   // an observed outcome is forbidden by the model
  Undefined,   // the program is racy under the model (HSA SysArch 3.12): outcomes shown, not judged
  Unknown,     // a stage (parse, model, compile, run) could not decide; `reason` says why
};
inline constexpr VerdictClass kVerdictClasses[] = {VerdictClass::Consistent, VerdictClass::Violation,
                                                   VerdictClass::Undefined, VerdictClass::Unknown};
std::string_view to_string(VerdictClass v);
std::optional<VerdictClass> verdict_class_from_string(std::string_view text);

// How far a stage of the pipeline got for one test.
enum class StageStatus : std::uint8_t {
  Ok,       // it produced its result
  Unknown,  // it ran and could not decide (bound, time limit, unsupported); the reason is kept
  Skipped,  // an earlier stage failed, or it does not apply
};
std::string_view to_string(StageStatus s);
std::optional<StageStatus> stage_status_from_string(std::string_view text);

// A final state: one value per observed reference, in `TestRecord::observed_refs` order. A value
// is an integer in decimal, or a location's name where the value is its address.
struct Outcome {
  std::vector<std::string> values;
  friend bool operator==(const Outcome&, const Outcome&) = default;
  friend auto operator<=>(const Outcome&, const Outcome&) = default;
};

// `1:r0=1; 1:r1=0;` (herd7's and litmus7's spelling).
std::string format_outcome(std::span<const std::string> refs, const Outcome& outcome);

// An outcome the model allows, and whether the backend observed it (coverage).
struct AllowedOutcome {
  Outcome outcome;
  bool satisfies = false;      // the condition's proposition holds in it
  std::uint64_t observed = 0;  // times the backend observed it (exhaustive: 0 or 1)
};

enum class Judgement : std::uint8_t {
  Allowed,    // in the model's allowed set
  Forbidden,  // not in it: a violation
  NotJudged,  // the model's set is unknown, or the test is racy
};
std::string_view to_string(Judgement j);
std::optional<Judgement> judgement_from_string(std::string_view text);

// How the backend reached an outcome: where the threads ran and the transitions, first to last,
// as `hsalit run --trace` prints them (the simulator); or, without them, why there are none.
struct OutcomeTrace {
  std::string placement;
  std::vector<std::string> steps;
  std::string missing;  // no steps: why (a GPU backend, a replay past the time limit)
  friend bool operator==(const OutcomeTrace&, const OutcomeTrace&) = default;
};

// An outcome the backend observed, with its count and the model's judgement.
struct ObservedOutcome {
  Outcome outcome;
  std::uint64_t count = 0;
  bool satisfies = false;
  Judgement judgement = Judgement::NotJudged;
  // Observed and forbidden: why the model forbids it (model::explanation_to_json, with the
  // text check --explain prints under "text"); absent otherwise and in older results.
  std::optional<nlohmann::json> explanation = std::nullopt;
  // Observed and forbidden: how the backend reached it; absent otherwise and in older results.
  std::optional<OutcomeTrace> trace = std::nullopt;
};

// The generated code of one litmus thread: assembly lines, annotated with the table rows.
struct ThreadCode {
  int thread = 0;
  std::vector<std::string> lines;
};

// A finding of the documentation (docs/findings.json, docs/mappings.md) that a violating test
// exhibits under its campaign's configuration.
struct FindingRef {
  std::string id;       // `mappings-1`
  std::string title;    // one line
  std::string doc;      // where it is written up: `docs/mappings.md`
  std::string section;  // the heading there
  friend bool operator==(const FindingRef&, const FindingRef&) = default;
};

struct ModelStage {
  StageStatus status = StageStatus::Skipped;
  std::string reason;         // Unknown or Skipped: why
  std::string result;         // the condition's verdict: Ok, No (empty unless Ok status)
  std::string engine;         // the engine that ran (what --engine auto picked); empty in older files
  std::string engine_reason;  // why that engine (model::CheckResult::engine_reason), or empty
  bool racy = false;
  std::string race;                     // `P0:1 w[] x 1` and `P1:0 r[] r0 x`, when racy
  std::vector<AllowedOutcome> allowed;  // sorted by outcome
  std::string witness_dot;              // Graphviz: the race, or an execution satisfying the condition
  double seconds = 0;
};

struct CompileStage {
  StageStatus status = StageStatus::Skipped;
  std::string reason;
  std::vector<ThreadCode> threads;
  double seconds = 0;
};

struct RunStage {
  StageStatus status = StageStatus::Skipped;
  std::string reason;                      // Unknown: why (state bound, time, no hardware)
  std::vector<ObservedOutcome> histogram;  // sorted by outcome; may be partial when Unknown
  std::uint64_t states = 0;                // exhaustive simulation: states visited
  std::uint64_t iterations = 0;            // random mode / hardware: runs
  // Hardware with host threads: the runs whose host and GPU threads overlapped in time
  // (runner::SimResult::overlapped).
  std::optional<std::uint64_t> overlapped;
  // Hardware: the instances each launch ran (runner::SimResult::instances_per_launch).
  std::optional<std::uint64_t> instances_per_launch;
  double seconds = 0;
};

// One litmus test of a campaign.
struct TestRecord {
  std::string file;  // as the campaign found it (relative to where it ran)
  std::string name;  // the test's name; the file's stem when it could not be read
  std::string description;
  std::string content_hash;                // FNV-1a 64 of the file's bytes, 16 hex digits
  std::string parse_error;                 // the first diagnostic (`file:line:col: error: ...`); empty if it parsed
  std::string condition;                   // `exists (1:r0=1 /\ 1:r1=0)`
  std::vector<std::string> observed_refs;  // `1:r0`, `x`: the columns of every outcome
  VerdictClass verdict = VerdictClass::Unknown;
  std::string reason;  // one line: why this verdict (what is forbidden, racy, unknown)
  ModelStage model;
  CompileStage compile;
  RunStage run;
  double seconds = 0;  // wall time of the whole test
  // A violation only: the litmus file's text (shown beside the generated code), and the
  // documented findings it matches (empty for every other verdict and in older results).
  std::string source;
  std::vector<FindingRef> findings;

  std::vector<const ObservedOutcome*> violations() const;  // observed and forbidden
  // Whether its outcomes are judged against the model's allowed set: the model decided it and
  // found it race-free.
  bool judged() const { return model.status == StageStatus::Ok && !model.racy; }
};

struct Shard {
  unsigned index = 0;  // 0 .. count-1
  unsigned count = 1;
  friend bool operator==(const Shard&, const Shard&) = default;
};

// What a campaign ran with. Two result sets can be merged only when `configuration_key`
// (everything but inputs, shard and times) agrees.
struct CampaignInfo {
  std::string hsalit_version;
  // The commit hsalit was built from ("unknown" outside a git checkout, and in files written
  // before it was recorded) and whether the tree differed from it. Not part of the
  // configuration: a campaign resumed by another build goes on, and records that build.
  std::string source_commit = "unknown";
  bool source_modified = false;
  std::string target;
  std::string mapping;       // the table's name
  std::string mapping_file;  // the file it came from; empty for a shipped table
  std::string mapping_hash;  // FNV-1a 64 of the table's text (shipped or file)
  std::string flavour = "hsa";
  std::string backend = "sim";
  std::string harness;  // hardware backends: `instances=1024 incantations=stress,shuffle`; empty for sim
  std::string model = "hsa";
  std::string engine = "z3";
  // The table's rows for scacq and screl: seq_cst ones (--sc-orders) or acquire/release ones.
  bool sc_orders = false;
  // The simulator's hardware assumptions (--assume), sorted, each once.
  std::vector<std::string> assumptions;
  bool exhaustive = true;
  std::uint64_t iterations = 0;  // random mode
  std::uint64_t seed = 0;        // random mode
  double time_limit_seconds = 0;
  std::vector<std::string> inputs;
  std::optional<Shard> shard;
  std::string started;   // ISO 8601 UTC
  std::string finished;  // ISO 8601 UTC
  double wall_seconds = 0;

  nlohmann::json configuration_key() const;
};

struct Summary {
  std::size_t tests = 0, consistent = 0, violation = 0, undefined = 0, unknown = 0;
  std::size_t allowed_outcomes = 0, covered_outcomes = 0;  // coverage over decided, non-racy tests
  std::size_t count(VerdictClass v) const;
};

// What `hsalit verify-mapping` decided over its tests (docs/verification.md). A generated
// bound keeps only its counterexamples and undecided tests as records; the counts of the
// rest, the bound's statistics and the verdict live here. Shards of one bound merge into the
// bound's verification: counts and statistics add up, rows used join.
struct Verification {
  std::string bound;  // `--generate` SPEC without its shard, or `N given tests`
  std::size_t tests = 0, sound = 0, counterexamples = 0, racy = 0, unsupported = 0, unknown = 0;
  std::vector<std::string> rows_used;  // sorted, each once
  // The bound's counters by name (`spaces`, `variations`, `checked`...; BoundStatistics).
  std::map<std::string, std::uint64_t> statistics;
  double cpu_seconds = 0;

  // `N counterexamples`; else `sound up to the bound` when every test was judged (none
  // unsupported or unknown), else `unknown: N of M tests not judged (U unsupported, K
  // unknown)` (as verify.txt says).
  std::string verdict() const;
};

struct CampaignResults {
  CampaignInfo info;
  std::vector<TestRecord> tests;             // sorted by file
  std::optional<Verification> verification;  // verify-mapping runs only

  Summary summary() const;
};

// A results file that does not follow the schema: the message names the file and the entry.
struct ResultsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

nlohmann::json to_json(const TestRecord& record);
nlohmann::json to_json(const CampaignInfo& info);
nlohmann::json to_json(const Summary& summary);  // results.json's "summary"
nlohmann::json to_json(const Verification& verification);
nlohmann::json to_json(const CampaignResults& results);
// `where` prefixes error messages (a file name, `journal.jsonl:12`).
TestRecord test_record_from_json(const nlohmann::json& j, std::string_view where);
CampaignInfo campaign_info_from_json(const nlohmann::json& j, std::string_view where);
Verification verification_from_json(const nlohmann::json& j, std::string_view where);
CampaignResults campaign_results_from_json(const nlohmann::json& j, std::string_view where);

// results.json in a folder: read (throws ResultsError) and written atomically.
inline constexpr std::string_view kResultsFile = "results.json";
CampaignResults read_results(const std::filesystem::path& file);
void write_results(const std::filesystem::path& file, const CampaignResults& results);

// Joins the results of shards (or of campaigns over disjoint tests) of one configuration:
// throws ResultsError naming the first setting that differs (target, mapping, backend, model,
// mode, assumptions...), a test present twice, or a set of shards with one missing.
// Verifications (of shards of one bound) are joined into one. `sources` names each part in
// messages.
CampaignResults merge_results(std::span<const CampaignResults> parts, std::span<const std::string> sources);

// Names as a set is recorded (assumptions, rows used): sorted, each once.
std::vector<std::string> name_set(std::vector<std::string> names);

// FNV-1a 64 of bytes, as 16 hex digits.
std::string content_hash(std::string_view bytes);

}  // namespace hsalit::results
