// `hsalit report DIR...`: regenerate the reports of campaigns from their results.json.
// `hsalit results merge DIR... --out DIR`: join the results of shards.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>
#include <system_error>

#include "commands.hpp"
#include "hsalit/results/campaign.hpp"
#include "hsalit/results/compare.hpp"
#include "hsalit/results/output_folder.hpp"
#include "hsalit/results/report.hpp"

namespace hsalit::cli {

namespace {

namespace fs = std::filesystem;

struct ReportCommandOptions {
  std::vector<std::string> dirs;
  bool compare = false;
  std::string out;
};

struct MergeCommandOptions {
  std::vector<std::string> dirs;
  std::string out;
  bool force = false;
};

// Results that hold a violation, a counterexample or an unknown test do not pass: exit 1, as
// the campaign or verification that wrote them did.
bool holds_a_failure(const results::CampaignResults& r) {
  const results::Summary s = r.summary();
  if (s.violation || s.unknown) return true;
  return r.verification && (r.verification->counterexamples || r.verification->unknown || r.verification->unsupported);
}

// Whether two paths name one folder (the same inode, or the same path once resolved).
bool same_folder(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec)) return true;
  const fs::path ca = fs::weakly_canonical(a, ec);
  if (ec) return false;
  const fs::path cb = fs::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

// A campaign given as its folder or as its results.json.
fs::path results_file_of(const std::string& given) {
  std::error_code ec;
  return fs::is_directory(given, ec) ? fs::path(given) / results::kResultsFile : fs::path(given);
}

// `report --compare A B ... --out DIR` (docs/campaigns.md, "Campaigns side by side").
int run_compare(const ReportCommandOptions& opt) {
  try {
    if (opt.out.empty()) throw results::ResultsError("error: --compare needs --out DIR");
    std::vector<results::ComparedCampaign> campaigns;
    for (const std::string& given : opt.dirs) {
      const fs::path file = results_file_of(given);
      // A campaign's own folder keeps its own reports only.
      if (same_folder(opt.out, file.parent_path()))
        throw results::ResultsError(fmt::format(
            "error: --out {} holds the results of {}; write the comparison to another folder", opt.out, given));
      results::CampaignResults r = results::read_results(file);
      std::string label = results::campaign_label(r.info);
      campaigns.push_back({std::move(label), file.string(), std::move(r)});
    }
    const results::Comparison comparison = results::compare_campaigns(std::move(campaigns));
    const results::FolderLock lock(opt.out);
    results::write_comparison(opt.out, comparison);
    fmt::print("{} campaigns, {} tests, {} where they disagree; report: {}\n", comparison.campaigns.size(),
               comparison.rows.size(), comparison.disagreements(),
               (fs::path(opt.out) / results::kCompareHtml).string());
    return comparison.passes() ? kExitOk : kExitCheckFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "hsalit report --compare: {}\n", e.what());
    return kExitBadInput;
  }
}

int run_report(const ReportCommandOptions& opt) {
  if (opt.compare) return run_compare(opt);
  if (!opt.out.empty()) {
    fmt::print(stderr, "hsalit report: error: --out is for --compare; a campaign's reports go to its own folder\n");
    return kExitBadInput;
  }
  int status = kExitOk;
  std::set<fs::path> seen;  // a folder given twice (under any spelling) is reported and counted once
  for (const std::string& dir : opt.dirs) {
    std::error_code ec;
    fs::path canonical = fs::weakly_canonical(dir, ec);
    if (!seen.insert(ec ? fs::path(dir) : canonical).second) {
      fmt::print(stderr, "hsalit report: note: {}: given more than once; reported once\n", dir);
      continue;
    }
    try {
      results::CampaignResults r = results::regenerate_reports(dir);
      results::Summary s = r.summary();
      fmt::print("{}: {} tests: {} consistent, {} violation, {} undefined, {} unknown; report: {}\n", dir, s.tests,
                 s.consistent, s.violation, s.undefined, s.unknown, (fs::path(dir) / results::kHtmlReport).string());
      if (holds_a_failure(r)) status = std::max(status, kExitCheckFailed);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}\n", e.what());
      status = kExitBadInput;
    }
  }
  return status;
}

int run_merge(const MergeCommandOptions& opt) {
  std::vector<results::CampaignResults> parts;
  std::vector<std::string> sources;
  try {
    for (const std::string& dir : opt.dirs) {
      fs::path file = fs::path(dir) / results::kResultsFile;
      parts.push_back(results::read_results(file));
      sources.push_back(file.string());
    }
    results::CampaignResults merged = results::merge_results(parts, sources);
    // The merge never replaces one of its parts, --force or not.
    for (const std::string& dir : opt.dirs)
      if (same_folder(opt.out, dir))
        throw results::ResultsError(
            fmt::format("error: --out {} is one of the folders merged ({}); choose another folder", opt.out, dir));
    const results::FolderLock lock(opt.out);
    results::refuse_results_of_another_run(
        opt.out, merged.verification ? results::ResultsKind::Verification : results::ResultsKind::Campaign, merged.info,
        opt.force);
    results::remove_stale_results(opt.out);
    results::write_all(opt.out, merged);
    results::Summary s = merged.summary();
    fmt::print("merged {} result sets: {} tests: {} consistent, {} violation, {} undefined, {} unknown; report: {}\n",
               parts.size(), s.tests, s.consistent, s.violation, s.undefined, s.unknown,
               (fs::path(opt.out) / results::kHtmlReport).string());
    if (merged.verification) fmt::print("verification: {}\n", results::verification_text(*merged.verification));
    if (holds_a_failure(merged)) return kExitCheckFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "hsalit results merge: {}\n", e.what());
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

Command add_report_command(CLI::App& app) {
  auto opt = std::make_shared<ReportCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "Regenerate a campaign's reports (HTML, Markdown, JUnit, log) from its results.json, or compare campaigns");
  cmd->add_option("dirs", opt->dirs, "campaign output folders (with --compare: folders or results.json files)")
      ->required();
  cmd->add_flag("--compare", opt->compare,
                "compare two or more campaigns or verifications: one matrix of tests by campaigns, rows where they "
                "disagree first (compare.html, compare.md, compare.json in --out); exit 1 where they disagree or a "
                "cell is a violation or unknown");
  cmd->add_option("--out", opt->out, "with --compare: the folder for the comparison (not a campaign's own folder)");
  return {cmd, [opt] { return run_report(*opt); }};
}

Command add_results_command(CLI::App& app) {
  auto opt = std::make_shared<MergeCommandOptions>();
  CLI::App* cmd = app.add_subcommand("results", "Work with campaign results");
  cmd->require_subcommand(1);
  CLI::App* merge = cmd->add_subcommand("merge", "Join the results of shards of one campaign configuration");
  merge->add_option("dirs", opt->dirs, "campaign output folders (one per shard)")->required();
  merge
      ->add_option("--out", opt->out,
                   "the folder for the merged results and reports (not one of the merged folders; refused where "
                   "another run's results are, unless --force)")
      ->required();
  merge->add_flag("--force", opt->force, "replace the results of another run in --out");
  return {cmd, [opt] { return run_merge(*opt); }};
}

}  // namespace hsalit::cli
