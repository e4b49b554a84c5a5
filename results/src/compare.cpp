// Matching tests across campaigns and deciding where the campaigns disagree.
#include "hsalit/results/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "hsalit/results/atomic_file.hpp"

namespace hsalit::results {

using nlohmann::json;

std::string_view to_string(Agreement a) {
  switch (a) {
    case Agreement::VerdictsDiffer: return "verdicts differ";
    case Agreement::AllowedSetsDiffer: return "allowed sets differ";
    case Agreement::SourcesDiffer: return "sources differ";
    case Agreement::Missing: return "missing";
    case Agreement::Agree: return "agree";
  }
  return "agree";
}

std::optional<double> ComparisonCell::runs_per_second() const {
  if (iterations == 0 || run_seconds <= 0) return std::nullopt;
  return static_cast<double>(iterations) / run_seconds;
}

std::size_t Comparison::disagreements() const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const ComparisonRow& r) { return r.agreement != Agreement::Agree; }));
}

bool Comparison::passes() const {
  for (const ComparisonRow& row : rows) {
    if (row.agreement != Agreement::Agree) return false;
    for (const std::optional<ComparisonCell>& cell : row.cells)
      if (cell && (cell->verdict == VerdictClass::Violation || cell->verdict == VerdictClass::Unknown)) return false;
  }
  return true;
}

std::string campaign_label(const CampaignInfo& info) {
  std::string label = fmt::format("{} {}", info.target, info.mapping);
  if (info.flavour != "hsa") label += "/" + info.flavour;
  label += " " + info.backend;
  if (info.sc_orders) label += " sc-orders";
  if (info.model != "hsa") label += " model=" + info.model;
  for (const std::string& a : info.assumptions) label += " +" + a;
  return label;
}

namespace {

ComparisonCell cell_of(const TestRecord& t) {
  ComparisonCell cell;
  cell.verdict = t.verdict;
  cell.reason = t.reason;
  cell.content_hash = t.content_hash;
  if (t.judged())
    for (const AllowedOutcome& a : t.model.allowed) {
      ++cell.allowed;
      cell.covered += a.observed > 0;
    }
  for (const ObservedOutcome& o : t.run.histogram) cell.observations += o.count;
  cell.iterations = t.run.iterations;
  cell.run_seconds = t.run.seconds;
  return cell;
}

// The key each test of a campaign is matched by: its name, or its file where the campaign
// holds two tests of one name (two folders of a library may reuse a name).
std::vector<std::string> match_keys(const CampaignResults& r) {
  std::map<std::string, int> uses;
  for (const TestRecord& t : r.tests) ++uses[t.name];
  std::vector<std::string> keys;
  for (const TestRecord& t : r.tests) keys.push_back(uses[t.name] > 1 ? t.file : t.name);
  return keys;
}

std::vector<Outcome> allowed_set(const TestRecord& t) {
  std::vector<Outcome> set;
  for (const AllowedOutcome& a : t.model.allowed) set.push_back(a.outcome);
  std::sort(set.begin(), set.end());
  return set;
}

// The first disagreement that holds among the records of one test (nullptr: not in that campaign).
Agreement agreement_of(const std::vector<const TestRecord*>& records) {
  std::set<VerdictClass> verdicts;
  std::set<std::string> hashes;
  std::set<std::vector<Outcome>> allowed_sets;
  bool missing = false;
  for (const TestRecord* t : records) {
    if (!t) {
      missing = true;
      continue;
    }
    verdicts.insert(t->verdict);
    if (!t->content_hash.empty()) hashes.insert(t->content_hash);
    if (t->judged()) allowed_sets.insert(allowed_set(*t));
  }
  if (verdicts.size() > 1) return Agreement::VerdictsDiffer;
  if (allowed_sets.size() > 1) return Agreement::AllowedSetsDiffer;
  if (hashes.size() > 1) return Agreement::SourcesDiffer;
  if (missing) return Agreement::Missing;
  return Agreement::Agree;
}

// Labels made unique by the folder a campaign came from, then by its position.
void make_labels_unique(std::vector<ComparedCampaign>& campaigns) {
  auto count = [&](const std::string& label) {
    return std::count_if(campaigns.begin(), campaigns.end(),
                         [&](const ComparedCampaign& c) { return c.label == label; });
  };
  std::vector<std::string> with_folder;
  for (const ComparedCampaign& c : campaigns) {
    const std::string folder = std::filesystem::path(c.source).parent_path().filename().string();
    with_folder.push_back(count(c.label) > 1 && !folder.empty() ? fmt::format("{} ({})", c.label, folder) : c.label);
  }
  for (std::size_t i = 0; i < campaigns.size(); ++i) campaigns[i].label = with_folder[i];
  for (std::size_t i = 0; i < campaigns.size(); ++i)
    if (count(campaigns[i].label) > 1) campaigns[i].label += fmt::format(" #{}", i + 1);
}

}  // namespace

