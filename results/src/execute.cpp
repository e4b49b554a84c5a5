#include "hsalit/results/execute.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <ctime>
#include <exception>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/litmus/value_width.hpp"
#include "hsalit/model/explain.hpp"
#include "hsalit/model/program.hpp"
#include "hsalit/model/report.hpp"
#include "hsalit/results/journal.hpp"
#include "hsalit/results/output_folder.hpp"
#include "hsalit/results/report.hpp"
#include "hsalit/support/interrupt.hpp"
#include "hsalit/support/parallel.hpp"

namespace hsalit::results {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::vector<std::string> split_lines(std::string_view text) {
  std::vector<std::string> lines;
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    lines.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return lines;
}

// The first error of a file's diagnostics, as `file:line:col: error: ...`.
std::string first_error(const litmus::DiagnosticList& diags, const std::string& file) {
  for (const litmus::Diagnostic& d : diags.all())
    if (d.severity == litmus::Severity::Error) return litmus::format_diagnostic(file, d);
  return {};
}

void collect_refs(const litmus::Prop& prop, std::set<std::string>& out) {
  if (prop.is_atom()) out.insert(prop.lhs.to_string());
  if (prop.kind == litmus::Prop::Kind::SameValue) out.insert(prop.rhs_ref.to_string());
  for (const litmus::Prop& o : prop.operands) collect_refs(o, out);
}

// The model's stage: the allowed outcomes projected on the observed references (filter-only
// references are dropped), whether the program is racy, and a witness graph.
void run_model(const litmus::Test& test, const TestContext& context, double time_limit, TestRecord& rec) {
  auto start = Clock::now();
  model::CheckOptions options = context.model_options;
  options.timeout_seconds = std::min(options.timeout_seconds, time_limit);
  options.want_graph = true;
  try {
    model::CheckResult r = model::check(test, options);
    rec.model.engine = std::string(model::to_string(r.engine));
    rec.model.engine_reason = r.engine_reason;
    if (r.unknown()) {
      rec.model.status = StageStatus::Unknown;
      rec.model.reason = *r.unknown_reason;
    } else {
      model::Program program(test);
      rec.model.status = StageStatus::Ok;
      rec.model.result = std::string(model::to_string(r.verdict));
      rec.model.racy = r.racy;
      if (r.race) rec.model.race = fmt::format("{} and {}", r.race->first, r.race->second);
      std::map<Outcome, bool> allowed;
      for (const model::Outcome& o : r.outcomes) {
        Outcome projected;
        for (std::size_t i = 0; i < r.observed.size(); ++i)
          projected.values.push_back(program.describe_value(o.values[i]));
        bool satisfies = model::holds(test.condition.prop, r.evaluated, o, program);
        allowed[projected] = allowed[projected] || satisfies;
      }
      for (const auto& [outcome, satisfies] : allowed) rec.model.allowed.push_back({outcome, satisfies, 0});
      if (r.graph)
        rec.model.witness_dot = model::to_dot(*r.graph, test.name + (r.racy ? " (race)" : " (condition witness)"));
    }
  } catch (const std::exception& e) {
    rec.model.status = StageStatus::Unknown;
    rec.model.reason = e.what();
  }
  rec.model.seconds = seconds_since(start);
}

// Why the model forbids each forbidden outcome the backend observed (model::explain, as
// `check --explain` gives it), kept in results.json and shown in the reports. Not for a racy
// test, whose behaviour is undefined, nor past the first kMaxExplained outcomes of a test;
// within what is left of the test's time limit, past which an outcome is left unexplained.
void explain_violations(const litmus::Test& test, const TestContext& context, double seconds_left, TestRecord& rec) {
  constexpr std::size_t kMaxExplained = 8;
  if (rec.model.status != StageStatus::Ok || rec.model.racy) return;
  std::size_t explained = 0;
  for (ObservedOutcome& o : rec.run.histogram) {
    if (o.judgement != Judgement::Forbidden || explained == kMaxExplained) continue;
    std::string error;
    const std::optional<model::StateQuery> state =
        model::parse_state(format_outcome(rec.observed_refs, o.outcome), test, error);
    if (!state) continue;  // every observed reference is the test's: this does not happen
    try {
      model::CheckOptions options = context.model_options;
      options.timeout_seconds = std::min(options.timeout_seconds, std::max(0.0, seconds_left));
      const model::Explanation e = model::explain(test, *state, options);
      if (e.status == model::Explanation::Status::Unknown) continue;
      nlohmann::json j = model::explanation_to_json(e);
      j["text"] = model::format_explanation(e);
      j["dot"] = model::explanation_to_dot(e);
      o.explanation = std::move(j);
      ++explained;
    } catch (const std::exception&) {
      // The explanation is an aid: a failure to give one leaves the verdict as it is.
    }
  }
}

std::optional<codegen::CompiledTest> run_compile(const litmus::Test& test, const TestContext& context,
                                                 TestRecord& rec) {
  auto start = Clock::now();
  std::optional<codegen::CompiledTest> compiled;
  try {
    if (auto own = context.backend.own_code(test)) {
      // The backend runs its own translation (CUDA): that is the code the report shows.
      compiled = codegen::CompiledTest{test.name, std::string(context.backend.name()), "", "", false, {}};
      rec.compile.status = StageStatus::Ok;
      for (std::size_t t = 0; t < own->size(); ++t)
        rec.compile.threads.push_back({static_cast<int>(t), split_lines((*own)[t])});
      rec.compile.seconds = seconds_since(start);
      return compiled;
    }
    compiled = codegen::compile(test, context.target, codegen::TargetCatalog::builtin(), context.table,
                                context.compile_options);
    rec.compile.status = StageStatus::Ok;
    for (const codegen::CompiledThread& t : compiled->threads)
      rec.compile.threads.push_back({t.thread, split_lines(codegen::print(t.code, true))});
  } catch (const std::exception& e) {
    rec.compile.status = StageStatus::Unknown;
    rec.compile.reason = e.what();
    compiled.reset();
  }
  rec.compile.seconds = seconds_since(start);
  return compiled;
}

// The columns of a backend's outcomes, by reference name, and what a campaign makes of one of
// its outcomes: the outcome over the record's observed references, unless the test's filter
// discards the run (as herd7 and litmus7 do, when the backend reports what the filter reads).
class BackendColumns {
 public:
  BackendColumns(const litmus::Test& test, const std::vector<litmus::ObservedRef>& observed) {
    for (std::size_t i = 0; i < observed.size(); ++i) column_[observed[i].to_string()] = i;
    std::set<std::string> filter_refs;
    if (test.filter) collect_refs(*test.filter, filter_refs);
    filter_usable = std::all_of(filter_refs.begin(), filter_refs.end(),
                                [&](const std::string& ref) { return column_.contains(ref); });
  }

