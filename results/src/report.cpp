#include "hsalit/results/report.hpp"

#include <fmt/format.h>

#include <fstream>
#include <set>
#include <sstream>

#include "hsalit/codegen/process.hpp"
#include "hsalit/results/atomic_file.hpp"
#include "hsalit/results/output_folder.hpp"

namespace hsalit::results {

namespace fs = std::filesystem;

namespace {

// Text for a Markdown code fence: a line holding a fence would close it, and is left out.
std::string fenced(const std::string& text) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += line.find("```") == std::string::npos ? line + "\n" : "\n";
  return out;
}

std::string shard_text(const CampaignInfo& info) {
  return info.shard ? fmt::format("{}/{}", info.shard->index, info.shard->count) : "all";
}

}  // namespace

std::string mode_text(const CampaignInfo& info) {
  return info.exhaustive ? std::string("exhaustive")
                         : fmt::format("random, {} iterations, seed {}", info.iterations, info.seed);
}

std::string settings_text(const CampaignInfo& info) {
  return fmt::format(
      "{} rows for scacq and screl; assumptions: {}", info.sc_orders ? "seq_cst" : "acquire/release",
      info.assumptions.empty() ? std::string("none") : fmt::format("{}", fmt::join(info.assumptions, ", ")));
}

std::string verification_text(const Verification& v) {
  return fmt::format("{} over {}: {} tests ({} sound, {} counterexamples, {} racy, {} unsupported, {} unknown)",
                     v.verdict(), v.bound, v.tests, v.sound, v.counterexamples, v.racy, v.unsupported, v.unknown);
}

std::string md_cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else if (c == '\n' || c == '\r')
      out += ' ';
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '`')
      out += "'";
    else
      out += c;
  }
  return out;
}

namespace {

std::string coverage_text(const TestRecord& t) {
  if (t.model.status != StageStatus::Ok) return "-";
  std::size_t covered = 0;
  for (const AllowedOutcome& a : t.model.allowed) covered += a.observed > 0;
  return fmt::format("{}/{}", covered, t.model.allowed.size());
}

}  // namespace

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n' && c != '\r')
          out += "\xEF\xBF\xBD";
        else
          out += c;
    }
  }
  return out;
}

