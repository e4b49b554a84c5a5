// `hsalit check FILE...`: the model's verdict on each test, as herd7 prints it or as JSON.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <new>

#include "commands.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/model/explain.hpp"
#include "hsalit/model/report.hpp"
#include "hsalit/results/atomic_file.hpp"
#include "hsalit/results/output_folder.hpp"
#include "hsalit/support/parallel.hpp"
#include "memory_limit.hpp"
#include "option_checks.hpp"
#include "output_file.hpp"

namespace hsalit::cli {

namespace {

namespace fs = std::filesystem;

struct CheckCommandOptions {
  std::vector<std::string> inputs;
  std::string model = "hsa";
  std::string engine = "auto";
  bool json = false;
  std::string graph_dir;
  double timeout = 60;
  unsigned jobs = 1;
  std::uint64_t memory_limit = 0;  // bytes (--memory-limit)
  bool expect = false;
  bool summary = false;
  std::string explain;      // --explain STATE: why the model allows or forbids it
  std::string explain_dot;  // --explain-dot FILE
};

// What checking one file produced, printed in input order.
struct FileReport {
  std::string out, err;
  bool bad_input = false;
  bool failed = false;  // unknown, or a verdict that differs from the expected one
  bool unknown = false;
  bool racy = false;
  bool expectation_met = false;
  bool no_expectation = false;            // --expect, and the sidecar gives no verdict under this model
  std::string graph_name, graph_dot;      // the witness to write, named after the test
  std::string explain_dot, explain_name;  // --explain's graph, and the test it explains
};

// `--explain STATE`: the explanation after the verdict (text), or as the `explanation` member
// of the test's JSON object. A state no candidate execution ends in is bad input; an
// explanation the model could not finish is unknown.
void add_explanation(FileReport& rep, const fs::path& file, const litmus::Test& test, const CheckCommandOptions& opt,
                     const model::CheckOptions& co, nlohmann::json* json) {
  std::string error;
  const std::optional<model::StateQuery> state = model::parse_state(opt.explain, test, error);
  if (!state) {
    rep.err += fmt::format("{}: error: --explain '{}': {}\n", file.string(), opt.explain, error);
    rep.bad_input = true;
    return;
  }
  const model::Explanation e = model::explain(test, *state, co);
  if (json)
    (*json)["explanation"] = model::explanation_to_json(e);
  else
    rep.out += model::format_explanation(e);
  if (!opt.explain_dot.empty() || !opt.graph_dir.empty()) {
    rep.explain_dot = model::explanation_to_dot(e);
    rep.explain_name = test.name;
  }
  if (e.status == model::Explanation::Status::Unknown) rep.failed = rep.unknown = true;
  if (e.status == model::Explanation::Status::Impossible) {
    rep.err += fmt::format("{}: error: --explain '{}': no candidate execution of {} ends in this state\n",
                           file.string(), opt.explain, test.name);
    rep.bad_input = true;
  }
}

// The verdict of the condition's proposition, as the library's expected.json states it.
std::string proposition_verdict(const litmus::Test& test, const model::CheckResult& r) {
  if (r.racy) return "racy";
  std::size_t satisfying = r.positive;
  (void)test;
  return satisfying ? "allowed" : "forbidden";
}

FileReport check_file(const fs::path& file, const CheckCommandOptions& opt, model::ModelVariant variant,
                      model::Engine engine) {
  FileReport rep;
  litmus::ParseResult parsed = litmus::parse_litmus_file(file);
  rep.err = parsed.diagnostics.render(file.string());
  if (!parsed.ok()) {
    rep.bad_input = true;
    return rep;
  }
  const litmus::Test& test = *parsed.test;
  model::CheckOptions co;
  co.variant = variant;
  co.engine = engine;
  co.timeout_seconds = opt.timeout;
  co.memory_limit = opt.memory_limit;
  co.want_graph = !opt.graph_dir.empty();
  model::CheckResult r = model::check(test, co);
  rep.unknown = r.unknown();
  rep.racy = r.racy;
  if (r.unknown()) rep.failed = true;
  if (opt.json) {
    nlohmann::json j = model::check_to_json(test, r, file.string());
    j["engine_reason"] = r.engine_reason.empty() ? fmt::format("--engine {}", opt.engine) : r.engine_reason;
    if (!opt.explain.empty()) add_explanation(rep, file, test, opt, co, &j);
    rep.out = j.dump() + "\n";
  } else if (opt.summary)
    rep.out = fmt::format("{:<48} {:<8} {:<5} {:>6} {:>10.1f}{}\n", test.name, model::to_string(r.verdict),
                          r.unknown() ? "?"
                          : r.racy    ? "yes"
                                      : "no",
                          r.outcomes.size(), r.time_ms, r.unknown() ? "  " + *r.unknown_reason : "");
  else {
    rep.out = model::format_herd(test, r) + "\n";
    if (!opt.explain.empty()) add_explanation(rep, file, test, opt, co, nullptr);
  }
  if (r.graph) {
    rep.graph_name = test.name;
    rep.graph_dot = model::to_dot(*r.graph, test.name + (r.racy ? " (race)" : " (condition witness)"));
  }
  if (opt.expect && !r.unknown()) {
    auto expected = litmus::read_expected_verdicts(file.parent_path());
    auto it = expected.find(file.filename().string());
    if (it == expected.end()) {
      rep.err += fmt::format("{}: error: no expected verdict in {}\n", file.string(),
                             (file.parent_path() / "expected.json").string());
      rep.failed = true;
    } else {
      // A test without a verdict under this model (an HSA test under OpenCL's) is not compared.
      const std::string* want = it->second.verdict_under(model::to_string(variant));
      if (!want) {
        rep.no_expectation = true;
        rep.err += fmt::format("{}: note: no expected verdict under {} in {}: not compared\n", file.string(),
                               model::to_string(variant), (file.parent_path() / "expected.json").string());
      } else {
        std::string got = proposition_verdict(test, r);
        rep.expectation_met = got == *want;
        if (got != *want) {
          rep.err += fmt::format("{}: error: expected {} under {}, got {}\n", file.string(), *want,
                                 model::to_string(variant), got);
          rep.failed = true;
        }
      }
    }
  }
  return rep;
}

int run_check(const CheckCommandOptions& opt) {
  auto variant = model::model_variant_from_string(opt.model);
  auto engine = model::engine_from_string(opt.engine);
  if (!variant || !engine) {
    fmt::print(stderr, "hsalit check: error: unknown {} '{}'\n", variant ? "engine" : "model",
               variant ? opt.engine : opt.model);
    return kExitBadInput;
  }
  if (std::error_code ec; !opt.graph_dir.empty() && !fs::create_directories(opt.graph_dir, ec) && ec) {
    fmt::print(stderr, "hsalit check: error: {}: cannot create the folder: {}\n", opt.graph_dir, ec.message());
    return kExitBadInput;
  }
  std::vector<fs::path> inputs(opt.inputs.begin(), opt.inputs.end());
  std::vector<fs::path> files = litmus::collect_litmus_files(inputs);
  if (!opt.explain.empty() && files.size() != 1) {
    fmt::print(stderr, "hsalit check: error: --explain explains a state of one test, and {} files were given\n",
               files.size());
    return kExitBadInput;
  }
  std::vector<FileReport> reports(files.size());
  std::vector<char> done(files.size(), 0);
  std::size_t printed = 0;
  // Witness files are named in input order, so that tests of one name get the same files
  // whatever order -j finishes them in (docs/check-output.md).
  results::OutputNames graph_names;
  auto write_graph = [&](FileReport& rep) {
    if (!rep.explain_dot.empty()) {
      try {
        // --explain-dot FILE, and beside the witnesses under --graph DIR.
        if (!opt.explain_dot.empty()) results::write_file_atomically(opt.explain_dot, rep.explain_dot);
        if (!opt.graph_dir.empty())
          results::write_file_atomically(
              results::path_in_folder(opt.graph_dir, graph_names.claim(rep.explain_name + "-explain", ".dot")),
              rep.explain_dot);
      } catch (const std::exception& e) {
        rep.err += fmt::format("hsalit check: error: --explain: {}\n", e.what());
        rep.bad_input = true;
      }
    }
    if (rep.graph_dot.empty()) return;
    try {
      const fs::path file = results::path_in_folder(opt.graph_dir, graph_names.claim(rep.graph_name, ".dot"));
      results::write_file_atomically(file, rep.graph_dot);
    } catch (const std::exception& e) {
      rep.err += fmt::format("hsalit check: error: {}\n", e.what());
      rep.bad_input = true;
    }
  };
  if (opt.summary && !opt.json)
    fmt::print("{:<48} {:<8} {:<5} {:>6} {:>10}\n", "test", "result", "racy", "states", "time (ms)");
  // Files are checked in any order; reports are printed in input order as they complete.
  support::parallel_for_each(
      files.size(), opt.jobs == 0 ? support::default_jobs() : static_cast<int>(opt.jobs),
      [&](std::size_t i) {
        FileReport rep;
        try {
          rep = check_file(files[i], opt, *variant, *engine);
        } catch (const std::bad_alloc&) {
          rep.err = fmt::format("{}: unknown: memory limit: the system refused more memory\n", files[i].string());
          rep.failed = rep.unknown = true;
        } catch (const std::exception& e) {
          rep.err = fmt::format("{}: error: {}\n", files[i].string(), e.what());
          rep.bad_input = true;
        }
        reports[i] = std::move(rep);
      },
      [&](std::size_t i) {
        done[i] = 1;
        while (printed < files.size() && done[printed]) {
          write_graph(reports[printed]);
          fmt::print(stderr, "{}", reports[printed].err);
          fmt::print("{}", reports[printed].out);
          std::fflush(stdout);
          ++printed;
        }
      });
  bool bad = false, failed = false;
  std::size_t unknown = 0, racy = 0, met = 0, bad_files = 0, not_compared = 0;
  for (const FileReport& r : reports) {
    bad |= r.bad_input;
    failed |= r.failed;
    unknown += r.unknown;
    racy += r.racy;
    met += r.expectation_met;
    not_compared += r.no_expectation;
    bad_files += r.bad_input;
  }
  if (opt.summary) {
    fmt::print("checked {} tests under {} with {}: {} decided, {} unknown, {} racy, {} unreadable", files.size(),
               opt.model, opt.engine, files.size() - unknown - bad_files, unknown, racy, bad_files);
    if (opt.expect) {
      fmt::print("; expected verdicts: {} met, {} not", met, files.size() - met - not_compared);
      if (not_compared > 0) fmt::print(", {} without one under {}", not_compared, opt.model);
    }
    fmt::print("\n");
  }
  return bad ? kExitBadInput : failed ? kExitCheckFailed : kExitOk;
}

}  // namespace

Command add_check_command(CLI::App& app) {
  auto opt = std::make_shared<CheckCommandOptions>();
  CLI::App* cmd =
      app.add_subcommand("check",
                         "Check litmus tests against the HSA memory model (or the OpenCL 2.0 model, --model opencl): "
                         "allowed final states, races, the condition's verdict");
  cmd->add_option("inputs", opt->inputs, "litmus files or folders")->required();
  cmd->add_option("--model", opt->model, "hsa (default), hrf-indirect, hrf-direct or opencl (docs/model.md)");
  cmd->add_option("--engine", opt->engine,
                  "auto (default: enum where the candidate executions are few, z3 beyond), z3 or enum "
                  "(explicit enumeration); --json names the one that ran and why");
  CLI::Option* json = cmd->add_flag("--json", opt->json, "one JSON object per test (docs/check-output.md)");
  cmd->add_option("--graph", opt->graph_dir,
                  "write a DOT witness execution into DIR for each test that has one (a race, or a state "
                  "satisfying the condition), named after the test (docs/check-output.md)");
  cmd->add_option("--timeout,--time-limit", opt->timeout, "seconds per test before the verdict is unknown (60)")
      ->check(seconds_value());
  cmd->add_option("-j,--jobs", opt->jobs, "tests checked in parallel (0: one per core)")->check(jobs_count());
  add_memory_limit_option(cmd, opt->memory_limit);
  add_output_file_option(cmd);
  cmd->add_flag("--summary", opt->summary, "one line per test and a closing count")->excludes(json);
  cmd->add_flag("--expect", opt->expect,
                "compare with the verdicts in each folder's expected.json; exit 1 on a difference");
  CLI::Option* explain = cmd->add_option(
      "--explain", opt->explain,
      "STATE ('1:r0=1; 1:r1=0' or '1:r0=1 /\\ 1:r1=0') of one test: whether the model allows it and, if it "
      "forbids it, why: per candidate execution in that state the axiom it fails and a shortest cycle, each edge "
      "with its rule and spec section; the race of a racy test (docs/check-output.md)");
  cmd->add_option("--explain-dot", opt->explain_dot,
                  "write --explain's cycles and race (or an allowed state's witness) as a DOT graph into FILE; "
                  "with --graph DIR it is also written there as TEST-explain.dot")
      ->needs(explain);
  explain->excludes("--summary");
  return {cmd, [opt] { return run_check(*opt); }};
}

}  // namespace hsalit::cli