  std::optional<Outcome> recorded(const litmus::Test& test, const TestRecord& rec,
                                  const runner::SimOutcome& sim_outcome) const {
    if (test.filter && filter_usable && !litmus::evaluate(*test.filter, value_of(sim_outcome), no_address))
      return std::nullopt;
    Outcome o;
    for (const std::string& ref : rec.observed_refs) {
      auto it = column_.find(ref);
      o.values.push_back(it == column_.end() ? "?" : std::to_string(sim_outcome.values[it->second]));
    }
    return o;
  }

  bool satisfies(const litmus::Test& test, const runner::SimOutcome& sim_outcome) const {
    return litmus::evaluate(test.condition.prop, value_of(sim_outcome), no_address);
  }

  bool filter_usable = true;

 private:
  std::function<std::int64_t(const litmus::ObservedRef&)> value_of(const runner::SimOutcome& sim_outcome) const {
    return [this, &sim_outcome](const litmus::ObservedRef& ref) -> std::int64_t {
      auto it = column_.find(ref.to_string());
      return it == column_.end() ? 0 : sim_outcome.values[it->second];
    };
  }
  static std::int64_t no_address(const std::string&) { return -1; }
  std::map<std::string, std::size_t> column_;
};

void run_backend(const litmus::Test& test, const codegen::CompiledTest& compiled, const TestContext& context,
                 double seconds_left, TestRecord& rec) {
  auto start = Clock::now();
  if (seconds_left <= 0) {
    rec.run.status = StageStatus::Unknown;
    rec.run.reason = fmt::format("time limit of {} s reached before the run", context.time_limit_seconds);
    return;
  }
  runner::BackendRequest request = context.request;
  request.timeout_seconds = seconds_left;
  // Each test gets its own stream of random choices, the same in every shard and resume.
  request.seed = context.request.seed ^ std::stoull(content_hash(test.name), nullptr, 16);
  runner::BackendResult r;
  try {
    r = context.backend.run(test, compiled, request);
  } catch (const std::exception& e) {
    rec.run.status = StageStatus::Unknown;
    rec.run.reason = e.what();
    rec.run.seconds = seconds_since(start);
    return;
  }
  const BackendColumns columns(test, r.observed);
  std::map<Outcome, ObservedOutcome> merged;
  for (const auto& [sim_outcome, count] : r.histogram) {
    std::optional<Outcome> o = columns.recorded(test, rec, sim_outcome);
    if (!o) continue;
    ObservedOutcome& entry = merged[*o];
    entry.outcome = *o;
    entry.count += count;
    entry.satisfies = columns.satisfies(test, sim_outcome);
  }
  for (auto& [o, entry] : merged) rec.run.histogram.push_back(std::move(entry));
  rec.run.states = r.states;
  rec.run.iterations = r.iterations;
  rec.run.overlapped = r.overlapped;
  rec.run.instances_per_launch = r.instances_per_launch;
  rec.run.status = r.unknown ? StageStatus::Unknown : StageStatus::Ok;
  if (r.unknown) rec.run.reason = *r.unknown;
  if (test.filter && !columns.filter_usable && rec.run.reason.empty())
    rec.run.reason = "the filter reads references the backend does not report";
  rec.run.seconds = seconds_since(start);
}

// Judges each observed outcome against the allowed set and counts coverage; none when the
// test's values may leave the backends' width (`values_fit` false).
void judge(TestRecord& rec, bool filter_usable, bool values_fit) {
  bool judged = rec.model.status == StageStatus::Ok && !rec.model.racy && values_fit;
  std::map<Outcome, AllowedOutcome*> allowed;
  for (AllowedOutcome& a : rec.model.allowed) allowed[a.outcome] = &a;
  for (ObservedOutcome& o : rec.run.histogram) {
    auto it = allowed.find(o.outcome);
    if (it != allowed.end()) it->second->observed += o.count;
    if (!judged)
      o.judgement = Judgement::NotJudged;
    else if (it != allowed.end())
      o.judgement = Judgement::Allowed;
    else
      o.judgement = filter_usable ? Judgement::Forbidden : Judgement::NotJudged;
  }
}

// How the backend reached each forbidden outcome it observed: the search replayed with traces
// kept (exhaustive, also after a random-mode run), within what is left of the test's time
// limit; each outcome gets the shortest trace that ends in it, or why it has none (a GPU
// backend cannot tell; a replay cut short). The first search keeps no traces: they cost memory
// for every outcome of every test, and only a violation shows one.
void trace_violations(const litmus::Test& test, const codegen::CompiledTest& compiled, const TestContext& context,
                      double seconds_left, TestRecord& rec) {
  std::vector<ObservedOutcome*> forbidden;
  for (ObservedOutcome& o : rec.run.histogram)
    if (o.judgement == Judgement::Forbidden) forbidden.push_back(&o);
  if (forbidden.empty()) return;
  auto leave_untraced = [&](const std::string& why) {
    for (ObservedOutcome* o : forbidden)
      if (!o->trace) o->trace = OutcomeTrace{{}, {}, why};
  };
  if (!context.backend.can_trace())
    return leave_untraced(
        fmt::format("the {} backend does not report how a run reaches its final state", context.backend.name()));
  if (seconds_left <= 0) return leave_untraced("the time limit was reached before the search could be replayed");
  runner::BackendRequest request = context.request;
  request.exhaustive = true;
  request.keep_traces = true;
  request.timeout_seconds = seconds_left;
  runner::BackendResult r;
  try {
    r = context.backend.run(test, compiled, request);
  } catch (const std::exception& e) {
    return leave_untraced(fmt::format("the replay with traces failed: {}", e.what()));
  }
  const BackendColumns columns(test, r.observed);
  for (const auto& [sim_outcome, steps] : r.traces) {
    std::optional<Outcome> o = columns.recorded(test, rec, sim_outcome);
    if (!o) continue;
    for (ObservedOutcome* f : forbidden)
      if (f->outcome == *o && (!f->trace || steps.size() < f->trace->steps.size())) {
        auto placement = r.trace_placement.find(sim_outcome);
        f->trace = OutcomeTrace{placement == r.trace_placement.end() ? "" : placement->second, steps, ""};
      }
  }
  leave_untraced(r.unknown ? fmt::format("the replay with traces stopped before reaching it: {}", *r.unknown)
                           : std::string("the replay with traces did not reach it"));
}

std::string read_bytes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    const int error = errno;
    std::error_code ec;
    if (fs::is_symlink(file, ec) && !fs::exists(file, ec))
      throw std::runtime_error(fmt::format("{}: error: a dangling symbolic link (to '{}', which does not exist)",
                                           file.string(), fs::read_symlink(file, ec).string()));
    throw std::runtime_error(fmt::format("{}: error: cannot read the file: {}", file.string(), std::strerror(error)));
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A value as a message shows it: whole when short, its start otherwise.
std::string shown(const nlohmann::json& value) {
  std::string text = value.is_null() ? "absent" : value.dump();
  constexpr std::size_t kLongest = 60;
  if (text.size() > kLongest) text = text.substr(0, kLongest - 3) + "...";
  return text;
}

// What differs between the campaign a journal was written by and the one asked for, key by
// key: `sc_orders: false in the journal, true now; inputs: ...`.
std::string differences(const CampaignInfo& journal, const CampaignInfo& now) {
  nlohmann::json a = to_json(journal), b = to_json(now);
  const nlohmann::json key_a = journal.configuration_key(), key_b = now.configuration_key();
  std::vector<std::string> out;
  auto compare = [&](const std::string& key, const nlohmann::json& x, const nlohmann::json& y) {
    if (x != y) out.push_back(fmt::format("{}: {} in the journal, {} now", key, shown(x), shown(y)));
  };
  std::set<std::string> keys;
  for (const auto& [k, v] : key_a.items()) keys.insert(k);
  for (const auto& [k, v] : key_b.items()) keys.insert(k);
  for (const std::string& k : keys) compare(k, key_a.value(k, nlohmann::json()), key_b.value(k, nlohmann::json()));
  for (const char* k : {"inputs", "shard"}) compare(k, a.value(k, nlohmann::json()), b.value(k, nlohmann::json()));
  return fmt::format("{}", fmt::join(out, "; "));
}

}  // namespace

