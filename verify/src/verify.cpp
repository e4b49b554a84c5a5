#include "hsalit/verify/verify.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <exception>
#include <set>
#include <stdexcept>

#include "elapsed.hpp"
#include "hsalit/litmus/check.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/litmus/value_width.hpp"
#include "hsalit/support/parallel.hpp"
#include "judge.hpp"

namespace hsalit::verify {

using detail::seconds_since;

namespace {

// The test with a fresh condition: `exists` the conjunction of `refs = values`, or `true`.
litmus::Prop conjunction(const std::vector<litmus::ObservedRef>& refs, const std::vector<std::int64_t>& values) {
  litmus::Prop p;
  p.kind = litmus::Prop::Kind::True;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    litmus::ObservedRef ref{refs[i].thread, refs[i].name, {}};
    litmus::Prop term = litmus::Prop::equals(std::move(ref), litmus::Expr::constant(values[i]));
    p = i == 0 ? std::move(term) : litmus::Prop::conjunction(std::move(p), std::move(term));
  }
  return p;
}

std::optional<litmus::Test> checked(litmus::Test test) {
  litmus::DiagnosticList diags;
  if (!litmus::check_test(test, diags)) return std::nullopt;
  return test;
}

// The scope tree of `keep` (old thread numbers, in their new order), rebuilt from the
// instances of the resolved tree `tree`: agents, work-groups and shared wavefronts.
litmus::ScopeTree rebuild_scopes(const litmus::ScopeTree& tree, const std::vector<int>& keep) {
  using litmus::Scope;
  using litmus::ScopeNode;
  litmus::ScopeTree out;
  std::vector<std::uint32_t> agents;
  for (int t : keep)
    if (std::find(agents.begin(), agents.end(), tree.instance(t, Scope::Agent)) == agents.end())
      agents.push_back(tree.instance(t, Scope::Agent));
  std::vector<ScopeNode::Child> agent_nodes;
  for (std::uint32_t agent : agents) {
    ScopeNode agent_node{Scope::Agent, {}, {}};
    std::vector<std::uint32_t> wgs;
    for (int t : keep)
      if (tree.instance(t, Scope::Agent) == agent &&
          std::find(wgs.begin(), wgs.end(), tree.instance(t, Scope::WorkGroup)) == wgs.end())
        wgs.push_back(tree.instance(t, Scope::WorkGroup));
    for (std::uint32_t wg : wgs) {
      ScopeNode wg_node{Scope::WorkGroup, {}, {}};
      std::vector<std::uint32_t> waves;
      for (int t : keep)
        if (tree.instance(t, Scope::WorkGroup) == wg &&
            std::find(waves.begin(), waves.end(), tree.instance(t, Scope::Wavefront)) == waves.end())
          waves.push_back(tree.instance(t, Scope::Wavefront));
      for (std::uint32_t wave : waves) {
        std::vector<int> members;
        for (std::size_t i = 0; i < keep.size(); ++i)
          if (tree.instance(keep[i], Scope::WorkGroup) == wg && tree.instance(keep[i], Scope::Wavefront) == wave)
            members.push_back(static_cast<int>(i));
        if (members.size() == 1) {
          wg_node.children.push_back({true, members[0]});
        } else {
          ScopeNode wave_node{Scope::Wavefront, {}, {}};
          for (int m : members) wave_node.children.push_back({true, m});
          wg_node.children.push_back({false, out.add_node(std::move(wave_node))});
        }
      }
      agent_node.children.push_back({false, out.add_node(std::move(wg_node))});
    }
    agent_nodes.push_back({false, out.add_node(std::move(agent_node))});
  }
  if (agent_nodes.size() == 1)
    out.add_root(agent_nodes.front().index);
  else
    out.add_root(out.add_node(ScopeNode{Scope::System, agent_nodes, {}}));
  return out;
}

void collect_locations(const litmus::Expr& e, std::set<std::string>& out) {
  if (e.is_location()) out.insert(e.name);
  for (const litmus::Expr& o : e.operands) collect_locations(o, out);
}

// Drops the initial values and regions of locations the program no longer names.
void drop_unused_locations(litmus::Test& test) {
  std::set<std::string> used;
  for (const litmus::Thread& t : test.threads)
    for (const litmus::Instruction& ins : t.code) {
      if (ins.is_memory_access()) {
        collect_locations(ins.addr.base, used);
        if (ins.addr.offset) collect_locations(*ins.addr.offset, used);
      }
      collect_locations(ins.value, used);
      if (ins.expected) collect_locations(*ins.expected, used);
      if (ins.condition) collect_locations(*ins.condition, used);
    }
  for (const litmus::InitEntry& e : test.init)
    if (e.thread) collect_locations(e.value, used);
  std::erase_if(test.init, [&](const litmus::InitEntry& e) { return !e.thread && !used.count(e.name); });
  std::erase_if(test.regions, [&](const litmus::RegionEntry& r) { return !used.count(r.location); });
}

// A candidate of minimisation: the test without thread `drop_thread`, or without
// instruction `drop_index` of thread `in_thread`; nullopt when it is no longer a valid test.
std::optional<litmus::Test> reduced(const litmus::Test& test, int drop_thread, int in_thread, int drop_index) {
  litmus::Test out = test;
  out.condition.quantifier = litmus::Quantifier::Exists;
  out.condition.prop = litmus::Prop{};
  out.condition.prop.kind = litmus::Prop::Kind::True;
  out.locations.clear();
  if (drop_thread >= 0) {
    if (test.threads.size() < 2) return std::nullopt;
    std::vector<int> keep;
    for (int t = 0; t < static_cast<int>(test.threads.size()); ++t)
      if (t != drop_thread) keep.push_back(t);
    out.threads.erase(out.threads.begin() + drop_thread);
    for (std::size_t i = 0; i < out.threads.size(); ++i) out.threads[i].id = static_cast<int>(i);
    std::vector<litmus::InitEntry> init;
    for (litmus::InitEntry e : out.init) {
      if (e.thread && *e.thread == drop_thread) continue;
      if (e.thread && *e.thread > drop_thread) --*e.thread;
      init.push_back(std::move(e));
    }
    out.init = std::move(init);
    out.scopes = rebuild_scopes(test.scopes, keep);
  } else {
    auto& code = out.threads[static_cast<std::size_t>(in_thread)].code;
    if (code.size() < 2) return std::nullopt;
    code.erase(code.begin() + drop_index);
  }
  drop_unused_locations(out);
  if (!std::any_of(out.threads.begin(), out.threads.end(), [](const litmus::Thread& t) {
        return std::any_of(t.code.begin(), t.code.end(),
                           [](const litmus::Instruction& i) { return i.is_memory_access(); });
      }))
    return std::nullopt;
  return checked(observe_everything(out));
}

std::string row_source(const codegen::MappingTable& table, const std::string& id) {
  for (const codegen::MappingRow& r : table.rows())
    if (r.id == id)
      return r.source.line > 0 ? fmt::format("{}, {}, \"{}\", line {}", r.source.document, r.source.table, r.source.row,
                                             r.source.line)
                               : fmt::format("{}, {}, \"{}\"", r.source.document, r.source.table, r.source.row);
  return "";
}

Counterexample make_counterexample(const TestVerification& v, const codegen::MappingTable& table) {
  Counterexample c = counterexample_outcome(v);
  std::set<std::pair<std::pair<int, int>, std::string>> seen;
  for (const codegen::CompiledThread& t : v.compiled->threads)
    for (const codegen::Instruction& ins : t.code) {
      const codegen::Origin& origin = ins.origin;
      if (origin.row.empty() || origin.instruction < 0) continue;
      if (!seen.insert({{origin.thread, origin.instruction}, origin.row}).second) continue;
      RowUse use;
      use.thread = origin.thread;
      use.instruction = origin.instruction;
      use.litmus = litmus::print_instruction(
          v.test.threads[static_cast<std::size_t>(origin.thread)].code[static_cast<std::size_t>(origin.instruction)]);
      use.row = origin.row;
      use.source = row_source(table, origin.row);
      c.rows.push_back(std::move(use));
    }
  c.assembly = codegen::emit_assembly(*v.compiled, v.test);
  return c;
}

TestVerification verify_without_minimising(const litmus::Test& test, const codegen::MappingTable& table,
                                           const VerifyOptions& options, VerificationCache& cache) {
  const auto start = std::chrono::steady_clock::now();
  TestVerification v;
  v.name = test.name;
  auto finish = [&](TestStatus status, std::string reason) {
    v.status = status;
    v.reason = std::move(reason);
    v.seconds = seconds_since(start);
    return v;
  };
  if (test.filter) return finish(TestStatus::Unsupported, "the test has a filter, which the simulator does not apply");
  try {
    v.test = observe_everything(test);
  } catch (const std::exception& e) {
    return finish(TestStatus::Unsupported, e.what());
  }
  const model::CheckResult& m = cache.check(v.test, options.model);
  v.model = m;
  if (m.unknown()) return finish(TestStatus::Unknown, "model: " + *m.unknown_reason);
  if (m.racy) return finish(TestStatus::Racy, racy_reason(m));
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target* target = catalog.find(options.target);
  if (!target) return finish(TestStatus::Unsupported, fmt::format("unknown target '{}'", options.target));
  try {
    v.compiled = codegen::compile(v.test, *target, catalog, table, options.compile);
  } catch (const codegen::CompileError& e) {
    v.missing_row = e.missing_row;
    return finish(TestStatus::Unsupported, fmt::format("compile: {}", e.what()));
  } catch (const std::exception& e) {
    return finish(TestStatus::Unsupported, fmt::format("compile: {}", e.what()));
  }
  detail::judge(v, m, options.sim, options.model, options.confirm_engine, cache);
  v.seconds = seconds_since(start);
  return v;
}

}  // namespace

