// The HTML report: one self-contained file (inline CSS, inline SVG, a little inline script;
// no external request), readable offline. Every string that comes from a test file or the
// command line goes through escape_xml.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <regex>

#include "hsalit/results/report.hpp"

namespace hsalit::results {

namespace {

constexpr std::string_view kStyle = R"(
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:1.5em auto;max-width:1200px;color:#1d1d1f;padding:0 1em}
h1{font-size:1.5em;margin-bottom:.3em}h2{font-size:1.2em;margin-top:2em;border-top:1px solid #ddd;padding-top:1em}
h3{font-size:1.05em;margin:.2em 0}
table{border-collapse:collapse;margin:.5em 0}th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3}th.sortable{cursor:pointer;user-select:none}th.sortable:after{content:" \2195";color:#999}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;padding:.1em .5em;border-radius:.7em;font-size:.9em;font-weight:600}
.consistent{background:#dff3e0;color:#1b5e20}.violation{background:#fde0e0;color:#b71c1c}
.undefined{background:#fff3cd;color:#7a5d00}.unknown{background:#e8e8ee;color:#444}
.counts{display:flex;flex-wrap:wrap;gap:.5em;margin:.6em 0}
.counts button{font:inherit;border:1px solid #bbb;border-radius:.4em;padding:.3em .8em;cursor:pointer;background:#fff}
.counts button[aria-pressed="true"]{outline:2px solid #1d1d1f}.counts button b{font-size:1.2em;margin-right:.3em}
.pair{display:flex;flex-wrap:wrap;gap:2em;align-items:flex-start}
pre{background:#f7f7f9;border:1px solid #e3e3e3;padding:.5em;overflow-x:auto;font-size:.85em;margin:.3em 0}
.code{display:flex;flex-wrap:wrap;gap:1em}.code>div{flex:1 1 300px;min-width:0}
details{margin:.5em 0}summary{cursor:pointer;font-weight:600}.muted{color:#666}.reason{margin:.3em 0}
#filter{margin:.5em 0;padding:.3em;width:20em}
#tests{table-layout:fixed;width:100%}#tests td{overflow-wrap:anywhere}
#tests td:nth-child(n+4):nth-child(-n+8){text-align:right;font-variant-numeric:tabular-nums}
#tests td:nth-child(2){font-weight:600}
tr.forbidden td{background:#fde0e0;color:#b71c1c;font-weight:600}
.wrong{border:1px solid #e6b8b8;border-left:6px solid #d62728;border-radius:.3em;padding:.2em .8em;margin:.4em 0;font-size:.95em}
.wrong ul{margin:.1em 0;padding-left:1.2em}.wrong h3{margin:.1em 0}.attention{border-left-color:#999;border-color:#ccc}
.spec{font-style:normal;border-bottom:1px dotted #666}
svg text{font-family:ui-monospace,monospace;font-size:12px}
)";

// Sorting by a column, the counts filtering the table by verdict, and the text filter.
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
  var shown = document.getElementById('shown');
  var buttons = document.querySelectorAll('.counts button');
  var only = '';
  function apply() {
    var words = filter ? filter.value.toLowerCase() : '';
    var visible = 0;
    Array.prototype.forEach.call(body.rows, function (row) {
      var show = (!only || row.getAttribute('data-verdict') === only) &&
                 (!words || row.textContent.toLowerCase().indexOf(words) >= 0);
      row.hidden = !show;
      if (show) visible++;
    });
    if (shown) shown.textContent = visible + ' of ' + body.rows.length + ' tests shown';
  }
  Array.prototype.forEach.call(buttons, function (button) {
    button.addEventListener('click', function () {
      only = button.getAttribute('data-only');
      Array.prototype.forEach.call(buttons, function (b) { b.setAttribute('aria-pressed', b === button ? 'true' : 'false'); });
      apply();
    });
  });
  if (filter) filter.addEventListener('input', apply);
})();
)";

// The detail pages draw witness graphs (one `dot` run each) for campaigns up to this size;
// beyond, they point to the DOT text in results.json, so that a 10,000-test report is written
// in seconds.
constexpr std::size_t kDrawWitnessesUpTo = 500;
// Tests per detail page: few files to write, each quick to open.
constexpr std::size_t kTestsPerPage = 100;
// Violations told in full in report.html itself (and summarised on its first screen); the
// stories of any more are on the detail pages, so that a campaign of a broken table with
// thousands of violations still gives a report that opens.
constexpr std::size_t kStoriesInReport = 50;

std::string badge(VerdictClass v) { return fmt::format("<span class=\"badge {0}\">{0}</span>", to_string(v)); }

// Allowed outcomes beside the observed histogram, one row per outcome in either.
std::string histogram_chart(const TestRecord& t) {
  struct Row {
    std::uint64_t count = 0;
    bool allowed = false, observed = false;
    Judgement judgement = Judgement::NotJudged;
  };
  std::map<Outcome, Row> rows;
  bool judged = t.judged();
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

// Every outcome the model allows or the backend observed, one row each: the model's judgement,
// whether it satisfies the condition, and the count. A forbidden outcome that was observed is
// marked (row class `forbidden`): it is the violation.
std::string outcome_table(const TestRecord& t) {
  struct Row {
    bool allowed = false, satisfies = false, observed = false;
    std::uint64_t count = 0;
    Judgement judgement = Judgement::NotJudged;
  };
  std::map<Outcome, Row> rows;
  for (const AllowedOutcome& a : t.model.allowed) {
    Row& r = rows[a.outcome];
    r.allowed = true;
    r.satisfies = a.satisfies;
  }
  for (const ObservedOutcome& o : t.run.histogram) {
    Row& r = rows[o.outcome];
    r.observed = true;
    r.count = o.count;
    r.satisfies = o.satisfies;
    r.judgement = o.judgement;
  }
  std::string out;
  if (t.model.status != StageStatus::Ok)
    out += fmt::format("<p class=\"muted\">Allowed set unknown: {}</p>", escape_xml(t.model.reason));
  if (rows.empty()) return out + "<p class=\"muted\">No outcome to show.</p>";
  out += fmt::format(
      "<table class=\"outcomes\"><thead><tr><th>outcome</th><th>model</th><th>condition</th><th>observed</th>"
      "</tr></thead><tbody>\n");
  for (const auto& [o, r] : rows) {
    const bool forbidden = r.observed && r.judgement == Judgement::Forbidden;
    const std::string_view model = forbidden                                           ? "FORBIDDEN"
                                   : r.allowed                                         ? "allowed"
                                   : r.observed && r.judgement == Judgement::NotJudged ? "not judged"
                                                                                       : "";
    out += fmt::format("<tr{}><td><code>{}</code></td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>\n",
                       forbidden ? " class=\"forbidden\"" : "", escape_xml(format_outcome(t.observed_refs, o)), model,
                       r.satisfies ? "satisfies" : "", r.count);
  }
  return out + "</tbody></table>";
}

// `HSA SysArch 3.10` and `(HSA SysArch 3.11, 3.12)` in escaped text, marked as references to
// the spec's sections (no copy of the spec text ships with hsalit to link to: the section
// numbers are the reference, the title names the document).
std::string mark_spec_sections(const std::string& escaped) {
  static const std::regex kSection(R"(HSA SysArch (\d+(?:\.\d+)*(?:, \d+(?:\.\d+)*)*))");
  return std::regex_replace(escaped, kSection,
                            "<cite class=\"spec\" title=\"HSA Platform System Architecture Specification 1.01, "
                            "chapter 3, section $1\">HSA SysArch $1</cite>");
}

// The model's reason in one line, from the explanation's first reason group: the axiom, its
// section, the order and the cycle's relations (`a -po-> b -fr-> c -po-> d -fr-> a`).
// A string member of a JSON object, or `fallback` when it is absent or not a string (a
// results.json written by hand may hold anything there).
std::string text_of(const nlohmann::json& j, const char* key, std::string fallback = {}) {
  if (!j.is_object()) return fallback;
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : fallback;
}

std::string reason_headline(const nlohmann::json& explanation) {
  if (!explanation.is_object() || !explanation.contains("reasons") || !explanation.at("reasons").is_array() ||
      explanation.at("reasons").empty())
    return text_of(explanation, "status", "forbidden");
  const nlohmann::json& r = explanation.at("reasons")[0];
  std::string out = fmt::format("fails \"{}\" (HSA SysArch {}) in {}", text_of(r, "axiom"), text_of(r, "section"),
                                text_of(r, "order"));
  if (r.is_object() && r.contains("cycle") && r.at("cycle").is_array() && !r.at("cycle").empty()) {
    std::string cycle;
    char name = 'a';
    for (const nlohmann::json& edge : r.at("cycle")) {
      cycle += fmt::format("{} -{}-> ", name, text_of(edge, "relation", "?"));
      name = name == 'z' ? 'a' : static_cast<char>(name + 1);
    }
    out += ": cycle " + cycle + "a";
  } else if (!text_of(r, "detail").empty()) {
    out += ": " + text_of(r, "detail");
  }
  return out;
}

// Why the model forbids an observed outcome (check --explain's text, and its graph drawn
// when Graphviz is installed), open: it is the story of a violation.
std::string explanation_section(const TestRecord& t, const ObservedOutcome& o, const DotRenderer& dot, bool draw) {
  if (!o.explanation) return "";
  const nlohmann::json& e = *o.explanation;
  std::string out = fmt::format(
      "<details open class=\"explanation\"><summary>Why the model forbids <code>{}</code></summary>\n<pre>{}</pre>\n",
      escape_xml(format_outcome(t.observed_refs, o.outcome)),
      mark_spec_sections(escape_xml(e.at("text").get<std::string>())));
  if (e.contains("dot") && e.at("dot").is_string()) {
    const std::string graph = e.at("dot").get<std::string>();
    if (std::optional<std::string> svg = draw && dot ? dot(graph) : std::nullopt)
      out += "<div class=\"graph\">" + *svg + "</div>\n";
    else if (!draw)
      out +=
          "<p class=\"muted\">Not drawn in a report of this size: its DOT text is the explanation's "
          "<code>dot</code> in results.json.</p>\n";
    else
      out += "<p class=\"muted\">Graphviz is not installed: the DOT text follows.</p><pre>" + escape_xml(graph) +
             "</pre>\n";
  }
  return out + "</details>\n";
}

// How the backend reached a forbidden outcome, as `hsalit run --trace` prints it.
std::string trace_section(const TestRecord& t, const ObservedOutcome& o) {
  if (!o.trace) return "";
  const std::string state = escape_xml(format_outcome(t.observed_refs, o.outcome));
  if (!o.trace->missing.empty())
    return fmt::format("<p class=\"muted\">No trace to <code>{}</code>: {}.</p>\n", state,
                       escape_xml(o.trace->missing));
  std::string out = fmt::format(
      "<details open class=\"trace\"><summary>How the simulator reaches <code>{}</code> ({} steps)</summary>\n"
      "<pre>Trace of {} ({}):\n",
      state, o.trace->steps.size(), state, escape_xml(o.trace->placement));
  for (std::size_t i = 0; i < o.trace->steps.size(); ++i)
    out += fmt::format("  {:>3}. {}\n", i + 1, escape_xml(o.trace->steps[i]));
  return out + "</pre></details>\n";
}

std::string finding_text(const FindingRef& f) {
  std::string where = f.doc.empty() ? "" : escape_xml(f.doc);
  if (!f.section.empty()) where += (where.empty() ? "" : ", ") + fmt::format("&#8220;{}&#8221;", escape_xml(f.section));
  return fmt::format("<strong>{}</strong>: {}{}", escape_xml(f.id), escape_xml(f.title),
                     where.empty() ? "" : " (" + where + ")");
}

std::string findings_section(const TestRecord& t) {
  if (t.findings.empty()) return "";
  std::string out = "<div class=\"findings\"><p>Documented finding" + std::string(t.findings.size() == 1 ? "" : "s") +
                    " this violation matches:</p><ul>\n";
  for (const FindingRef& f : t.findings) out += "<li>" + finding_text(f) + "</li>\n";
  return out + "</ul></div>\n";
}

// The litmus source beside the code generated from it, one column per thread.
std::string code_section(const TestRecord& t, bool open) {
  if (t.compile.threads.empty()) {
    if (t.compile.status != StageStatus::Ok && !t.compile.reason.empty())
      return fmt::format("<p class=\"muted\">No code: {}</p>\n", escape_xml(t.compile.reason));
    return "";
  }
  std::string out = fmt::format(
      "<details{} class=\"generated\"><summary>{}Generated code ({} threads)</summary>\n"
      "<div class=\"code\">\n",
      open ? " open" : "", t.source.empty() ? "" : "Litmus source and ", t.compile.threads.size());
  if (!t.source.empty())
    out += fmt::format("<div><strong>{}</strong><pre class=\"source\">{}</pre></div>\n", escape_xml(t.file),
                       escape_xml(t.source));
  for (const ThreadCode& c : t.compile.threads) {
    out += fmt::format("<div><strong>P{}</strong><pre>", c.thread);
    for (const std::string& line : c.lines) out += escape_xml(line) + "\n";
    out += "</pre></div>\n";
  }
  return out + "</div></details>\n";
}

std::string stages_line(const TestRecord& t) {
  return fmt::format(
      "<p class=\"muted\">File <code>{}</code> (hash {}). Condition <code>{}</code>. Model: {}{}. "
      "Compile: {}. Run: {}{}.</p>\n",
      escape_xml(t.file), escape_xml(t.content_hash), escape_xml(t.condition),
      t.model.status == StageStatus::Ok ? escape_xml(t.model.result) : std::string(to_string(t.model.status)),
      t.model.racy ? ", racy: " + escape_xml(t.model.race) : "", to_string(t.compile.status), to_string(t.run.status),
      t.run.states ? fmt::format(", {} states", t.run.states)
      : t.run.iterations
          ? fmt::format(", {} iterations", t.run.iterations) +
                (t.run.instances_per_launch ? fmt::format(" in launches of {}", *t.run.instances_per_launch)
                                            : std::string()) +
                (t.run.overlapped ? fmt::format(" ({} with the host and GPU threads overlapping)", *t.run.overlapped)
                                  : std::string())
          : "");
}

// Everything about one test: on its own page, and for a violation also in the report itself.
// `draw_witness`: the witness and explanation graphs drawn (one `dot` run each), else a
// pointer to their DOT text in results.json.
std::string test_body(const TestRecord& t, const DotRenderer& dot, bool draw_witness) {
  std::string out;
  if (!t.description.empty()) out += fmt::format("<p>{}</p>\n", escape_xml(t.description));
  out += fmt::format("<p class=\"reason\"><strong>{}</strong>: {}</p>\n", to_string(t.verdict), escape_xml(t.reason));
  out += stages_line(t);
  if (!t.parse_error.empty()) return out + fmt::format("<pre>{}</pre>\n", escape_xml(t.parse_error));
  out += findings_section(t);
  out += "<div class=\"pair\">\n<div>" + outcome_table(t) + "</div>\n<div>" + histogram_chart(t) + "</div>\n</div>\n";
  for (const ObservedOutcome* o : t.violations())
    out += explanation_section(t, *o, dot, draw_witness) + trace_section(t, *o);
  out += code_section(t, t.verdict == VerdictClass::Violation);
  if (!t.model.witness_dot.empty()) {
    out += fmt::format("<details><summary>Witness execution ({})</summary>\n",
                       t.model.racy ? "the race" : "an execution satisfying the condition");
    std::optional<std::string> svg = draw_witness && dot ? dot(t.model.witness_dot) : std::nullopt;
    if (svg)
      out += "<div>" + *svg + "</div>\n";
    else if (!draw_witness)
      out +=
          "<p class=\"muted\">Not drawn in a report of this size: its DOT text is the test's "
          "<code>model.witness_dot</code> in results.json.</p>\n";
    else
      out += fmt::format(
          "<p class=\"muted\">{}: the DOT text follows (<code>dot -Tsvg</code> draws it).</p><pre>{}</pre>\n",
          draw_witness ? "Graphviz is not installed" : "Not drawn in a report of this size",
          escape_xml(t.model.witness_dot));
    out += "</details>\n";
  }
  return out;
}

std::string page_head(const std::string& title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
      escape_xml(title), kStyle);
}

// One violation in a few lines, for the first screen: the forbidden states, the finding it
// matches, the model's reason and the simulator's trace, each linked to the whole story below.
std::string violation_summary(const TestRecord& t, std::size_t index, const std::string& page) {
  std::vector<std::string> states;
  for (const ObservedOutcome* o : t.violations())
    states.push_back(
        fmt::format("<code>{}</code> &#215;{}", escape_xml(format_outcome(t.observed_refs, o->outcome)), o->count));
  std::string out = fmt::format(
      "<div class=\"wrong\"><h3><a href=\"#t{}\">{}</a> {} forbidden {} <span class=\"muted\">(<a "
      "href=\"{}\">page</a>)</span></h3><ul>\n",
      index, escape_xml(t.name), badge(t.verdict), fmt::join(states, ", "), escape_xml(page));
  for (const ObservedOutcome* o : t.violations()) {
    if (o->explanation)
      out += "<li>model: " + mark_spec_sections(escape_xml(reason_headline(*o->explanation))) + "</li>\n";
    if (o->trace && o->trace->missing.empty())
      out += fmt::format("<li>simulator: <a href=\"#t{}\">a trace of {} steps</a> ({})</li>\n", index,
                         o->trace->steps.size(), escape_xml(o->trace->placement));
    else if (o->trace)
      out += "<li>no trace: " + escape_xml(o->trace->missing) + "</li>\n";
  }
  for (const FindingRef& f : t.findings)
    out += fmt::format("<li>finding <strong>{}</strong>: {}{}</li>\n", escape_xml(f.id), escape_xml(f.title),
                       f.doc.empty() ? "" : " (" + escape_xml(f.doc) + ")");
  if (t.findings.empty()) out += "<li>no documented finding matches it: a new violation</li>\n";
  return out + "</ul></div>\n";
}

// The first screen: what went wrong, in a few lines per test.
std::string what_went_wrong(const CampaignResults& results, const std::vector<std::string>& pages,
                            const std::vector<bool>& told) {
  const Summary s = results.summary();
  std::string out = "<section id=\"what-went-wrong\">\n";
  if (s.violation == 0 && s.unknown == 0)
    out += fmt::format(
        "<p><strong>Nothing went wrong</strong>: every observed outcome of the {} judged test{} is allowed{}.</p>\n",
        s.consistent, s.consistent == 1 ? "" : "s",
        s.undefined ? fmt::format(" ({} racy test{} not judged)", s.undefined, s.undefined == 1 ? "" : "s") : "");
  std::size_t summarised = 0;
  for (std::size_t i = 0; i < results.tests.size(); ++i)
    if (told[i]) {
      out += violation_summary(results.tests[i], i, pages[i]);
      ++summarised;
    }
  if (s.violation > summarised)
    out += fmt::format(
        "<div class=\"wrong\"><h3>and {} more violations</h3><ul><li>the <em>violation</em> count below lists them "
        "all; their stories are on the detail pages</li></ul></div>\n",
        s.violation - summarised);
  if (s.unknown > 0) {
    constexpr std::size_t kListed = 10;
    out += fmt::format("<div class=\"wrong attention\"><h3>{} unknown test{}: not judged</h3><ul>\n", s.unknown,
                       s.unknown == 1 ? "" : "s");
    std::size_t listed = 0;
    for (std::size_t i = 0; i < results.tests.size() && listed < kListed; ++i) {
      const TestRecord& t = results.tests[i];
      if (t.verdict != VerdictClass::Unknown) continue;
      ++listed;
      out += fmt::format("<li><a href=\"{}\">{}</a>: {}</li>\n", escape_xml(pages[i]), escape_xml(t.name),
                         escape_xml(t.reason));
    }
    if (s.unknown > listed)
      out += fmt::format("<li>and {} more: the <em>unknown</em> count below lists them all</li>\n", s.unknown - listed);
    out += "</ul></div>\n";
  }
  return out + "</section>\n";
}

std::string settings_table(const CampaignResults& results) {
  const CampaignInfo& info = results.info;
  std::string out = "<details><summary>Campaign settings</summary>\n<table><tbody>\n";
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
  return out + "</tbody></table></details>\n";
}

std::string campaign_title(const CampaignInfo& info) {
  return fmt::format("hsalit campaign: {} on {} ({})", info.mapping, info.target, info.backend);
}

}  // namespace

int attention_rank(VerdictClass v) {
  switch (v) {
    case VerdictClass::Violation: return 0;
    case VerdictClass::Unknown: return 1;
    case VerdictClass::Undefined: return 2;
    case VerdictClass::Consistent: return 3;
  }
  return 4;
}

std::vector<std::size_t> attention_order(const CampaignResults& results) {
  std::vector<std::size_t> order(results.tests.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return attention_rank(results.tests[a].verdict) < attention_rank(results.tests[b].verdict);
  });
  return order;
}

namespace {

// Per test, whether report.html tells its story: the first kStoriesInReport violations.
std::vector<bool> stories_in_report(const CampaignResults& results) {
  std::vector<bool> told(results.tests.size(), false);
  std::size_t count = 0;
  for (std::size_t i = 0; i < results.tests.size() && count < kStoriesInReport; ++i)
    if (results.tests[i].verdict == VerdictClass::Violation) {
      told[i] = true;
      ++count;
    }
  return told;
}

std::string test_page_file(std::size_t index) { return fmt::format("tests-{:04}.html", index / kTestsPerPage); }

}  // namespace

std::vector<std::string> test_page_links(const CampaignResults& results) {
  std::vector<std::string> out;
  out.reserve(results.tests.size());
  for (std::size_t i = 0; i < results.tests.size(); ++i)
    out.push_back(fmt::format("{}/{}#t{}", kPagesFolder, test_page_file(i), i));
  return out;
}

std::string render_html(const CampaignResults& results, const DotRenderer& dot) {
  const CampaignInfo& info = results.info;
  const Summary s = results.summary();
  const std::vector<std::string> pages = test_page_links(results);
  const std::vector<bool> told = stories_in_report(results);
  const std::string title = campaign_title(info);
  std::string out = page_head(title);
  out += fmt::format("<h1>{}</h1>\n", escape_xml(title));
  out +=
      fmt::format("<p class=\"muted\">{} on {}, {}; {} of {} allowed outcomes observed.</p>\n",
                  escape_xml(info.backend), escape_xml(info.target),
                  info.exhaustive ? std::string("exhaustive") : fmt::format("random, {} iterations", info.iterations),
                  s.covered_outcomes, s.allowed_outcomes);
  // The counts filter the table when clicked.
  out += fmt::format(
      "<div class=\"counts\" role=\"group\" aria-label=\"show tests by verdict\"><button type=\"button\" "
      "data-only=\"\" aria-pressed=\"true\"><b>{}</b>tests</button>",
      s.tests);
  for (VerdictClass v :
       {VerdictClass::Violation, VerdictClass::Unknown, VerdictClass::Undefined, VerdictClass::Consistent})
    out += fmt::format(
        "<button type=\"button\" class=\"{0}\" data-only=\"{0}\" aria-pressed=\"false\"><b>{1}</b>{0}</button>",
        to_string(v), s.count(v));
  out += "</div>\n";
  out += what_went_wrong(results, pages, told);
  out += settings_table(results);

  out +=
      "<h2>Tests</h2>\n<input id=\"filter\" type=\"search\" placeholder=\"filter the table\" "
      "aria-label=\"filter the table\"> <span id=\"shown\" class=\"muted\"></span>\n";
  out +=
      "<table id=\"tests\"><colgroup><col style=\"width:22%\"><col style=\"width:8%\"><col style=\"width:6%\">"
      "<col style=\"width:7%\"><col style=\"width:8%\"><col style=\"width:9%\"><col style=\"width:8%\">"
      "<col style=\"width:6%\"><col></colgroup><thead><tr><th data-type=\"text\">test</th>"
      "<th data-type=\"num\">verdict</th><th data-type=\"text\">model</th><th data-type=\"num\">allowed</th>"
      "<th data-type=\"num\">observed</th><th data-type=\"num\">forbidden observed</th>"
      "<th data-type=\"num\">coverage</th><th data-type=\"num\">time (s)</th><th data-type=\"text\">reason</th>"
      "</tr></thead>\n<tbody>\n";
  for (std::size_t i : attention_order(results)) {
    const TestRecord& t = results.tests[i];
    std::size_t covered = 0;
    for (const AllowedOutcome& a : t.model.allowed) covered += a.observed > 0;
    double coverage =
        t.model.allowed.empty() ? 0 : static_cast<double>(covered) / static_cast<double>(t.model.allowed.size());
    std::string model_text = t.model.status == StageStatus::Ok ? t.model.result + (t.model.racy ? ", racy" : "")
                                                               : std::string(to_string(t.model.status));
    // A violation's story is in this page (the first kStoriesInReport); every test has its
    // section on a detail page.
    const std::string link = told[i] ? fmt::format("#t{}", i) : escape_xml(pages[i]);
    // Kept small: a 10,000-test report is 10,000 of these (numbers are right-aligned by the
    // stylesheet; a consistent test's reason is its coverage, in its own column).
    out += fmt::format(
        "<tr data-verdict=\"{0}\"><td><a href=\"{1}\">{2}</a></td><td data-v=\"{3}\" class=\"{0}\">{0}</td>"
        "<td>{4}</td><td>{5}</td><td>{6}</td><td>{7}</td><td data-v=\"{8:.4f}\">{9}</td><td>{10:.2f}</td>"
        "<td>{11}</td></tr>\n",
        to_string(t.verdict), link, escape_xml(t.name), attention_rank(t.verdict), escape_xml(model_text),
        t.model.status == StageStatus::Ok ? std::to_string(t.model.allowed.size()) : "-", t.run.histogram.size(),
        t.violations().size(), coverage,
        t.model.status == StageStatus::Ok ? fmt::format("{}/{}", covered, t.model.allowed.size()) : "-", t.seconds,
        t.verdict == VerdictClass::Consistent ? "" : escape_xml(t.reason));
  }
  out += "</tbody></table>\n";
  if (s.violation > 0) out += "<h2>Violations</h2>\n";
  for (std::size_t i = 0; i < results.tests.size(); ++i) {
    const TestRecord& t = results.tests[i];
    if (!told[i]) continue;
    out += fmt::format("<section id=\"t{}\">\n<h2>{} {} <span class=\"muted\">(<a href=\"{}\">page</a>)</span></h2>\n",
                       i, escape_xml(t.name), badge(t.verdict), escape_xml(pages[i]));
    out += test_body(t, dot, true) + "</section>\n";
  }
  out += fmt::format("<script>{}</script>\n</body>\n</html>\n", kScript);
  return out;
}

std::vector<ReportPage> render_test_pages(const CampaignResults& results, const DotRenderer& dot) {
  const bool draw_witnesses = results.tests.size() <= kDrawWitnessesUpTo;
  const std::vector<bool> told = stories_in_report(results);
  const std::string campaign = campaign_title(results.info);
  std::vector<ReportPage> out;
  for (std::size_t first = 0; first < results.tests.size(); first += kTestsPerPage) {
    const std::size_t last = std::min(results.tests.size(), first + kTestsPerPage);
    std::string html = page_head(fmt::format("tests {} to {} - {}", first + 1, last, campaign));
    html += fmt::format("<p><a href=\"../{}\">{}</a>: tests {} to {} of {}</p>\n", kHtmlReport, escape_xml(campaign),
                        first + 1, last, results.tests.size());
    for (std::size_t i = first; i < last; ++i) {
      const TestRecord& t = results.tests[i];
      html += fmt::format("<section id=\"t{}\">\n<h2>{} {}</h2>\n", i, escape_xml(t.name), badge(t.verdict));
      html += test_body(t, dot, draw_witnesses || told[i]) + "</section>\n";
    }
    out.push_back({test_page_file(first), html + "</body>\n</html>\n"});
  }
  return out;
}

}  // namespace hsalit::results