TestRecord run_test(const fs::path& file, const TestContext& context) {
  auto start = Clock::now();
  TestRecord rec;
  rec.file = file.generic_string();
  rec.name = file.stem().string();
  std::string source;  // the litmus text, kept for a violation
  try {
    std::string bytes = read_bytes(file);
    rec.content_hash = content_hash(bytes);
    litmus::ParseResult parsed = litmus::parse_litmus(bytes);
    // Constants the backends cannot hold refuse the test as a parse error does.
    if (parsed.ok()) litmus::check_backend_constants(*parsed.test, parsed.diagnostics);
    if (!parsed.ok() || parsed.diagnostics.has_errors()) {
      rec.parse_error = first_error(parsed.diagnostics, file.string());
      if (rec.parse_error.empty()) rec.parse_error = fmt::format("{}: error: cannot parse", file.string());
    } else {
      const litmus::Test& test = *parsed.test;
      rec.name = test.name;
      rec.description = test.description;
      rec.condition =
          fmt::format("{} ({})", litmus::to_string(test.condition.quantifier), litmus::print_prop(test.condition.prop));
      for (const litmus::ObservedRef& ref : test.observed()) rec.observed_refs.push_back(ref.to_string());
      model::Deadline deadline(context.time_limit_seconds);
      run_model(test, context, context.time_limit_seconds, rec);
      std::optional<codegen::CompiledTest> compiled = run_compile(test, context, rec);
      if (compiled) run_backend(test, *compiled, context, deadline.seconds_left(), rec);
      std::set<std::string> filter_refs;
      if (test.filter) collect_refs(*test.filter, filter_refs);
      bool filter_usable = std::all_of(filter_refs.begin(), filter_refs.end(), [&](const std::string& ref) {
        return std::find(rec.observed_refs.begin(), rec.observed_refs.end(), ref) != rec.observed_refs.end();
      });
      // A value the backend wraps and the model does not: its final states are not judged.
      const std::optional<std::string> beyond_width = litmus::value_width_reason(test, file.string());
      if (beyond_width && compiled) {
        rec.run.status = StageStatus::Unknown;
        rec.run.reason = *beyond_width;
      }
      judge(rec, filter_usable, !beyond_width);
      explain_violations(test, context, deadline.seconds_left(), rec);
      if (compiled) trace_violations(test, *compiled, context, deadline.seconds_left(), rec);
      source = std::move(bytes);
    }
  } catch (const std::exception& e) {
    if (rec.parse_error.empty() && rec.model.status != StageStatus::Ok) {
      rec.parse_error = e.what();
    } else {
      rec.run.status = StageStatus::Unknown;
      rec.run.reason = fmt::format("internal error: {}", e.what());
    }
  }
  classify(rec);
  if (rec.verdict == VerdictClass::Violation) rec.source = std::move(source);
  rec.seconds = seconds_since(start);
  return rec;
}

