// The reports of a campaign, each a pure function of the results (so `hsalit report DIR`
// regenerates them byte for byte from results.json): Markdown, an HTML report (one page that
// answers what went wrong, and detail pages under pages/; no external request), JUnit
// XML (one test case per litmus test), and a herd7/litmus7-style text log.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/results/campaign.hpp"

namespace hsalit::results {

inline constexpr std::string_view kMarkdownReport = "report.md";
inline constexpr std::string_view kHtmlReport = "report.html";
inline constexpr std::string_view kJunitReport = "junit.xml";
inline constexpr std::string_view kLogReport = "campaign.log";
// The HTML report's per-test pages, in this folder beside it.
inline constexpr std::string_view kPagesFolder = "pages";

// Turns Graphviz DOT into an SVG drawing; nullopt when it cannot (no `dot` installed).
using DotRenderer = std::function<std::optional<std::string>(std::string_view dot)>;
// Runs `dot -Tsvg` when it is installed.
std::optional<std::string> render_dot_with_graphviz(std::string_view dot);

// The table rows and simulator assumptions a run used: `acquire/release rows for scacq and
// screl; assumptions: none`.
std::string settings_text(const CampaignInfo& info);
// How a campaign ran: `exhaustive`, or `random, 1000000 iterations, seed 1`.
std::string mode_text(const CampaignInfo& info);
// Text for a Markdown table cell: pipes and newlines would break the row, and HTML is not
// interpreted (`< > &` escaped, backquotes made quotes).
std::string md_cell(std::string_view text);
// A verification in one line: `sound up to the bound over threads=2,accesses=2: 336 tests (336
// sound, 0 counterexamples, 0 racy, 0 unsupported, 0 unknown)`.
std::string verification_text(const Verification& v);

// What needs attention first: violations, then unknown tests, then undefined ones, then the
// rest (0 to 3); and the indices of results.tests in that order, each class in file order. The
// reports' tables list the tests so.
int attention_rank(VerdictClass v);
std::vector<std::size_t> attention_order(const CampaignResults& results);

std::string render_markdown(const CampaignResults& results);
// The report's first page: the counts (which filter the table), what went wrong (each
// violation with its forbidden states, the model's reason, the simulator's trace and the
// finding it matches; the unknown tests with their reasons), every test in one table
// (violations, unknown, undefined, then the rest), and each violation's whole story.
std::string render_html(const CampaignResults& results, const DotRenderer& dot = render_dot_with_graphviz);

// The detail pages: each test's section, 100 tests a page in results.tests order, the
// page's `file` named in kPagesFolder (`tests-0000.html`, `tests-0001.html`...).
struct ReportPage {
  std::string file;
  std::string html;
};
std::vector<ReportPage> render_test_pages(const CampaignResults& results,
                                          const DotRenderer& dot = render_dot_with_graphviz);
// Per test, in results.tests order, the link to its section: `pages/tests-0003.html#t312`.
std::vector<std::string> test_page_links(const CampaignResults& results);
std::string render_junit(const CampaignResults& results);
std::string render_log(const CampaignResults& results);

// Text escaped for HTML and XML text and attribute values (`& < > " '`); characters XML
// forbids (controls other than tab, newline, return) become U+FFFD.
std::string escape_xml(std::string_view text);

// Writes results.json and the four reports (with the HTML report's pages) into `dir`, each
// file atomically; pages of tests no longer in the results are removed.
void write_all(const std::filesystem::path& dir, const CampaignResults& results);
// Regenerates the four reports from `dir`/results.json.
CampaignResults regenerate_reports(const std::filesystem::path& dir);

}  // namespace hsalit::results
