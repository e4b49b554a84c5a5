// compare.md and compare.html: the matrix of tests by campaigns, and (HTML) three plots drawn
// as inline SVG so that the page stays self-contained: allowed-outcome coverage per campaign,
// outcomes by how often they were observed (log scales), and runs per second per test.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "hsalit/results/compare.hpp"
#include "hsalit/results/report.hpp"

namespace hsalit::results {

namespace {

constexpr std::string_view kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                         "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

std::string_view colour(std::size_t campaign) { return kPalette[campaign % std::size(kPalette)]; }

std::string percent(std::size_t part, std::size_t whole) {
  return whole == 0 ? std::string("-") : fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / whole);
}

std::string rate_text(double rate) {
  if (rate >= 1e6) return fmt::format("{:.2f} M/s", rate / 1e6);
  if (rate >= 1e3) return fmt::format("{:.1f} k/s", rate / 1e3);
  return fmt::format("{:.0f} /s", rate);
}

// One cell as text: `consistent 3/4` (covered of allowed), with the run rate on hardware.
std::string cell_text(const std::optional<ComparisonCell>& cell) {
  if (!cell) return "-";
  std::string text(to_string(cell->verdict));
  if (cell->allowed) text += fmt::format(" {}/{}", cell->covered, cell->allowed);
  if (auto rate = cell->runs_per_second()) text += ", " + rate_text(*rate);
  return text;
}

std::string campaign_settings(const ComparedCampaign& c) {
  const CampaignInfo& info = c.results.info;
  std::string text = fmt::format("{}; {}; model {}", mode_text(info), settings_text(info), info.model);
  if (!info.harness.empty()) text += "; " + info.harness;
  return text;
}

std::string verdict_of_campaign(const ComparedCampaign& c) {
  if (c.results.verification) return verification_text(*c.results.verification);
  const Summary s = c.results.summary();
  return fmt::format("{} tests: {} consistent, {} violation, {} undefined, {} unknown", s.tests, s.consistent,
                     s.violation, s.undefined, s.unknown);
}

// ---------------------------------------------------------------- plots

// Observation counts by decade: bucket 0 holds allowed outcomes never observed, bucket k
// counts observed k-1 digits long (1-9, 10-99, ...).
constexpr std::size_t kDecades = 11;
std::size_t decade_of(std::uint64_t count) {
  std::size_t bucket = 0;
  for (std::uint64_t c = count; c > 0 && bucket + 1 < kDecades; c /= 10) ++bucket;
  return bucket;
}

std::array<std::size_t, kDecades> observation_decades(const CampaignResults& r) {
  std::array<std::size_t, kDecades> buckets{};
  for (const TestRecord& t : r.tests) {
    std::map<Outcome, std::uint64_t> counts;
    if (t.judged())
      for (const AllowedOutcome& a : t.model.allowed) counts[a.outcome] = 0;
    for (const ObservedOutcome& o : t.run.histogram) counts[o.outcome] = o.count;
    for (const auto& [outcome, count] : counts) ++buckets[decade_of(count)];
  }
  return buckets;
}

std::string coverage_plot(const Comparison& cmp) {
  constexpr int kBar = 22, kWidth = 420, kLeft = 10, kTop = 10;
  const int height = kTop * 2 + static_cast<int>(cmp.campaigns.size()) * (kBar + 8);
  std::string svg = fmt::format(R"(<svg id="plot-coverage" width="{}" height="{}" role="img" aria-label="coverage">)",
                                kWidth + 640, height);
  for (std::size_t c = 0; c < cmp.campaigns.size(); ++c) {
    const CampaignCoverage& cov = cmp.coverage[c];
    const double share = cov.allowed ? static_cast<double>(cov.covered) / cov.allowed : 0;
    const int y = kTop + static_cast<int>(c) * (kBar + 8);
    svg += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="#eee"/>)", kLeft, y, kWidth, kBar);
    svg += fmt::format(R"(<rect x="{}" y="{}" width="{:.1f}" height="{}" fill="{}"><title>{}</title></rect>)", kLeft, y,
                       share * kWidth, kBar, colour(c), escape_xml(cmp.campaigns[c].label));
    svg += fmt::format(R"(<text x="{}" y="{}">{} {}/{} ({})</text>)", kLeft + kWidth + 6, y + 15,
                       escape_xml(cmp.campaigns[c].label), cov.covered, cov.allowed, percent(cov.covered, cov.allowed));
  }
  return svg + "</svg>";
}