void classify(TestRecord& rec) {
  auto violations = rec.violations();
  std::size_t not_judged = std::count_if(rec.run.histogram.begin(), rec.run.histogram.end(),
                                         [](const ObservedOutcome& o) { return o.judgement == Judgement::NotJudged; });
  if (!rec.parse_error.empty()) {
    rec.verdict = VerdictClass::Unknown;
    rec.reason = fmt::format("parse: {}", rec.parse_error);
  } else if (rec.model.status == StageStatus::Ok && rec.model.racy) {
    rec.verdict = VerdictClass::Undefined;
    rec.reason = fmt::format("racy under the model (HSA SysArch 3.12): {}", rec.model.race);
  } else if (!violations.empty()) {
    rec.verdict = VerdictClass::Violation;
    std::vector<std::string> named;
    for (const ObservedOutcome* o : violations)
      named.push_back(fmt::format("{} ({} time{})", format_outcome(rec.observed_refs, o->outcome), o->count,
                                  o->count == 1 ? "" : "s"));
    rec.reason =
        fmt::format("forbidden outcome{} observed: {}", violations.size() == 1 ? "" : "s", fmt::join(named, ", "));
  } else if (rec.model.status != StageStatus::Ok) {
    rec.verdict = VerdictClass::Unknown;
    rec.reason = fmt::format("model: {}", rec.model.reason);
  } else if (rec.compile.status != StageStatus::Ok) {
    rec.verdict = VerdictClass::Unknown;
    rec.reason = fmt::format("compile: {}", rec.compile.reason);
  } else if (rec.run.status != StageStatus::Ok) {
    rec.verdict = VerdictClass::Unknown;
    rec.reason = fmt::format("run: {}", rec.run.reason);
  } else if (not_judged > 0) {
    rec.verdict = VerdictClass::Unknown;
    rec.reason = fmt::format("{} observed outcome{} not judged: {}", not_judged, not_judged == 1 ? "" : "s",
                             rec.run.reason.empty() ? "not in the allowed set" : rec.run.reason);
  } else {
    std::size_t covered = std::count_if(rec.model.allowed.begin(), rec.model.allowed.end(),
                                        [](const AllowedOutcome& a) { return a.observed > 0; });
    rec.verdict = VerdictClass::Consistent;
    rec.reason = fmt::format("every observed outcome is allowed; {} of {} allowed outcomes observed", covered,
                             rec.model.allowed.size());
  }
}