std::optional<std::string> render_dot_with_graphviz(std::string_view dot) {
  if (dot.empty() || !codegen::find_program("dot")) return std::nullopt;
  try {
    codegen::TempDir dir("hsalit-dot");
    fs::path input = dir.path() / "graph.dot";
    {
      std::ofstream out(input, std::ios::binary);
      out << dot;
    }
    codegen::ProcessResult r = codegen::run_process({"dot", "-Tsvg", input.string()});
    if (!r.ok()) return std::nullopt;
    // Inline SVG: drop the XML declaration, the doctype and comments before <svg.
    std::size_t svg = r.out.find("<svg");
    if (svg == std::string::npos) return std::nullopt;
    return r.out.substr(svg);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

std::string render_markdown(const CampaignResults& results) {
  const CampaignInfo& info = results.info;
  Summary s = results.summary();
  std::string out = "# hsalit campaign: allowed versus observed\n\n";
  out += "| | |\n| --- | --- |\n";
  out += fmt::format("| target | {} |\n", md_cell(info.target));
  out +=
      fmt::format("| mapping | {}{} (hash {}) |\n", md_cell(info.mapping),
                  info.mapping_file.empty() ? " (shipped)" : " from " + md_cell(info.mapping_file), info.mapping_hash);
  out += fmt::format("| backend | {} ({}) |\n", md_cell(info.backend), mode_text(info));
  out += fmt::format("| model | {} (engine {}) |\n", md_cell(info.model), md_cell(info.engine));
  out += fmt::format("| settings | {} |\n", md_cell(settings_text(info)));
  if (results.verification)
    out += fmt::format("| verification | {} |\n", md_cell(verification_text(*results.verification)));
  out += fmt::format("| time limit per test | {} s |\n", info.time_limit_seconds);
  out += fmt::format("| shard | {} |\n", shard_text(info));
  out += fmt::format("| hsalit | {} (commit {}{}) |\n", md_cell(info.hsalit_version), md_cell(info.source_commit),
                     info.source_modified ? ", modified" : "");
  out += fmt::format("| started / finished | {} / {} ({:.1f} s) |\n\n", info.started, info.finished, info.wall_seconds);
  out += "| tests | consistent | violation | undefined | unknown | allowed outcomes observed |\n";
  out += "| ---: | ---: | ---: | ---: | ---: | ---: |\n";
  out += fmt::format("| {} | {} | {} | {} | {} | {}/{} |\n\n", s.tests, s.consistent, s.violation, s.undefined,
                     s.unknown, s.covered_outcomes, s.allowed_outcomes);

  // Violations first, then unknown, undefined and the rest, as in report.html.
  out += "## Tests\n\n| test | verdict | model | allowed | observed | coverage | time (s) | reason |\n";
  out += "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n";
  for (std::size_t i : attention_order(results)) {
    const TestRecord& t = results.tests[i];
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {:.2f} | {} |\n", md_cell(t.name), to_string(t.verdict),
                       t.model.status == StageStatus::Ok ? t.model.result + (t.model.racy ? ", racy" : "")
                                                         : std::string(to_string(t.model.status)),
                       t.model.status == StageStatus::Ok ? std::to_string(t.model.allowed.size()) : "-",
                       t.run.histogram.size(), coverage_text(t), t.seconds, md_cell(t.reason));
  }

  bool any_violation = false;
  for (const TestRecord& t : results.tests) {
    if (t.verdict != VerdictClass::Violation) continue;
    if (!any_violation) out += "\n## Violations\n";
    any_violation = true;
    out += fmt::format("\n### {}\n\n{}\n\nFile `{}`, condition `{}`.\n\n", md_cell(t.name), md_cell(t.reason),
                       md_cell(t.file), md_cell(t.condition));
    for (const ObservedOutcome* o : t.violations())
      out += fmt::format("- forbidden `{}` observed {} time{}\n", md_cell(format_outcome(t.observed_refs, o->outcome)),
                         o->count, o->count == 1 ? "" : "s");
    // The documented findings it matches (docs/findings.json).
    for (const FindingRef& f : t.findings)
      out += fmt::format("- finding {}: {}{}\n", md_cell(f.id), md_cell(f.title),
                         f.doc.empty() ? ""
                                       : fmt::format(" ({}{})", md_cell(f.doc),
                                                     f.section.empty() ? "" : ", \"" + md_cell(f.section) + "\""));
    // Why the model forbids each (check --explain's text), where the campaign explained it.
    for (const ObservedOutcome* o : t.violations())
      if (o->explanation)
        out += fmt::format("\nWhy the model forbids `{}`:\n\n```\n{}```\n",
                           md_cell(format_outcome(t.observed_refs, o->outcome)),
                           fenced(o->explanation->at("text").get<std::string>()));
    // How the simulator reached each (as run --trace prints it), or why there is no trace.
    for (const ObservedOutcome* o : t.violations()) {
      if (!o->trace) continue;
      const std::string state = format_outcome(t.observed_refs, o->outcome);
      if (!o->trace->missing.empty()) {
        out += fmt::format("\nNo trace to `{}`: {}.\n", md_cell(state), md_cell(o->trace->missing));
        continue;
      }
      std::string trace = fmt::format("Trace of {} ({}):\n", state, o->trace->placement);
      for (std::size_t i = 0; i < o->trace->steps.size(); ++i)
        trace += fmt::format("  {:>3}. {}\n", i + 1, o->trace->steps[i]);
      out += fmt::format("\nHow the simulator reaches `{}`:\n\n```\n{}```\n", md_cell(state), fenced(trace));
    }
    if (!t.source.empty()) out += fmt::format("\nThe litmus source:\n\n```\n{}```\n", fenced(t.source));
    for (const ThreadCode& c : t.compile.threads) {
      out += fmt::format("\nP{}:\n\n```\n", c.thread);
      for (const std::string& line : c.lines) out += line.find("```") == std::string::npos ? line + "\n" : "\n";
      out += "```\n";
    }
  }
  return out;
}

std::string render_junit(const CampaignResults& results) {
  const CampaignInfo& info = results.info;
  Summary s = results.summary();
  double total = 0;
  for (const TestRecord& t : results.tests) total += t.seconds;
  std::string suite = fmt::format("hsalit.{}.{}.{}", info.target, info.mapping, info.backend);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<testsuites name=\"hsalit campaign\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" "
      "time=\"{:.3f}\">\n",
      s.tests, s.violation, s.unknown, s.undefined, total);
  out += fmt::format(
      "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{:.3f}\" "
      "timestamp=\"{}\">\n",
      escape_xml(suite), s.tests, s.violation, s.unknown, s.undefined, total,
      escape_xml(info.started.empty() ? "" : info.started.substr(0, 19)));
  out += "    <properties>\n";
  for (const auto& [key, value] : {std::pair<std::string, std::string>{"target", info.target},
                                   {"mapping", info.mapping},
                                   {"mapping_hash", info.mapping_hash},
                                   {"backend", info.backend},
                                   {"mode", mode_text(info)},
                                   {"model", info.model},
                                   {"hsalit_version", info.hsalit_version},
                                   {"source_commit", info.source_commit}})
    out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", key, escape_xml(value));
  out += "    </properties>\n";
  for (const TestRecord& t : results.tests) {
    fs::path file(t.file);
    std::string folder = file.parent_path().filename().string();
    out += fmt::format("    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" time=\"{:.3f}\">\n",
                       escape_xml(suite + (folder.empty() ? "" : "." + folder)), escape_xml(t.name), escape_xml(t.file),
                       t.seconds);
    switch (t.verdict) {
      case VerdictClass::Consistent: break;
      case VerdictClass::Violation: {
        std::string body;
        for (const ObservedOutcome* o : t.violations())
          body +=
              fmt::format("forbidden {} observed {} times\n", format_outcome(t.observed_refs, o->outcome), o->count);
        for (const ThreadCode& c : t.compile.threads) {
          body += fmt::format("P{}:\n", c.thread);
          for (const std::string& line : c.lines) body += "  " + line + "\n";
        }
        out += fmt::format("      <failure type=\"violation\" message=\"{}\">{}</failure>\n", escape_xml(t.reason),
                           escape_xml(body));
        break;
      }
      // A racy test has no outcome to judge; an unknown one was not judged, which a CI must
      // not read as a pass.
      case VerdictClass::Undefined:
        out += fmt::format("      <skipped message=\"{}: {}\"/>\n", to_string(t.verdict), escape_xml(t.reason));
        break;
      case VerdictClass::Unknown:
        out += fmt::format("      <error type=\"unknown\" message=\"{}\"/>\n", escape_xml(t.reason));
        break;
    }
    std::string histogram;
    for (const ObservedOutcome& o : t.run.histogram)
      histogram += fmt::format("{:<8}{}>{} ({})\n", o.count, o.satisfies ? '*' : ':',
                               format_outcome(t.observed_refs, o.outcome), to_string(o.judgement));
    if (!histogram.empty()) out += fmt::format("      <system-out>{}</system-out>\n", escape_xml(histogram));
    out += "    </testcase>\n";
  }
  out += "  </testsuite>\n</testsuites>\n";
  return out;
}

