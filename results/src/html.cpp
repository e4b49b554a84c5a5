// The HTML report: one self-contained file (inline CSS, inline SVG, a little inline script;
// no external request), readable offline. Every string that comes from a test file or the
// command line goes through escape_xml.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "hsalit/results/report.hpp"

namespace hsalit::results {

namespace {

constexpr std::string_view kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1200px;color:#1d1d1f;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-top:1px solid #ddd;padding-top:1em}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}th.sortable{cursor:pointer;user-select:none}th.sortable:after{content:" \2195";color:#999}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:.1em .5em;border-radius:.7em;font-size:.9em;font-weight:600}
.consistent{background:#dff3e0;color:#1b5e20}.violation{background:#fde0e0;color:#b71c1c}
.undefined{background:#fff3cd;color:#7a5d00}.unknown{background:#e8e8ee;color:#444}
.counts td{font-size:1.1em}.pair{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}
pre{background:#f7f7f9;border:1px solid #e3e3e3;padding:.5em;overflow-x:auto;font-size:.85em;margin:.3em 0}
.code{display:flex;flex-wrap:wrap;gap:1em}.code>div{flex:1 1 360px;min-width:0}
details{margin:.5em 0}summary{cursor:pointer;font-weight:600}.muted{color:#666}.reason{margin:.3em 0}
#filter{margin:.5em 0;padding:.3em;width:20em}
svg text{font-family:ui-monospace,monospace;font-size:12px}
)";

constexpr std::string_view kScript = R"(
(function () {
  var table = document.getElementById('tests');
  if (!table) return;
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  var sortState = { column: -1, ascending: true };
  function key(row, column, numeric) {
    var cell = row.cells[column];
    var value = cell.getAttribute('data-v');
    if (value === null) value = cell.textContent;
    return numeric ? parseFloat(value) || 0 : value.toLowerCase();
  }
  Array.prototype.forEach.call(heads, function (head, column) {
    head.classList.add('sortable');
    head.addEventListener('click', function () {
      var numeric = head.getAttribute('data-type') === 'num';
      sortState.ascending = sortState.column === column ? !sortState.ascending : true;
      sortState.column = column;
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = key(a, column, numeric), y = key(b, column, numeric);
        var order = x < y ? -1 : x > y ? 1 : 0;
        return sortState.ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
  var filter = document.getElementById('filter');
  if (filter) filter.addEventListener('input', function () {
    var words = filter.value.toLowerCase();
    Array.prototype.forEach.call(body.rows, function (row) {
      row.style.display = row.textContent.toLowerCase().indexOf(words) >= 0 ? '' : 'none';
    });
  });
})();
)";

std::string badge(VerdictClass v) { return fmt::format("<span class=\"badge {0}\">{0}</span>", to_string(v)); }

// Allowed outcomes beside the observed histogram, one row per outcome in either.
std::string histogram_chart(const TestRecord& t) {
  struct Row {
    std::uint64_t count = 0;
    bool allowed = false, observed = false;
    Judgement judgement = Judgement::NotJudged;
  };
  std::map<Outcome, Row> rows;
  bool judged = t.model.status == StageStatus::Ok && !t.model.racy;
  for (const AllowedOutcome& a : t.model.allowed) rows[a.outcome].allowed = true;
  for (const ObservedOutcome& o : t.run.histogram) {
    Row& r = rows[o.outcome];
    r.count = o.count;
    r.observed = true;
    r.judgement = o.judgement;
  }
  if (rows.empty()) return "<p class=\"muted\">No outcome to show.</p>";
  std::uint64_t max_count = 1;
  for (const auto& [o, r] : rows) max_count = std::max(max_count, r.count);
  const int label_width = 300, bar_width = 260, row_height = 20, top = 22;
  const int width = label_width + bar_width + 170;
  const int height = top + row_height * static_cast<int>(rows.size()) + 6;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"observed histogram against the allowed set of {2}\">\n",
      width, height, escape_xml(t.name));
  out += fmt::format(
      "<text x=\"0\" y=\"14\" font-weight=\"bold\">outcome</text><text x=\"{}\" y=\"14\" "
      "font-weight=\"bold\">observed count</text>\n",
      label_width);
  int y = top;
  for (const auto& [o, r] : rows) {
    std::string text = format_outcome(t.observed_refs, o);
    std::string fill, note;
    if (r.observed && r.judgement == Judgement::Forbidden) {
      fill = "#d62728";
      note = "FORBIDDEN";
    } else if (r.observed && r.judgement == Judgement::Allowed) {
      fill = "#3b7dd8";
      note = "allowed";
    } else if (r.observed) {
      fill = "#9e9e9e";
      note = "not judged";
    } else {
      fill = "none";
      note = judged ? "allowed, not observed" : "not observed";
    }
    int length = r.observed
                     ? std::max(2, static_cast<int>(static_cast<double>(bar_width) * static_cast<double>(r.count) /
                                                    static_cast<double>(max_count)))
                     : 0;
    out += fmt::format("<g><title>{}: {}{}</title>", escape_xml(text), note,
                       r.observed ? fmt::format(", {} time{}", r.count, r.count == 1 ? "" : "s") : "");
    out +=
        fmt::format("<text x=\"0\" y=\"{}\"{}>{}</text>", y + 14,
                    r.judgement == Judgement::Forbidden && r.observed ? " fill=\"#b71c1c\" font-weight=\"bold\"" : "",
                    escape_xml(text));
    if (r.observed)
      out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"/>", label_width, y + 3, length,
                         row_height - 6, fill);
    else
      out += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#999\" "
          "stroke-dasharray=\"3,2\"/>",
          label_width, y + 3, bar_width / 8, row_height - 6);
    out += fmt::format("<text x=\"{}\" y=\"{}\"{}>{}{}</text></g>\n",
                       label_width + (r.observed ? length : bar_width / 8) + 6, y + 14,
                       r.judgement == Judgement::Forbidden && r.observed ? " fill=\"#b71c1c\"" : " fill=\"#555\"",
                       r.observed ? std::to_string(r.count) + " " : "", note);
    y += row_height;
  }
  out += "</svg>";
  return out;
}

std::string allowed_table(const TestRecord& t) {
  if (t.model.status != StageStatus::Ok)
    return fmt::format("<p class=\"muted\">Allowed set unknown: {}</p>", escape_xml(t.model.reason));
  std::string out = fmt::format(
      "<table><thead><tr><th>allowed outcome ({})</th><th>condition</th><th>observed</th></tr>"
      "</thead><tbody>\n",
      t.model.allowed.size());
  for (const AllowedOutcome& a : t.model.allowed)
    out +=
        fmt::format("<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td></tr>\n",
                    escape_xml(format_outcome(t.observed_refs, a.outcome)), a.satisfies ? "satisfies" : "", a.observed);
  out += "</tbody></table>";
  return out;
}

// Why the model forbids an observed outcome (check --explain's text, and its graph drawn
// when Graphviz is installed), open: it is the story of a violation.
std::string explanation_section(const TestRecord& t, const ObservedOutcome& o, const DotRenderer& dot) {
  if (!o.explanation) return "";
  const nlohmann::json& e = *o.explanation;
  std::string out =
      fmt::format("<details open><summary>Why the model forbids <code>{}</code></summary>\n<pre>{}</pre>\n",
                  escape_xml(format_outcome(t.observed_refs, o.outcome)), escape_xml(e.at("text").get<std::string>()));
  if (e.contains("dot") && e.at("dot").is_string()) {
    const std::string graph = e.at("dot").get<std::string>();
    if (std::optional<std::string> svg = dot ? dot(graph) : std::nullopt)
      out += "<div>" + *svg + "</div>\n";
    else
      out += "<p class=\"muted\">Graphviz is not installed: the DOT text follows.</p><pre>" + escape_xml(graph) +
             "</pre>\n";
  }
  return out + "</details>\n";
}

std::string test_section(const TestRecord& t, std::size_t index, const DotRenderer& dot) {
  std::string out = fmt::format("<section id=\"t{}\">\n<h2>{} {}</h2>\n", index, escape_xml(t.name), badge(t.verdict));
  if (!t.description.empty()) out += fmt::format("<p>{}</p>\n", escape_xml(t.description));
  out += fmt::format("<p class=\"reason\"><strong>{}</strong>: {}</p>\n", to_string(t.verdict), escape_xml(t.reason));
  out += fmt::format(
      "<p class=\"muted\">File <code>{}</code> (hash {}). Condition <code>{}</code>. Model: {}{}. "
      "Compile: {}. Run: {}{}.</p>\n",
      escape_xml(t.file), escape_xml(t.content_hash), escape_xml(t.condition),
      t.model.status == StageStatus::Ok ? escape_xml(t.model.result) : std::string(to_string(t.model.status)),
      t.model.racy ? ", racy: " + escape_xml(t.model.race) : "", to_string(t.compile.status), to_string(t.run.status),
      t.run.states       ? fmt::format(", {} states", t.run.states)
      : t.run.iterations ? fmt::format(", {} iterations", t.run.iterations)
                         : "");
  if (!t.parse_error.empty()) {
    out += fmt::format("<pre>{}</pre>\n</section>\n", escape_xml(t.parse_error));
    return out;
  }
  out += "<div class=\"pair\">\n<div>" + allowed_table(t) + "</div>\n<div>" + histogram_chart(t) + "</div>\n</div>\n";
  for (const ObservedOutcome* o : t.violations()) out += explanation_section(t, *o, dot);
  if (!t.compile.threads.empty()) {
    out += fmt::format("<details{}><summary>Generated code ({} threads)</summary>\n<div class=\"code\">\n",
                       t.verdict == VerdictClass::Violation ? " open" : "", t.compile.threads.size());
    for (const ThreadCode& c : t.compile.threads) {
      out += fmt::format("<div><strong>P{}</strong><pre>", c.thread);
      for (const std::string& line : c.lines) out += escape_xml(line) + "\n";
      out += "</pre></div>\n";
    }
    out += "</div></details>\n";
  } else if (t.compile.status != StageStatus::Ok && !t.compile.reason.empty()) {
    out += fmt::format("<p class=\"muted\">No code: {}</p>\n", escape_xml(t.compile.reason));
  }
  if (!t.model.witness_dot.empty()) {
    out += fmt::format("<details><summary>Witness execution ({})</summary>\n",
                       t.model.racy ? "the race" : "an execution satisfying the condition");
    std::optional<std::string> svg = dot ? dot(t.model.witness_dot) : std::nullopt;
    if (svg)
      out += "<div>" + *svg + "</div>\n";
    else
      out += "<p class=\"muted\">Graphviz is not installed: the DOT text follows.</p><pre>" +
             escape_xml(t.model.witness_dot) + "</pre>\n";
    out += "</details>\n";
  }
  out += "</section>\n";
  return out;
}

}  // namespace

std::string render_html(const CampaignResults& results, const DotRenderer& dot) {
  const CampaignInfo& info = results.info;
  Summary s = results.summary();
  std::string title = fmt::format("hsalit campaign: {} on {} ({})", info.mapping, info.target, info.backend);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += fmt::format("<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n", escape_xml(title), kStyle);
  out += fmt::format("<h1>{}</h1>\n", escape_xml(title));
  out += "<table class=\"counts\"><thead><tr><th>tests</th>";
  for (VerdictClass v : kVerdictClasses) out += fmt::format("<th>{}</th>", badge(v));
  out += "<th>allowed outcomes observed</th></tr></thead><tbody><tr>";
  out += fmt::format("<td class=\"num\">{}</td>", s.tests);
  for (VerdictClass v : kVerdictClasses) out += fmt::format("<td class=\"num\">{}</td>", s.count(v));
  out += fmt::format("<td class=\"num\">{} of {}</td></tr></tbody></table>\n", s.covered_outcomes, s.allowed_outcomes);

  out += "<table><tbody>\n";
  auto row = [&](std::string_view key, const std::string& value) {
    out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", key, value);
  };
  row("target", escape_xml(info.target));
  row("mapping",
      escape_xml(info.mapping) +
          (info.mapping_file.empty() ? " (shipped)" : " from <code>" + escape_xml(info.mapping_file) + "</code>") +
          fmt::format(", flavour {}, hash {}", escape_xml(info.flavour), escape_xml(info.mapping_hash)));
  row("backend", escape_xml(info.backend) + ", " +
                     (info.exhaustive ? std::string("exhaustive")
                                      : fmt::format("random: {} iterations, seed {}", info.iterations, info.seed)));
  row("model", escape_xml(info.model) + ", engine " + escape_xml(info.engine));
  row("settings", escape_xml(settings_text(info)));
  if (results.verification) row("verification", escape_xml(verification_text(*results.verification)));
  row("time limit per test", fmt::format("{} s", info.time_limit_seconds));
  row("shard", info.shard ? fmt::format("{} of {}", info.shard->index, info.shard->count) : "all tests");
  std::vector<std::string> inputs;
  for (const std::string& i : info.inputs) inputs.push_back("<code>" + escape_xml(i) + "</code>");
  row("inputs", fmt::format("{}", fmt::join(inputs, " ")));
  row("hsalit", fmt::format("{} (commit <code>{}</code>{})", escape_xml(info.hsalit_version),
                            escape_xml(info.source_commit), info.source_modified ? ", modified" : ""));
  row("time",
      fmt::format("{} to {} ({:.1f} s)", escape_xml(info.started), escape_xml(info.finished), info.wall_seconds));
  out += "</tbody></table>\n";

  out +=
      "<h2>Tests</h2>\n<input id=\"filter\" type=\"search\" placeholder=\"filter the table\" "
      "aria-label=\"filter the table\">\n";
  out +=
      "<table id=\"tests\"><thead><tr><th data-type=\"text\">test</th><th data-type=\"text\">verdict</th>"
      "<th data-type=\"text\">model</th><th data-type=\"num\">allowed</th><th data-type=\"num\">observed</th>"
      "<th data-type=\"num\">forbidden observed</th><th data-type=\"num\">coverage</th>"
      "<th data-type=\"num\">time (s)</th><th data-type=\"text\">reason</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < results.tests.size(); ++i) {
    const TestRecord& t = results.tests[i];
    std::size_t covered = 0;
    for (const AllowedOutcome& a : t.model.allowed) covered += a.observed > 0;
    double coverage =
        t.model.allowed.empty() ? 0 : static_cast<double>(covered) / static_cast<double>(t.model.allowed.size());
    std::string model_text = t.model.status == StageStatus::Ok ? t.model.result + (t.model.racy ? ", racy" : "")
                                                               : std::string(to_string(t.model.status));
    out += fmt::format(
        "<tr><td><a href=\"#t{}\">{}</a></td><td data-v=\"{}\">{}</td><td>{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\" data-v=\"{:.4f}\">{}</td>"
        "<td class=\"num\">{:.2f}</td><td>{}</td></tr>\n",
        i, escape_xml(t.name), to_string(t.verdict), badge(t.verdict), escape_xml(model_text),
        t.model.status == StageStatus::Ok ? std::to_string(t.model.allowed.size()) : "-", t.run.histogram.size(),
        t.violations().size(), coverage,
        t.model.status == StageStatus::Ok ? fmt::format("{}/{}", covered, t.model.allowed.size()) : "-", t.seconds,
        escape_xml(t.reason));
  }
  out += "</tbody></table>\n";
  for (std::size_t i = 0; i < results.tests.size(); ++i) out += test_section(results.tests[i], i, dot);
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kScript);
  return out;
}

}  // namespace hsalit::results
