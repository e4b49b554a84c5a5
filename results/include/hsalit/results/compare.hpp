// Campaigns side by side (`hsalit report --compare A B ... --out DIR`, docs/campaigns.md): one
// matrix of tests by campaigns, each cell the test's verdict and coverage in that campaign, rows
// where the campaigns disagree first; written as compare.json (schema `hsalit-compare/1`),
// compare.md and a self-contained compare.html with its plots.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hsalit/results/campaign.hpp"

namespace hsalit::results {

inline constexpr std::string_view kCompareSchema = "hsalit-compare/1";
inline constexpr std::string_view kCompareJson = "compare.json";
inline constexpr std::string_view kCompareMarkdown = "compare.md";
inline constexpr std::string_view kCompareHtml = "compare.html";

// One campaign (or verification) of a comparison: its results and where they came from.
struct ComparedCampaign {
  std::string label;   // the column's heading: unique within the comparison
  std::string source;  // the results.json it was read from
  CampaignResults results;
};

// How a row's campaigns differ, most telling first: a row's agreement is the first that holds.
enum class Agreement : std::uint8_t {
  VerdictsDiffer,     // two campaigns that ran the test gave it different verdict classes
  AllowedSetsDiffer,  // same verdicts, but the models allow different outcome sets
  SourcesDiffer,      // the test's file differs between campaigns (content hash)
  Missing,            // some campaign has no record of the test
  Agree,              // same verdict, same source, same allowed set everywhere
};
std::string_view to_string(Agreement a);

// One cell: a test in one campaign. Counts are over the model's allowed outcomes of a decided,
// non-racy test, as the campaign summary counts them.
struct ComparisonCell {
  VerdictClass verdict = VerdictClass::Unknown;
  std::string reason;
  std::size_t allowed = 0, covered = 0;
  std::uint64_t observations = 0;  // outcomes observed, all counts added
  std::uint64_t iterations = 0;    // runs (random mode and hardware); 0 for exhaustive search
  double run_seconds = 0;
  std::string content_hash;
  std::optional<double> runs_per_second() const;
};

struct ComparisonRow {
  std::string test;
  Agreement agreement = Agreement::Agree;
  std::vector<std::optional<ComparisonCell>> cells;  // one per campaign; nullopt: not in it
};

// Per campaign, over the tests every campaign holds and judged (decided, not racy), so that
// the coverage of two campaigns is read over the same tests.
struct CampaignCoverage {
  std::size_t common_tests = 0, allowed = 0, covered = 0;
};

struct Comparison {
  std::vector<ComparedCampaign> campaigns;
  std::vector<ComparisonRow> rows;  // disagreements first (by Agreement), then by test name
  std::vector<CampaignCoverage> coverage;

  std::size_t disagreements() const;  // rows whose agreement is not Agree
  // Whether the comparison passes: every row agrees and no cell is a violation or unknown.
  bool passes() const;
};

// Tests are matched by name (by file where a campaign holds two tests of one name). Throws
// ResultsError when fewer than two campaigns are given.
Comparison compare_campaigns(std::vector<ComparedCampaign> campaigns);

// A column heading for a campaign: target, table and flavour, backend, settings that differ
// between the campaigns compared.
std::string campaign_label(const CampaignInfo& info);

nlohmann::json to_json(const Comparison& comparison);
std::string render_compare_markdown(const Comparison& comparison);
std::string render_compare_html(const Comparison& comparison);

// Writes compare.json, compare.md and compare.html into `dir`, each atomically.
void write_comparison(const std::filesystem::path& dir, const Comparison& comparison);

}  // namespace hsalit::results