std::string render_log(const CampaignResults& results) {
  const CampaignInfo& info = results.info;
  std::string out =
      fmt::format("# hsalit {} campaign: target {}, mapping {}, backend {} ({}), model {}\n", info.hsalit_version,
                  info.target, info.mapping, info.backend, mode_text(info), info.model);
  out += fmt::format("# {}\n", settings_text(info));
  if (results.verification) out += fmt::format("# {}\n", verification_text(*results.verification));
  out += "\n";
  for (const TestRecord& t : results.tests) {
    const bool forall = t.condition.starts_with("forall");
    const std::string_view kind = forall ? "Required" : t.condition.starts_with("~exists") ? "Forbidden" : "Allowed";
    out += fmt::format("Test {} {}\n", t.name, kind);
    if (!t.parse_error.empty()) {
      out += fmt::format("Unknown {}\n", t.parse_error);
    } else {
      std::uint64_t positive = 0, negative = 0;
      out += fmt::format("Histogram ({} states)\n", t.run.histogram.size());
      for (const ObservedOutcome& o : t.run.histogram) {
        (o.satisfies ? positive : negative) += o.count;
        out +=
            fmt::format("{:<8}{}>{}{}\n", o.count, o.satisfies ? '*' : ':', format_outcome(t.observed_refs, o.outcome),
                        o.judgement == Judgement::Forbidden ? "  # forbidden by the model" : "");
      }
      bool exists = t.condition.rfind("exists", 0) == 0;
      bool validated = forall ? negative == 0 : exists ? positive > 0 : positive == 0;
      if (t.run.status != StageStatus::Ok)
        out += fmt::format("Unknown {}\n", t.run.reason.empty() ? "not run" : t.run.reason);
      else
        out += validated ? "Ok\n" : "No\n";
      out += fmt::format("Witnesses\nPositive: {}, Negative: {}\n", positive, negative);
      out += fmt::format("Condition {} is {}validated\n", t.condition, validated ? "" : "NOT ");
      out += fmt::format("Observation {} {} {} {}\n", t.name,
                         positive == 0   ? "Never"
                         : negative == 0 ? "Always"
                                         : "Sometimes",
                         positive, negative);
      if (t.model.status == StageStatus::Ok)
        out += fmt::format("Model {} {}{}, {} allowed states\n", t.name, t.model.result,
                           t.model.racy ? " (Flag undefined)" : "", t.model.allowed.size());
      else
        out += fmt::format("Model {} unknown: {}\n", t.name, t.model.reason);
    }
    out += fmt::format("Verdict {} {}: {}\n", t.name, to_string(t.verdict), t.reason);
    out += fmt::format("Time {} {:.3f}\n\n", t.name, t.seconds);
  }
  Summary s = results.summary();
  out += fmt::format(
      "Summary {} tests: {} consistent, {} violation, {} undefined, {} unknown; {}/{} allowed outcomes "
      "observed\n",
      s.tests, s.consistent, s.violation, s.undefined, s.unknown, s.covered_outcomes, s.allowed_outcomes);
  return out;
}

