// What `verify-mapping` and `verify-llc` share: the options of a run (tests, model engine,
// simulator assumptions, jobs, output) and its results folder (docs/verification.md,
// "Results"): the campaign format (results.json and its reports) with a verification block,
// the text report as verify.txt, and each counterexample's test.
#pragma once

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "hsalit/litmus/generate.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/results/campaign.hpp"
#include "hsalit/results/output_folder.hpp"
#include "hsalit/runner/sim.hpp"
#include "hsalit/verify/bound.hpp"
#include "hsalit/verify/verify.hpp"

namespace hsalit::cli {

struct VerifyRunOptions {
  std::vector<std::string> inputs;  // litmus files or folders
  std::string generate;             // or a --generate spec
  bool sc_orders = false;           // each command says what it selects
  std::vector<std::string> assume;
  double timeout = 60;  // simulator seconds per test
  std::string engine = "auto";
  std::string model;  // the referee; empty: the flavour's (opencl for the opencl flavour, else hsa)
  int jobs = 1;
  std::string out;                 // the results folder, or none
  bool force = false;              // replace another run's results in `out`
  std::uint64_t memory_limit = 0;  // bytes, for the simulator and the model (--memory-limit)
};

// Registers the inputs, --generate, --assume, --timeout, --engine, -j, --out, --force and --memory-limit;
// --time-limit too, as --timeout's other name, unless the command gives it a meaning of its own.
void add_run_options(CLI::App& cmd, VerifyRunOptions& run, bool time_limit_alias = true);

// Checks the run options (files or a spec, one of the two; jobs; engine; model; assumptions)
// and applies them: the simulator's time limit and assumptions, the model and its engine, and
// the other engine to confirm counterexamples (Auto: the other of the one that answered). The
// model is --model, or the one the table's `flavour` was written for: OpenCL's for the opencl
// flavour, HSA's for every other. Returns the error for the user, if any.
std::optional<std::string> apply_run_options(const VerifyRunOptions& run, std::string_view flavour,
                                             runner::SimOptions& sim, model::CheckOptions& model,
                                             std::optional<model::Engine>& confirm_engine);

// `run.out` taken for this run before it starts: its lock (none without --out), or `refused`
// when it cannot be had (the reason printed on stderr).
struct ClaimedFolder {
  std::optional<results::FolderLock> lock;  // keep it until the results are written
  bool refused = false;
};

// Takes `run.out`: locks it (a second writer fails fast) and refuses, unless --force, a folder
// holding another run's results (a campaign, a verification of another configuration, bound
// or shard).
ClaimedFolder claim_results_folder(const results::CampaignInfo& code_origin, const VerifyRunOptions& run,
                                   const std::optional<litmus::GenerateOptions>& generated);

// Writes `run.out`: results.json (the report's kept tests as campaign records, and the
// verification: counts, rows used, the bound's statistics when the tests were a generated
// bound verified by classes), the campaign reports, `text` as verify.txt, and
// counterexamples/NAME.litmus (NAME sanitised and unique: results::OutputNames), after
// removing what an earlier run left that this one would not replace. `code_origin` says
// where the code came from (target, mapping and its file, hash and flavour: a table or an
// llc); the run's settings and times are added here. A shard of a bound is recorded as the
// bound and its shard, so that `hsalit results merge` joins the shards into the bound's
// verification. Every file is written atomically; throws what the writes throw.
void write_verify_results(results::CampaignInfo code_origin, const VerifyRunOptions& run,
                          const std::optional<litmus::GenerateOptions>& generated,
                          std::chrono::steady_clock::time_point started, const std::string& started_at,
                          const verify::VerifyReport& report, const std::vector<std::string>& rows_used,
                          const std::optional<verify::BoundStatistics>& statistics, const std::string& text);

}  // namespace hsalit::cli
