// `hsalit gen`: systematic litmus tests from relaxation cycles (docs/generation.md).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <system_error>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/results/atomic_file.hpp"
#include "hsalit/results/output_folder.hpp"
#include "option_checks.hpp"

namespace hsalit::cli {

namespace {

struct GenCommandOptions {
  int threads = 2;
  int accesses = 2;
  std::vector<std::string> orders, scopes, segments, placements, fences, deps, families, cycles, edges;
  std::string spec;
  std::string out;
  std::string emit = "lisa";  // the format of the files: lisa, or c (herd's C format)
  bool count = false;
  std::size_t max_tests = 1'000'000;
};

// The generator's options from the command line; throws std::invalid_argument.
litmus::GenerateOptions generate_options(const GenCommandOptions& opt) {
  litmus::GenerateOptions o;
  o.max_threads = opt.threads;
  o.max_accesses = opt.accesses;
  o.max_tests = opt.max_tests;
  if (!opt.orders.empty()) o.orders = litmus::parse_orders(opt.orders);
  if (!opt.scopes.empty()) o.scopes = litmus::parse_scopes(opt.scopes);
  if (!opt.segments.empty()) o.segments = litmus::parse_segments(opt.segments);
  if (!opt.placements.empty()) o.placements = litmus::parse_placements(opt.placements);
  if (!opt.fences.empty()) o.fences = litmus::parse_fence_orders(opt.fences);
  if (!opt.deps.empty()) o.dependencies = litmus::parse_dependencies(opt.deps);
  if (!opt.edges.empty()) o.edges = litmus::parse_edges(opt.edges);
  for (const std::string& name : opt.families) {
    auto c = litmus::family_cycle(name);
    if (!c) {
      std::vector<std::string_view> names;
      for (const litmus::Family& f : litmus::classic_families()) names.push_back(f.name);
      throw std::invalid_argument(fmt::format("unknown family '{}' ({})", name, fmt::join(names, ", ")));
    }
    o.cycles.push_back(*c);
  }
  for (const std::string& c : opt.cycles) o.cycles.push_back(litmus::parse_cycle(c));
  if (!opt.spec.empty()) o = litmus::parse_generate_spec(opt.spec, o);
  litmus::validate(o);
  return o;
}

int run_gen(const GenCommandOptions& opt) {
  litmus::GenerateOptions options;
  try {
    options = generate_options(opt);
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "hsalit gen: error: {}\n", e.what());
    return kExitBadInput;
  }
  try {
    // Counted first, so that a bound over --max is refused before a test is listed or
    // written (generating would stop only at the limit, a million files in).
    const std::size_t count = litmus::count_tests(options);
    if (opt.count) {
      fmt::print("{}\n", count);
      return kExitOk;
    }
    if (opt.out.empty()) {  // list the names
      litmus::generate(options, [](litmus::GeneratedTest&& t) { fmt::print("{}\n", t.test.name); });
      return kExitOk;
    }
    const std::filesystem::path dir(opt.out);
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      fmt::print(stderr, "hsalit gen: error: cannot create '{}': {}\n", dir.string(), ec.message());
      return kExitBadInput;
    }
    nlohmann::json index = nlohmann::json::array();
    results::OutputNames names;  // generated names are plain; this keeps any name inside `dir`
    // One sync for all the tests, then index.json: it lists only tests that are on disk.
    results::AtomicFolderWriter tests(dir);
    std::size_t n = litmus::generate(options, [&](litmus::GeneratedTest&& t) {
      const std::string file = names.claim(t.test.name, ".litmus");
      tests.write(results::path_in_folder(dir, file),
                  opt.emit == "c" ? litmus::print_c(t.test) : litmus::print_litmus(t.test));
      index.push_back({{"name", t.test.name}, {"file", file}, {"cycle", t.cycle}});
    });
    tests.commit();
    nlohmann::json doc = {{"schema", "hsalit-gen-index/1"}, {"count", n}, {"tests", index}};
    results::write_file_atomically(dir / "index.json", doc.dump(2) + "\n");
    fmt::print("wrote {} tests to {}\n", n, dir.string());
  } catch (const std::length_error& e) {
    fmt::print(stderr, "hsalit gen: error: {}\n", e.what());
    return kExitBadInput;
  } catch (const litmus::CPrintError& e) {  // nothing is written: the folder's files are committed at the end
    fmt::print(stderr, "hsalit gen: error: --emit c: {} (docs/litmus-c.md, \"Writing C\")\n", e.what());
    return kExitBadInput;
  }
  return kExitOk;
}

}  // namespace

Command add_gen_command(CLI::App& app) {
  auto opt = std::make_shared<GenCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gen", "Generate litmus tests from relaxation cycles (diy7-style), deduplicated up to symmetry");
  CLI::Option* threads = cmd->add_option("--threads", opt->threads, "at most this many threads (1-6, default 2)");
  CLI::Option* accesses =
      cmd->add_option("--accesses", opt->accesses, "at most this many memory accesses per thread (1-6, default 2)");
  cmd->add_option("--family", opt->families, "only these classic shapes (MP, SB, LB, IRIW, ..., CoWW); bounds ignored")
      ->delimiter(',');
  cmd->add_option("--cycle", opt->cycles, "only this cycle, e.g. 'PodWR Fre PodWR Fre' (repeatable)");
  cmd->add_option("--orders", opt->orders, "access orders: na,rlx,scacq,screl,scar (default all)")->delimiter(',');
  cmd->add_option("--scopes", opt->scopes, "atomic and fence scopes: wave,wg,agent,system (default all)")
      ->delimiter(',');
  cmd->add_option("--segments", opt->segments, "global,group (default both; group only within one work-group)")
      ->delimiter(',');
  cmd->add_option("--placements", opt->placements,
                  "how two threads may be placed: same-wg,diff-wg,diff-agent (default all)")
      ->delimiter(',');
  cmd->add_option("--fences", opt->fences, "fences on program-order edges: scacq,screl,scar (default none)")
      ->delimiter(',');
  cmd->add_option("--deps", opt->deps, "dependencies on program-order edges: addr,data,ctrl (default none)")
      ->delimiter(',');
  cmd->add_option(
         "--edges", opt->edges,
         "the edges cycles may use, like diy7's relaxations: names, Pod, Pos, com; -NAME removes (default all)")
      ->delimiter(',');
  CLI::Option* max =
      cmd->add_option("--max", opt->max_tests, "refuse to generate more tests than this (default 1000000)")
          ->check(positive_count());
  // The spec states the whole bound: with a bound option beside it, one of the two would be
  // silently ignored.
  CLI::Option* spec = cmd->add_option(
      "--spec", opt->spec,
      "the same bounds inline, instead of the options above: threads=2,accesses=2,orders=rlx+scacq,...");
  for (CLI::Option* bound : {threads, accesses, max}) spec->excludes(bound);
  for (const char* name :
       {"--family", "--cycle", "--orders", "--scopes", "--segments", "--placements", "--fences", "--deps", "--edges"})
    spec->excludes(name);
  CLI::Option* out = cmd->add_option("--out", opt->out, "write one .litmus per test and index.json into this folder");
  cmd->add_option("--emit", opt->emit,
                  "with --out, the files' format: lisa (default) or c, herd's C format with its OpenCL extensions "
                  "(docs/litmus-c.md)")
      ->check(CLI::IsMember({"lisa", "c"}))
      ->needs(out);
  cmd->add_flag("--count", opt->count, "only print how many tests there are")->excludes(out);
  return {cmd, [opt] { return run_gen(*opt); }};
}

}  // namespace hsalit::cli
