// The findings the documentation records (docs/mappings.md), as data (docs/findings.json,
// installed as share/hsalit/findings.json): for each, the tests that exhibit it and under
// which configurations (tables, flavours, seq_cst rows, assumptions, backends, targets). A
// campaign records, with each violation, the findings its test and configuration match, so
// that a report names the write-up a violation is already explained by.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hsalit/results/campaign.hpp"

namespace hsalit::results {

inline constexpr std::string_view kFindingsSchema = "hsalit-findings/1";
inline constexpr std::string_view kFindingsFile = "findings.json";

// One configuration under which some tests exhibit a finding. An empty list, or no
// `sc_orders`, matches any campaign.
struct FindingCondition {
  std::vector<std::string> tests;   // test names (as the litmus file names them)
  std::vector<std::string> tables;  // the campaign's mapping (its table's name)
  std::vector<std::string> flavours;
  std::vector<std::string> backends;     // sim, hip, cuda
  std::vector<std::string> targets;      // gfx900, sm_90
  std::optional<bool> sc_orders;         // --sc-orders given or not
  std::vector<std::string> assumptions;  // each among the campaign's --assume

  bool matches(const CampaignInfo& info, std::string_view test) const;
};

struct Finding {
  FindingRef ref;
  std::vector<FindingCondition> exhibited_by;
};

// Throws ResultsError naming the file (or `where`) and the entry that does not follow the
// schema.
std::vector<Finding> findings_from_json(const nlohmann::json& j, std::string_view where);
std::vector<Finding> read_findings(const std::filesystem::path& file);

// The findings `record` matches: none unless it is a violation.
std::vector<FindingRef> matching_findings(std::span<const Finding> findings, const CampaignInfo& info,
                                          const TestRecord& record);

}  // namespace hsalit::results