// Grouped bars, one group per decade, one bar per campaign; the height is log10(1 + outcomes).
std::string observations_plot(const Comparison& cmp) {
  const std::size_t n = cmp.campaigns.size();
  std::vector<std::array<std::size_t, kDecades>> buckets;
  std::size_t most = 1;
  for (const ComparedCampaign& c : cmp.campaigns) {
    buckets.push_back(observation_decades(c.results));
    for (std::size_t b : buckets.back()) most = std::max(most, b);
  }
  constexpr int kPlot = 180, kLeft = 50, kTop = 10;
  const int bar = std::max(3, static_cast<int>(48 / n)), group = bar * static_cast<int>(n) + 10;
  const int width = kLeft + group * static_cast<int>(kDecades) + 10;
  const double top = std::log10(1.0 + static_cast<double>(most));
  std::string svg = fmt::format(
      R"(<svg id="plot-observations" width="{}" height="{}" role="img" aria-label="observations">)", width, kPlot + 50);
  for (int p = 0; std::pow(10.0, p) <= most; ++p) {  // y axis: 1, 10, 100 outcomes
    const int y = kTop + kPlot - static_cast<int>(std::log10(1.0 + std::pow(10.0, p)) / top * kPlot);
    svg += fmt::format(R"(<line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#ddd"/><text x="4" y="{}">{}</text>)", kLeft,
                       width, y, y, y + 4, static_cast<long long>(std::pow(10.0, p)));
  }
  for (std::size_t d = 0; d < kDecades; ++d) {
    const int x0 = kLeft + static_cast<int>(d) * group;
    for (std::size_t c = 0; c < n; ++c) {
      const double h = std::log10(1.0 + static_cast<double>(buckets[c][d])) / top * kPlot;
      svg += fmt::format(R"(<rect x="{}" y="{:.1f}" width="{}" height="{:.1f}" fill="{}"><title>{}: {}</title></rect>)",
                         x0 + static_cast<int>(c) * bar, kTop + kPlot - h, bar - 1, h, colour(c),
                         escape_xml(cmp.campaigns[c].label), buckets[c][d]);
    }
    const std::string label = d == 0 ? "0" : d == 1 ? "1" : fmt::format("1e{}", d - 1);
    svg += fmt::format(R"(<text x="{}" y="{}">{}</text>)", x0, kTop + kPlot + 16, label);
  }
  svg +=
      fmt::format(R"(<text x="{}" y="{}">times observed (decade, log scale); bar height: outcomes (log scale)</text>)",
                  kLeft, kTop + kPlot + 36);
  return svg + "</svg>";
}