std::optional<Shard> parse_shard(std::string_view text) {
  std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  unsigned index = 0, count = 0;
  std::string_view a = text.substr(0, slash), b = text.substr(slash + 1);
  auto ra = std::from_chars(a.data(), a.data() + a.size(), index);
  auto rb = std::from_chars(b.data(), b.data() + b.size(), count);
  if (a.empty() || b.empty() || ra.ec != std::errc() || ra.ptr != a.data() + a.size() || rb.ec != std::errc() ||
      rb.ptr != b.data() + b.size() || count == 0 || index >= count)
    return std::nullopt;
  return Shard{index, count};
}

std::vector<fs::path> shard_files(std::span<const fs::path> files, Shard shard) {
  std::vector<fs::path> sorted(files.begin(), files.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<fs::path> out;
  for (std::size_t i = shard.index; i < sorted.size(); i += shard.count) out.push_back(sorted[i]);
  return out;
}

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

CampaignInterrupted::CampaignInterrupted(std::size_t done, std::size_t total)
    : std::runtime_error(fmt::format("interrupted: {} of {} tests done", done, total)), done(done), total(total) {}

CampaignResults run_campaign(const CampaignRun& run, const TestContext& context) {
  auto start = Clock::now();
  std::error_code ec;
  fs::create_directories(run.out_dir, ec);
  if (ec)
    throw ResultsError(fmt::format("{}: error: cannot create the folder: {}", run.out_dir.string(), ec.message()));
  const fs::path journal_file = run.out_dir / kJournalFile;
  // One writer at a time: a second campaign on this folder fails here, not with a journal
  // written twice.
  const FolderLock lock(run.out_dir);

  CampaignInfo info = run.info;
  // Finished tests by file; a later line for the same file (the file changed) wins.
  std::map<std::string, TestRecord> finished;
  std::optional<Journal> journal;
  if (run.resume && fs::exists(journal_file)) {
    JournalContents previous = read_journal(journal_file);
    CampaignInfo before = previous.info;
    if (before.configuration_key() != info.configuration_key() || before.inputs != info.inputs ||
        before.shard != info.shard)
      throw ResultsError(
          fmt::format("{}: error: the journal is of another campaign: {} (resume with the journal's "
                      "settings, or choose another --out)",
                      journal_file.string(), differences(before, info)));
    info.started = before.started;
    for (TestRecord& r : previous.records) finished[r.file] = std::move(r);
    journal.emplace(Journal::reopen(journal_file, previous.valid_bytes));
  } else {
    if (!run.resume && !run.force && fs::exists(journal_file))
      throw ResultsError(
          fmt::format("{}: error: the folder holds a campaign already: pass --resume to continue it, "
                      "or choose another --out, or pass --force to replace it",
                      run.out_dir.string()));
    // results.json without a journal: a verification's, or merged results.
    if (!run.force && fs::exists(run.out_dir / kResultsFile))
      throw ResultsError(
          fmt::format("{}: error: the folder holds the results of another run ({}, without a campaign journal): "
                      "choose another --out, or pass --force to replace them",
                      run.out_dir.string(), (run.out_dir / kResultsFile).string()));
    remove_stale_results(run.out_dir);
    info.started = utc_now();
    journal.emplace(Journal::create(journal_file, info));
  }

  // What is left: tests without a record, or whose file changed since.
  std::vector<fs::path> pending;
  std::vector<TestRecord> done;
  for (const fs::path& file : run.files) {
    auto it = finished.find(file.generic_string());
    std::string hash;
    if (it != finished.end()) {
      try {
        hash = content_hash(read_bytes(file));
      } catch (const std::exception&) {
      }
    }
    if (it != finished.end() && it->second.content_hash == hash)
      done.push_back(it->second);
    else
      pending.push_back(file);
  }

  Progress progress;
  progress.total = run.files.size();
  progress.done = progress.resumed = done.size();
  if (run.on_progress) run.on_progress(progress);
  // Each test's record, from its run until the progress step moves it into `done`.
  std::vector<TestRecord> records(pending.size());
  // Per test, whether its record is in the journal: after SIGINT or SIGTERM no test starts,
  // and one running then is not journalled (its stages may have stopped short).
  std::vector<char> journalled(pending.size(), 0);
  // A failure to journal (disk full, folder removed) stops the campaign: what is journalled
  // so far stays resumable.
  support::parallel_for_each(
      pending.size(), run.jobs == 0 ? support::default_jobs() : static_cast<int>(run.jobs),
      [&](std::size_t i) {
        if (support::interrupted()) return;
        records[i] = run_test(pending[i], context);
        records[i].findings = matching_findings(run.findings, info, records[i]);
        if (support::interrupted()) return;
        journal->append(records[i]);
        journalled[i] = 1;
      },
      [&](std::size_t i) {
        if (!journalled[i]) return;
        done.push_back(std::move(records[i]));
        ++progress.done;
        progress.elapsed_seconds = seconds_since(start);
        progress.last = &done.back();
        if (run.on_progress) run.on_progress(progress);
        progress.last = nullptr;
      });

  if (support::interrupted()) throw CampaignInterrupted(done.size(), run.files.size());

  CampaignResults results;
  info.finished = utc_now();
  info.wall_seconds = seconds_since(start);
  results.info = info;
  results.tests = std::move(done);
  std::sort(results.tests.begin(), results.tests.end(),
            [](const TestRecord& a, const TestRecord& b) { return a.file < b.file; });
  write_all(run.out_dir, results);
  return results;
}

}  // namespace hsalit::results