namespace {

// The HTML report's pages, all synced at once (AtomicFolderWriter); then the pages of an
// earlier report that this one has not (a test gone) are removed.
void write_pages(const fs::path& dir, const CampaignResults& results) {
  const fs::path folder = dir / kPagesFolder;
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot create {}: {}", folder.string(), ec.message()));
  std::set<std::string> written;
  {
    AtomicFolderWriter writer(folder);
    for (ReportPage& page : render_test_pages(results)) {
      writer.write(path_in_folder(folder, page.file), page.html);
      written.insert(std::move(page.file));
    }
    writer.commit();
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec))
    if (entry.path().extension() == ".html" && !written.contains(entry.path().filename().string()))
      fs::remove(entry.path(), ec);
}

void write_reports(const fs::path& dir, const CampaignResults& results) {
  write_file_atomically(dir / kMarkdownReport, render_markdown(results));
  write_pages(dir, results);
  write_file_atomically(dir / kHtmlReport, render_html(results));
  write_file_atomically(dir / kJunitReport, render_junit(results));
  write_file_atomically(dir / kLogReport, render_log(results));
}

}  // namespace

void write_all(const fs::path& dir, const CampaignResults& results) {
  write_results(dir / kResultsFile, results);
  write_reports(dir, results);
}

CampaignResults regenerate_reports(const fs::path& dir) {
  CampaignResults results = read_results(dir / kResultsFile);
  write_reports(dir, results);
  return results;
}

}  // namespace hsalit::results