// Runs per second per test, for campaigns that count runs: minimum, quartiles and maximum
// on a log axis, one line per campaign. Empty when no campaign counts runs.
std::string rate_plot(const Comparison& cmp) {
  std::vector<std::vector<double>> rates(cmp.campaigns.size());
  double low = 1e300, high = 0;
  for (const ComparisonRow& row : cmp.rows)
    for (std::size_t c = 0; c < row.cells.size(); ++c)
      if (row.cells[c])
        if (auto rate = row.cells[c]->runs_per_second()) {
          rates[c].push_back(*rate);
          low = std::min(low, *rate);
          high = std::max(high, *rate);
        }
  if (high == 0) return {};
  const double lo = std::floor(std::log10(low)), hi = std::max(lo + 1, std::ceil(std::log10(high)));
  // One row per campaign that counts runs: its label above its box.
  constexpr int kWidth = 600, kLeft = 10, kRow = 40, kTop = 10;
  auto x_of = [&](double rate) { return kLeft + (std::log10(rate) - lo) / (hi - lo) * kWidth; };
  const auto counted = static_cast<int>(std::count_if(rates.begin(), rates.end(), [](auto& r) { return !r.empty(); }));
  const int height = kTop + counted * kRow + 24;
  std::string svg = fmt::format(
      R"(<svg id="plot-rates" width="{}" height="{}" role="img" aria-label="runs per second">)", kWidth + 40, height);
  for (double p = lo; p <= hi; ++p)
    svg += fmt::format(
        R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#ddd"/><text x="{0:.1f}" y="{3}">1e{4}</text>)",
        x_of(std::pow(10.0, p)), kTop, height - 20, height - 6, static_cast<int>(p));
  int row = 0;
  for (std::size_t c = 0; c < rates.size(); ++c) {
    std::vector<double>& r = rates[c];
    if (r.empty()) continue;
    std::sort(r.begin(), r.end());
    auto at = [&](double q) { return r[static_cast<std::size_t>(q * static_cast<double>(r.size() - 1))]; };
    const int y = kTop + row++ * kRow + 26;
    svg += fmt::format(R"(<text x="{}" y="{}">{}: median {} over {} tests</text>)", kLeft, y - 12,
                       escape_xml(cmp.campaigns[c].label), rate_text(at(.5)), r.size());
    svg += fmt::format(R"(<line x1="{:.1f}" x2="{:.1f}" y1="{}" y2="{}" stroke="{}"/>)", x_of(r.front()),
                       x_of(r.back()), y, y, colour(c));
    svg += fmt::format(R"(<rect x="{:.1f}" y="{}" width="{:.1f}" height="10" fill="{}" opacity=".5"/>)", x_of(at(.25)),
                       y - 5, std::max(1.0, x_of(at(.75)) - x_of(at(.25))), colour(c));
    svg += fmt::format(
        R"(<line x1="{0:.1f}" x2="{0:.1f}" y1="{1}" y2="{2}" stroke="#000" stroke-width="2"><title>median {3}</title></line>)",
        x_of(at(.5)), y - 7, y + 7, rate_text(at(.5)));
  }
  return svg + "</svg>";
}