void detail::judge(TestVerification& v, const model::CheckResult& m, const runner::SimOptions& sim,
                   const model::CheckOptions& model, std::optional<model::Engine> confirm_engine,
                   VerificationCache& cache) {
  auto finish = [&](TestStatus status, std::string reason) {
    v.status = status;
    v.reason = std::move(reason);
  };
  // Traces are only read for counterexamples, and building one per final state is a good
  // part of a sound test's simulation: the search is made again, with them, when a final
  // state is forbidden (it finds the same states).
  runner::SimOptions without_traces = sim;
  without_traces.keep_traces = false;
  // The simulator holds 32-bit values, the model 64-bit ones: where a value may leave the
  // 32-bit range, a final state the model forbids may be one the simulator wrapped.
  if (auto beyond = litmus::value_width_reason(v.test, v.name)) return finish(TestStatus::Unknown, *beyond);
  try {
    v.sim = *cache.simulate(v.test, *v.compiled, without_traces);
  } catch (const std::exception& e) {
    // The decoder names the instruction it cannot execute (runner/src/sim_program.cpp).
    return finish(TestStatus::Unknown, fmt::format("simulator: {}", e.what()));
  }
  if (v.sim->unknown) return finish(TestStatus::Unknown, "simulator: " + *v.sim->unknown);

  Containment c = contained(m, *v.sim);
  if (c.incomparable) return finish(TestStatus::Unknown, *c.incomparable);
  v.forbidden = std::move(c.forbidden);
  if (v.forbidden.empty())
    return finish(TestStatus::Sound, fmt::format("{} reachable final states, all allowed", v.sim->histogram.size()));
  if (sim.keep_traces) {
    v.sim = runner::run_exhaustive(v.test, *v.compiled, sim);
    if (v.sim->unknown) return finish(TestStatus::Unknown, "simulator: " + *v.sim->unknown);
  }
  std::string unconfirmed;
  // Auto confirms with the engine other than the one that answered (m.engine, never Auto).
  const std::optional<model::Engine> confirming = confirm_engine != model::Engine::Auto ? confirm_engine
                                                  : m.engine == model::Engine::Z3       ? model::Engine::Enum
                                                                                        : model::Engine::Z3;
  if (confirming && *confirming != m.engine) {
    model::CheckOptions second = model;
    second.engine = *confirming;
    const model::CheckResult& m2 = cache.check(v.test, second);
    if (m2.unknown()) {
      // The second engine gave up: the counterexample stands on the first engine's word.
      unconfirmed = fmt::format(" (not confirmed: the {} engine gave up: {})", model::to_string(second.engine),
                                *m2.unknown_reason);
    } else {
      Containment c2 = contained(m2, *v.sim);
      if (c2.incomparable || m2.racy || c2.forbidden != v.forbidden)
        return finish(TestStatus::Unknown,
                      fmt::format("the model's engines disagree on this test ({} and {}): a bug of the model, please "
                                  "report it",
                                  model::to_string(m.engine), model::to_string(second.engine)));
    }
  }
  finish(TestStatus::Counterexample,
         fmt::format("reaches {}, which the model forbids{}",
                     runner::format_outcome(v.test, *v.sim, v.forbidden.front()), unconfirmed));
}