Comparison compare_campaigns(std::vector<ComparedCampaign> campaigns) {
  if (campaigns.size() < 2)
    throw ResultsError(fmt::format("error: --compare needs at least two campaigns, got {}", campaigns.size()));
  make_labels_unique(campaigns);
  // Test key -> its record in each campaign.
  std::map<std::string, std::vector<const TestRecord*>> by_key;
  for (std::size_t c = 0; c < campaigns.size(); ++c) {
    const std::vector<std::string> keys = match_keys(campaigns[c].results);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      std::vector<const TestRecord*>& records = by_key[keys[i]];
      records.resize(campaigns.size(), nullptr);
      records[c] = &campaigns[c].results.tests[i];
    }
  }
  Comparison out;
  out.coverage.resize(campaigns.size());
  for (const auto& [key, records] : by_key) {
    ComparisonRow row;
    row.test = key;
    row.agreement = agreement_of(records);
    for (const TestRecord* t : records) row.cells.push_back(t ? std::optional(cell_of(*t)) : std::nullopt);
    const bool common =
        std::all_of(records.begin(), records.end(), [](const TestRecord* t) { return t && t->judged(); });
    for (std::size_t c = 0; common && c < records.size(); ++c) {
      ++out.coverage[c].common_tests;
      out.coverage[c].allowed += row.cells[c]->allowed;
      out.coverage[c].covered += row.cells[c]->covered;
    }
    out.rows.push_back(std::move(row));
  }
  std::stable_sort(out.rows.begin(), out.rows.end(),
                   [](const ComparisonRow& a, const ComparisonRow& b) { return a.agreement < b.agreement; });
  out.campaigns = std::move(campaigns);
  return out;
}

json to_json(const Comparison& comparison) {
  json campaigns = json::array();
  for (std::size_t c = 0; c < comparison.campaigns.size(); ++c) {
    const ComparedCampaign& cc = comparison.campaigns[c];
    json entry = {{"label", cc.label},
                  {"source", cc.source},
                  {"campaign", to_json(cc.results.info)},
                  {"summary", to_json(cc.results.summary())},
                  {"common_coverage",
                   {{"tests", comparison.coverage[c].common_tests},
                    {"allowed_outcomes", comparison.coverage[c].allowed},
                    {"covered_outcomes", comparison.coverage[c].covered}}}};
    if (cc.results.verification) entry["verification"] = to_json(*cc.results.verification);
    campaigns.push_back(std::move(entry));
  }
  json rows = json::array();
  for (const ComparisonRow& row : comparison.rows) {
    json cells = json::array();
    for (const std::optional<ComparisonCell>& cell : row.cells) {
      if (!cell) {
        cells.push_back(nullptr);
        continue;
      }
      json j = {{"verdict", to_string(cell->verdict)}, {"reason", cell->reason},
                {"allowed_outcomes", cell->allowed},   {"covered_outcomes", cell->covered},
                {"observations", cell->observations},  {"iterations", cell->iterations},
                {"run_seconds", cell->run_seconds},    {"content_hash", cell->content_hash}};
      if (auto rate = cell->runs_per_second()) j["runs_per_second"] = *rate;
      cells.push_back(std::move(j));
    }
    rows.push_back({{"test", row.test}, {"agreement", to_string(row.agreement)}, {"cells", std::move(cells)}});
  }
  return {{"schema", kCompareSchema},
          {"campaigns", std::move(campaigns)},
          {"disagreements", comparison.disagreements()},
          {"passes", comparison.passes()},
          {"rows", std::move(rows)}};
}

void write_comparison(const std::filesystem::path& dir, const Comparison& comparison) {
  std::filesystem::create_directories(dir);
  write_file_atomically(dir / kCompareJson, to_json(comparison).dump(1) + "\n");
  write_file_atomically(dir / kCompareMarkdown, render_compare_markdown(comparison));
  write_file_atomically(dir / kCompareHtml, render_compare_html(comparison));
}

}  // namespace hsalit::results