constexpr std::string_view kCompareStyle = R"(
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1400px;color:#1d1d1f;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right}
.consistent{background:#dff3e0}.violation{background:#fde0e0}.undefined{background:#fff3cd}.unknown{background:#e8e8ee}
.absent{color:#999}tr.differs td:first-child{border-left:4px solid #b71c1c}
button.filter{margin:.2em;padding:.3em .7em;border:1px solid #999;border-radius:.7em;background:#fff;cursor:pointer}
button.filter.on{background:#1d1d1f;color:#fff}
svg text{font-family:ui-monospace,monospace;font-size:11px}
)";

// Buttons filter the matrix by agreement; "all" shows every row again.
constexpr std::string_view kCompareScript = R"(
(function () {
  var rows = document.querySelectorAll('#matrix tbody tr');
  var buttons = document.querySelectorAll('button.filter');
  buttons.forEach(function (button) {
    button.addEventListener('click', function () {
      var want = button.getAttribute('data-agreement');
      buttons.forEach(function (b) { b.classList.toggle('on', b === button); });
      rows.forEach(function (row) {
        row.style.display = want === 'all' || row.getAttribute('data-agreement') === want ? '' : 'none';
      });
    });
  });
})();
)";

std::string agreement_key(Agreement a) {
  std::string key(to_string(a));
  std::replace(key.begin(), key.end(), ' ', '-');
  return key;
}

}  // namespace

std::string render_compare_markdown(const Comparison& cmp) {
  std::string out =
      "# hsalit: campaigns side by side\n\n| | campaign | source | settings | verdict | coverage over common tests |\n";
  out += "| --- | --- | --- | --- | --- | ---: |\n";
  for (std::size_t c = 0; c < cmp.campaigns.size(); ++c) {
    const ComparedCampaign& cc = cmp.campaigns[c];
    const CampaignCoverage& cov = cmp.coverage[c];
    out += fmt::format("| {} | {} | {} | {} | {} | {}/{} over {} tests |\n", c + 1, md_cell(cc.label),
                       md_cell(cc.source), md_cell(campaign_settings(cc)), md_cell(verdict_of_campaign(cc)),
                       cov.covered, cov.allowed, cov.common_tests);
  }
  out += fmt::format("\n{} tests, {} where the campaigns disagree{}.\n\n", cmp.rows.size(), cmp.disagreements(),
                     cmp.disagreements() ? " (listed first)" : "");
  out += "| test | agreement |";
  for (std::size_t c = 0; c < cmp.campaigns.size(); ++c) out += fmt::format(" {} |", c + 1);
  out += "\n| --- | --- |";
  for (std::size_t c = 0; c < cmp.campaigns.size(); ++c) out += " --- |";
  out += "\n";
  for (const ComparisonRow& row : cmp.rows) {
    out += fmt::format("| {} | {} |", md_cell(row.test), to_string(row.agreement));
    for (const std::optional<ComparisonCell>& cell : row.cells) out += fmt::format(" {} |", md_cell(cell_text(cell)));
    out += "\n";
  }
  return out;
}

std::string render_compare_html(const Comparison& cmp) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>hsalit: {} campaigns side by "
      "side</title><style>{}</style></head><body>\n<h1>Campaigns side by side</h1>\n",
      cmp.campaigns.size(), kCompareStyle);
  out +=
      "<table id=\"campaigns\"><thead><tr><th>#</th><th>campaign</th><th>source</th><th>settings</th><th>verdict</th>"
      "<th>coverage over common tests</th></tr></thead><tbody>\n";
  for (std::size_t c = 0; c < cmp.campaigns.size(); ++c) {
    const ComparedCampaign& cc = cmp.campaigns[c];
    const CampaignCoverage& cov = cmp.coverage[c];
    out += fmt::format(
        "<tr><td style=\"border-left:6px solid {}\">{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td "
        "class=\"num\">{}/{} ({}) over {} tests</td></tr>\n",
        colour(c), c + 1, escape_xml(cc.label), escape_xml(cc.source), escape_xml(campaign_settings(cc)),
        escape_xml(verdict_of_campaign(cc)), cov.covered, cov.allowed, percent(cov.covered, cov.allowed),
        cov.common_tests);
  }
  out += "</tbody></table>\n<p id=\"filters\">";
  std::map<Agreement, std::size_t> counts;
  for (const ComparisonRow& row : cmp.rows) ++counts[row.agreement];
  out += fmt::format("<button class=\"filter on\" data-agreement=\"all\">all {}</button>", cmp.rows.size());
  for (const auto& [agreement, count] : counts)
    out += fmt::format("<button class=\"filter\" data-agreement=\"{}\">{} {}</button>", agreement_key(agreement),
                       to_string(agreement), count);
  out += "</p>\n<table id=\"matrix\"><thead><tr><th>test</th><th>agreement</th>";
  for (std::size_t c = 0; c < cmp.campaigns.size(); ++c)
    out += fmt::format("<th style=\"border-top:4px solid {}\">{}: {}</th>", colour(c), c + 1,
                       escape_xml(cmp.campaigns[c].label));
  out += "</tr></thead><tbody>\n";
  for (const ComparisonRow& row : cmp.rows) {
    out += fmt::format("<tr data-agreement=\"{}\"{}><td>{}</td><td>{}</td>", agreement_key(row.agreement),
                       row.agreement == Agreement::Agree ? "" : " class=\"differs\"", escape_xml(row.test),
                       to_string(row.agreement));
    for (const std::optional<ComparisonCell>& cell : row.cells)
      if (cell)
        out += fmt::format("<td class=\"{}\" title=\"{}\">{}</td>", to_string(cell->verdict), escape_xml(cell->reason),
                           escape_xml(cell_text(cell)));
      else
        out += "<td class=\"absent\">-</td>";
    out += "</tr>\n";
  }
  out += "</tbody></table>\n<h2>Allowed outcomes observed, over the tests every campaign judged</h2>\n";
  out += coverage_plot(cmp);
  out += "\n<h2>Outcomes by times observed</h2>\n" + observations_plot(cmp);
  if (std::string rates = rate_plot(cmp); !rates.empty()) out += "\n<h2>Runs per second per test</h2>\n" + rates;
  out += fmt::format("\n<script>{}</script>\n</body></html>\n", kCompareScript);
  return out;
}

}  // namespace hsalit::results