std::string_view to_string(TestStatus status) {
  switch (status) {
    case TestStatus::Sound: return "sound";
    case TestStatus::Counterexample: return "counterexample";
    case TestStatus::Racy: return "racy";
    case TestStatus::Unsupported: return "unsupported";
    case TestStatus::Unknown: return "unknown";
  }
  return "?";
}

VerificationCache::VerificationCache(std::shared_ptr<model::CandidateMemo> candidates, std::size_t kept_simulations)
    : candidates_(std::move(candidates)) {
  if (kept_simulations > 0) simulations_.emplace(kept_simulations);
}

std::shared_ptr<const runner::SimResult> VerificationCache::simulate(const litmus::Test& test,
                                                                     const codegen::CompiledTest& compiled,
                                                                     const runner::SimOptions& options,
                                                                     const runner::LoweredProgram* lowered) {
  if (simulations_ && lowered) return runner::run_exhaustive(test, compiled, *lowered, options, *simulations_);
  if (simulations_) return runner::run_exhaustive(test, compiled, options, *simulations_);
  return std::make_shared<const runner::SimResult>(runner::run_exhaustive(test, compiled, options));
}

const model::CheckResult& VerificationCache::check(const litmus::Test& test, const model::CheckOptions& options) {
  std::string key = fmt::format("{}|{}|{}|{}\n", model::to_string(options.engine), static_cast<int>(options.variant),
                                options.timeout_seconds, options.stop_at_race) +
                    litmus::print_litmus(test);
  {
    std::lock_guard lock(mutex_);
    if (auto it = results_.find(key); it != results_.end()) return it->second;
  }
  // Outside the lock: other threads go on.
  model::CheckResult result = check_once(test, options);
  std::lock_guard lock(mutex_);
  return results_.try_emplace(std::move(key), std::move(result)).first->second;
}

