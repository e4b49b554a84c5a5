// The results folder of `verify-mapping` and `verify-llc` (docs/verification.md, "Results"):
// the campaign format (results.json and its reports) with a verification block, the text
// report as verify.txt, and each counterexample's test.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/litmus/generate.hpp"
#include "hsalit/results/campaign.hpp"
#include "hsalit/verify/bound.hpp"
#include "hsalit/verify/verify.hpp"

namespace hsalit::cli {

// A `--generate` spec without its `shard=I/N` item: what the shards of one bound share.
std::string spec_without_shard(std::string_view spec);

// The inputs a run records: the files and folders given, or `--generate SPEC` without the
// shard, which goes to `info.shard`, so that `hsalit results merge` joins the shards of a
// bound into the bound's verification (and refuses an incomplete set).
void record_inputs(results::CampaignInfo& info, const std::vector<std::string>& inputs, const std::string& generate,
                   const std::optional<litmus::GenerateOptions>& generated);

// The verification as results.json records it: counts, rows used, the bound's statistics
// (when the tests were a generated bound verified by classes).
results::Verification verification_record(const verify::VerifyReport& report, const std::string& bound,
                                          const std::vector<std::string>& rows_used,
                                          const std::optional<verify::BoundStatistics>& statistics);

// Writes `dir`: results.json (the report's kept tests as campaign records, `verification`),
// the campaign reports, `text` as verify.txt, and counterexamples/NAME.litmus. Every file is
// written atomically; throws what the writes throw.
void write_verify_results(const std::filesystem::path& dir, results::CampaignInfo info,
                          const verify::VerifyReport& report, results::Verification verification,
                          const std::string& text);

}  // namespace hsalit::cli
