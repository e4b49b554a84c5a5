// `hsalit parse FILE...`: validate litmus tests, print them canonically or as JSON.
#include <fmt/format.h>

#include <map>
#include <memory>

#include "commands.hpp"
#include "hsalit/litmus/json.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "output_file.hpp"

namespace hsalit::cli {

namespace {

struct ParseOptions {
  std::vector<std::string> inputs;
  bool print = false;
  bool print_c = false;
  bool json = false;
  bool summary = false;
  bool quiet = false;
};

// Per-folder counts for `--summary`.
struct FolderSummary {
  int tests = 0;
  int failed = 0;
  int threads = 0;
  int instructions = 0;
};

int run_parse(const ParseOptions& opt) {
  std::vector<std::filesystem::path> inputs(opt.inputs.begin(), opt.inputs.end());
  int failed = 0, ok = 0;
  std::map<std::string, FolderSummary> folders;
  for (const auto& file : litmus::collect_litmus_files(inputs)) {
    litmus::ParseResult r = litmus::parse_litmus_file(file);
    const std::string name = file.string();
    for (const litmus::Diagnostic& d : r.diagnostics.all())
      if (!opt.quiet || d.severity == litmus::Severity::Error)
        fmt::print(stderr, "{}\n", litmus::format_diagnostic(name, d));
    FolderSummary& folder = folders[file.parent_path().string()];
    ++folder.tests;
    if (!r.ok()) {
      ++failed;
      ++folder.failed;
      continue;
    }
    ++ok;
    folder.threads += static_cast<int>(r.test->threads.size());
    for (const auto& t : r.test->threads)
      for (const auto& ins : t.code)
        if (ins.kind != litmus::OpKind::Label) ++folder.instructions;
    if (opt.print) fmt::print("{}", litmus::print_litmus(*r.test));
    if (opt.print_c) {
      try {
        fmt::print("{}", litmus::print_c(*r.test));
      } catch (const litmus::CPrintError& e) {
        fmt::print(stderr, "{}: error: {}\n", name, e.what());
        ++failed;
        ++folder.failed;
      }
    }
    if (opt.json) fmt::print("{}\n", litmus::to_json(*r.test).dump());
  }
  if (opt.summary) {
    fmt::print("{:<40} {:>6} {:>7} {:>8} {:>13}\n", "folder", "tests", "errors", "threads", "instructions");
    for (const auto& [folder, s] : folders)
      fmt::print("{:<40} {:>6} {:>7} {:>8} {:>13}\n", folder, s.tests, s.failed, s.threads, s.instructions);
  }
  if (opt.summary || !opt.quiet)
    fmt::print(stderr, "parsed {} file{}: {} ok, {} with errors\n", ok + failed, ok + failed == 1 ? "" : "s", ok,
               failed);
  return failed == 0 ? kExitOk : kExitBadInput;
}

}  // namespace

Command add_parse_command(CLI::App& app) {
  auto opt = std::make_shared<ParseOptions>();
  CLI::App* cmd = app.add_subcommand("parse",
                                     "Read litmus tests in LISA or herd's C format (files or folders of *.litmus; "
                                     "docs/litmus-c.md), report errors as file:line:col, optionally print them "
                                     "canonically or as JSON");
  cmd->add_option("inputs", opt->inputs, "litmus files or folders")->required();
  CLI::Option* print =
      cmd->add_flag("--print", opt->print, "print each test as canonical LISA (a C test as the LISA it lowers to)");
  CLI::Option* print_c =
      cmd->add_flag("--print-c", opt->print_c,
                    "print each test in herd's C format (docs/litmus-c.md, \"Writing C\"); a test C cannot write is "
                    "an error")
          ->excludes(print);
  cmd->add_flag("--json", opt->json, "print each test's AST as one JSON object per line")
      ->excludes(print)
      ->excludes(print_c);
  cmd->add_flag("--summary", opt->summary, "print counts per folder");
  cmd->add_flag("-q,--quiet", opt->quiet, "print errors only");
  add_output_file_option(cmd);
  return {cmd, [opt] { return run_parse(*opt); }};
}

}  // namespace hsalit::cli