model::CheckResult VerificationCache::check_once(const litmus::Test& test, const model::CheckOptions& options) {
  return candidates_ ? model::check(test, options, *candidates_) : model::check(test, options);
}

model::CheckResult VerificationCache::check_within(const litmus::Test& test, model::CheckOptions options,
                                                   const std::set<model::Outcome>& sought) {
  options.only_outcomes = &sought;
  return check_once(test, options);
}

litmus::Test with_outcome(const litmus::Test& test, const std::vector<litmus::ObservedRef>& refs,
                          const std::vector<std::int64_t>& values) {
  litmus::Test out = test;
  out.locations.clear();
  out.condition.quantifier = litmus::Quantifier::Exists;
  out.condition.prop = conjunction(refs, values);
  return checked(std::move(out)).value_or(test);
}

Counterexample counterexample_outcome(const TestVerification& v) {
  Counterexample c;
  c.found_in = v.name;
  const runner::SimOutcome& o = v.forbidden.front();
  c.outcome = runner::format_outcome(v.test, *v.sim, o);
  c.test = with_outcome(v.test, v.sim->observed, o.values);
  if (auto it = v.sim->traces.find(o); it != v.sim->traces.end()) c.trace = it->second;
  if (auto it = v.sim->trace_placement.find(o); it != v.sim->trace_placement.end()) c.placement = it->second;
  return c;
}

std::string racy_reason(const model::CheckResult& m) {
  const std::string_view rule = m.variant == model::ModelVariant::OpenCl ? "OpenCL's data_race" : "HSA SysArch 3.12";
  return m.race ? fmt::format("racy ({}): {} and {}", rule, m.race->first, m.race->second)
                : fmt::format("racy ({})", rule);
}

litmus::Test observe_everything(const litmus::Test& test) {
  litmus::Test out = test;
  std::set<litmus::ObservedRef> refs(test.locations.begin(), test.locations.end());
  for (const litmus::Thread& t : test.threads)
    for (const litmus::Instruction& ins : t.code)
      if (ins.kind == litmus::OpKind::Load || ins.kind == litmus::OpKind::Rmw)
        refs.insert(litmus::ObservedRef{t.id, ins.reg, {}});
  for (const std::string& loc : test.location_names()) refs.insert(litmus::ObservedRef{std::nullopt, loc, {}});
  out.locations.assign(refs.begin(), refs.end());
  return out;
}

model::Outcome ColumnMap::in_model_order(const runner::SimOutcome& outcome, std::size_t columns) const {
  model::Outcome o{std::vector<model::Value>(columns)};
  for (std::size_t i = 0; i < at.size(); ++i) o.values[at[i]] = outcome.values[i];
  return o;
}

ColumnMap model_columns(const std::vector<litmus::ObservedRef>& evaluated,
                        const std::vector<litmus::ObservedRef>& observed) {
  ColumnMap map;
  for (const litmus::ObservedRef& ref : observed) {
    auto it = std::find_if(evaluated.begin(), evaluated.end(),
                           [&](const litmus::ObservedRef& r) { return r.thread == ref.thread && r.name == ref.name; });
    if (it == evaluated.end()) {
      map.incomparable = fmt::format("the model does not report {}", ref.to_string());
      return map;
    }
    map.at.push_back(static_cast<std::size_t>(it - evaluated.begin()));
  }
  if (map.at.size() != evaluated.size()) map.incomparable = "the model and the simulator observe different things";
  return map;
}

Containment contained(const model::CheckResult& m, const runner::SimResult& sim) {
  Containment c;
  // Each simulated final state, read in the model's column order.
  const ColumnMap columns = model_columns(m.evaluated, sim.observed);
  if (columns.incomparable) {
    c.incomparable = columns.incomparable;
    return c;
  }
  std::set<std::vector<std::int64_t>> allowed;
  for (const model::Outcome& o : m.outcomes) allowed.insert(o.values);
  for (const auto& [outcome, count] : sim.histogram) {
    model::Outcome o = columns.in_model_order(outcome, m.evaluated.size());
    if (allowed.count(o.values)) continue;
    c.forbidden.push_back(outcome);
    c.forbidden_in_model.push_back(std::move(o));
  }
  return c;
}

TestVerification verify_test(const litmus::Test& test, const codegen::MappingTable& table, const VerifyOptions& options,
                             VerificationCache& cache) {
  TestVerification v = verify_without_minimising(test, table, options, cache);
  if (v.status != TestStatus::Counterexample) return v;
  if (options.minimise)
    if (auto c = minimise(v.test, table, options, cache)) {
      c->found_in = v.name;
      v.counterexample = std::move(*c);
      return v;
    }
  v.counterexample = make_counterexample(v, table);
  return v;
}

std::optional<Counterexample> minimise(const litmus::Test& test, const codegen::MappingTable& table,
                                       const VerifyOptions& options, VerificationCache& cache) {
  TestVerification current = verify_without_minimising(test, table, options, cache);
  if (current.status != TestStatus::Counterexample) return std::nullopt;
  bool changed = true;
  while (changed) {
    changed = false;
    const litmus::Test& t = current.test;
    std::vector<std::optional<litmus::Test>> candidates;
    for (int th = static_cast<int>(t.threads.size()) - 1; th >= 0; --th) candidates.push_back(reduced(t, th, -1, -1));
    for (int th = static_cast<int>(t.threads.size()) - 1; th >= 0; --th)
      for (int i = static_cast<int>(t.threads[static_cast<std::size_t>(th)].code.size()) - 1; i >= 0; --i)
        candidates.push_back(reduced(t, -1, th, i));
    for (auto& candidate : candidates) {
      if (!candidate) continue;
      TestVerification v = verify_without_minimising(*candidate, table, options, cache);
      if (v.status == TestStatus::Counterexample) {
        current = std::move(v);
        changed = true;
        break;
      }
    }
  }
  Counterexample c = make_counterexample(current, table);
  c.minimised = true;
  c.test.name = test.name + ".min";
  c.test.description = fmt::format("minimised from {}: reaches a final state the model forbids", test.name);
  return c;
}

std::size_t VerifyReport::count(TestStatus status) const {
  const std::size_t omitted = status == TestStatus::Sound  ? omitted_sound
                              : status == TestStatus::Racy ? omitted_racy
                                                           : 0;
  return omitted + static_cast<std::size_t>(std::count_if(
                       tests.begin(), tests.end(), [&](const TestVerification& v) { return v.status == status; }));
}

VerifyReport verify_tests(std::span<const litmus::Test> tests, const codegen::MappingTable& table,
                          const VerifyOptions& options, VerificationCache& cache,
                          const std::function<void(const TestVerification&)>& progress) {
  VerifyReport report;
  report.tests.resize(tests.size());
  support::parallel_for_each(
      tests.size(), options.jobs,
      [&](std::size_t i) { report.tests[i] = verify_test(tests[i], table, options, cache); },
      [&](std::size_t i) {
        if (progress) progress(report.tests[i]);
      });
  return report;
}

std::vector<std::string> rows_used(const VerifyReport& report) {
  std::set<std::string> rows;
  for (const TestVerification& v : report.tests)
    if (v.compiled)
      for (const codegen::CompiledThread& t : v.compiled->threads)
        for (const codegen::Instruction& ins : t.code)
          if (!ins.origin.row.empty()) rows.insert(ins.origin.row);
  return {rows.begin(), rows.end()};
}

std::vector<std::string> missing_rows(const VerifyReport& report) {
  std::set<std::string> rows;
  for (const TestVerification& v : report.tests)
    if (v.status == TestStatus::Unsupported && !v.missing_row.empty()) rows.insert(v.missing_row);
  return {rows.begin(), rows.end()};
}

std::string verdict_text(const VerifyReport& report) {
  const std::size_t counterexamples = report.count(TestStatus::Counterexample);
  if (counterexamples > 0) return fmt::format("{} counterexample{}", counterexamples, counterexamples == 1 ? "" : "s");
  if (report.stopped) return "unknown: " + *report.stopped;
  if (report.judged_all()) return "sound up to the bound";
  const std::size_t unsupported = report.count(TestStatus::Unsupported), unknown = report.count(TestStatus::Unknown);
  return fmt::format("unknown: {} of {} tests not judged ({} unsupported, {} unknown)", unsupported + unknown,
                     report.total(), unsupported, unknown);
}

namespace {

// The verdict of a report without counterexamples, and the rows the table lacks.
std::string verdict_line(const VerifyReport& report) {
  std::string out = verdict_text(report) + "\n";
  for (const std::string& row : missing_rows(report)) out += fmt::format("  missing row: {}\n", row);
  return out;
}

}  // namespace

std::string render_text(const VerifyReport& report, std::string_view table, std::string_view target,
                        std::string_view bound, std::size_t detailed) {
  std::string out = fmt::format("verify-mapping: table {} on {}, {}\n", table, target, bound);
  out += fmt::format("{} tests: {} sound, {} counterexamples, {} racy (not checked), {} unsupported, {} unknown\n",
                     report.total(), report.count(TestStatus::Sound), report.count(TestStatus::Counterexample),
                     report.count(TestStatus::Racy), report.count(TestStatus::Unsupported),
                     report.count(TestStatus::Unknown));
  for (const TestVerification& v : report.tests)
    if (v.status == TestStatus::Unsupported || v.status == TestStatus::Unknown)
      out += fmt::format("  {} {}: {}\n", to_string(v.status), v.name, v.reason);
  if (report.sound()) {
    out += verdict_line(report);
    return out;
  }
  std::size_t shown = 0, listed = 0;
  for (const TestVerification& v : report.tests) {
    if (!v.counterexample) continue;
    const Counterexample& c = *v.counterexample;
    if (shown >= detailed) {
      if (listed++ == 0) out += "\nmore counterexamples (test: forbidden outcome):\n";
      if (listed <= 200) out += fmt::format("  {}: {}\n", c.found_in, c.outcome);
      continue;
    }
    ++shown;
    out += fmt::format("\nCOUNTEREXAMPLE found in {}{}\n", c.found_in,
                       c.minimised ? fmt::format(", minimised to {}", c.test.name) : std::string());
    out += fmt::format("forbidden outcome: {}\n\n", c.outcome);
    out += litmus::print_litmus(c.test) + "\n";
    out += "table rows used:\n";
    for (const RowUse& r : c.rows)
      out += fmt::format("  P{}:{} {:<32} {}  ({})\n", r.thread, r.instruction, r.litmus, r.row, r.source);
    out += "\ncode:\n" + c.assembly + "\n";
    out += fmt::format("simulator trace ({}):\n", c.placement);
    for (std::size_t i = 0; i < c.trace.size(); ++i) out += fmt::format("  {:>3}. {}\n", i + 1, c.trace[i]);
  }
  if (listed > 200) out += fmt::format("  ... and {} more\n", listed - 200);
  return out;
}

}  // namespace hsalit::verify
