#include "hsalit/model/checker.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engines.hpp"
#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/model/relations.hpp"

namespace hsalit::model {

std::string_view to_string(Engine e) {
  switch (e) {
    case Engine::Z3: return "z3";
    case Engine::Enum: return "enum";
    case Engine::Auto: return "auto";
  }
  return "?";
}

std::optional<Engine> engine_from_string(std::string_view t) {
  if (t == "z3") return Engine::Z3;
  if (t == "enum") return Engine::Enum;
  if (t == "auto") return Engine::Auto;
  return std::nullopt;
}

CandidateEstimate estimate_candidates(const Program& program) {
  constexpr double kCeiling = 1e18;
  auto times = [&](double& product, double factor) { product = std::min(kCeiling, product * factor); };
  std::vector<double> writes(program.locations().size(), 0);
  double all_writes = 0;
  for (const StaticEvent& e : program.events())
    if (e.writes()) {
      all_writes += 1;
      if (e.location)
        writes[static_cast<std::size_t>(*e.location)] += 1;
      else
        for (double& w : writes) w += 1;  // through a register: it may write any location
    }
  CandidateEstimate estimate;
  for (const StaticEvent& e : program.events())
    if (e.reads())
      times(estimate.rf_choices, 1 + (e.location ? writes[static_cast<std::size_t>(*e.location)] : all_writes));
  for (double w : writes)
    for (double k = 2; k <= w && estimate.co_orders < kCeiling; ++k) times(estimate.co_orders, k);
  return estimate;
}

EngineChoice choose_engine(const Program& program) {
  EngineChoice choice;
  choice.estimate = estimate_candidates(program);
  const CandidateEstimate& e = choice.estimate;
  const bool small = e.rf_choices <= kAutoEnumMaxChoices && e.co_orders <= kAutoEnumMaxChoices &&
                     e.rf_choices * e.co_orders <= kAutoEnumMaxCandidates;
  choice.engine = small ? Engine::Enum : Engine::Z3;
  choice.reason =
      fmt::format("{} candidate executions: {:.0f} rf choices x {:.0f} coherence orders ({})", small ? "few" : "many",
                  e.rf_choices, e.co_orders, small ? "enum is faster" : "z3 scales further");
  return choice;
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::Ok: return "Ok";
    case Verdict::No: return "No";
    case Verdict::Unknown: return "unknown";
  }
  return "?";
}

bool holds(const litmus::Prop& prop, const std::vector<litmus::ObservedRef>& refs, const Outcome& outcome,
           const Program& program) {
  auto value = [&](const litmus::ObservedRef& ref) -> std::int64_t {
    for (std::size_t i = 0; i < refs.size(); ++i)
      if (refs[i].thread == ref.thread && refs[i].name == ref.name) return outcome.values[i];
    return 0;
  };
  auto address = [&](const std::string& name) -> std::int64_t {
    auto loc = program.location_by_name(name);
    return loc ? program.address_of(*loc) : 0;
  };
  return litmus::evaluate(prop, value, address);
}

namespace {

// Whether the listing of candidates reads the test's scope tree and segments: only through
// the cells, where a group-segment location has a copy per work-group (Program::copy_of,
// one copy when every thread shares a work-group), and the participants of a barrier.
bool listing_reads_scopes(const litmus::Test& test) {
  for (const litmus::Thread& thread : test.threads)
    for (const litmus::Instruction& ins : thread.code)
      if (ins.kind == litmus::OpKind::Barrier) return true;
  return !test.scopes.one_instance(Scope::WorkGroup) &&
         std::any_of(test.regions.begin(), test.regions.end(),
                     [](const litmus::RegionEntry& r) { return r.segment == litmus::Segment::Group; });
}

// What the enum engine's list of candidates depends on: the test without its name, its
// metadata and the atomicity, order and scope of each instruction (Program copies those
// into its events and nothing else reads them; the engine's listing reads no event's), and
// without its scope tree and segments where the listing does not read them (the scope
// instances and segments that the evaluation reads are the checked program's own). So the
// placements of a program with global locations share one listing, and so do the segment
// assignments of a program whose threads share a work-group.
std::string enumeration_key(const litmus::Test& test) {
  litmus::Test t = test;
  t.name.clear();
  t.description.clear();
  t.metadata.clear();
  if (!listing_reads_scopes(test)) {
    t.scopes = litmus::ScopeTree::default_for(static_cast<int>(t.threads.size()));
    // Every location named global, in the order of the test's locations (which places
    // them), whether the test declared its segment or not.
    t.regions.clear();
    for (std::string& location : test.location_names()) {
      litmus::RegionEntry global;
      global.location = std::move(location);
      t.regions.push_back(std::move(global));
    }
  }
  for (litmus::Thread& thread : t.threads)
    for (litmus::Instruction& ins : thread.code) {
      ins.annots.atomic = false;
      ins.annots.order = MemoryOrder::Relaxed;
      ins.annots.scope = Scope::WorkItem;
    }
  return litmus::print_litmus(t);
}

RaceReport race_report(const Program& program, const RaceWitness& w) {
  return RaceReport{w.first, w.second, program.describe_event(w.first), program.describe_event(w.second), w.kind};
}

// The engine's answer, the enum engine's candidates replayed from `memo` when it lists them.
detail::EngineResult run_engine(const Program& program, const litmus::Test& test, const CheckOptions& options,
                                const std::vector<litmus::ObservedRef>& evaluated, const Deadline& deadline,
                                CandidateMemo* memo) {
  detail::EngineQuery query{program, options, evaluated, test.filter ? &*test.filter : nullptr, test.condition.prop,
                            deadline};
  std::string key;
  std::shared_ptr<const detail::CandidateList> kept;
  std::shared_ptr<detail::CandidateList> listing;
  if (memo && options.engine == Engine::Enum) {
    key = enumeration_key(test);
    kept = memo->find(key);
    if (kept) {
      query.replay = kept.get();
    } else {
      listing = std::make_shared<detail::CandidateList>();
      query.record = listing.get();
      query.record_limit = memo->max_candidates();
    }
  }
  detail::EngineResult r =
      options.engine == Engine::Enum ? detail::run_enum_engine(query) : detail::run_z3_engine(query);
  if (listing && listing->complete && !r.unknown) memo->keep(key, std::move(listing));
  return r;
}

CheckResult check_with(const litmus::Test& test, const CheckOptions& requested, CandidateMemo* memo) {
  auto start = std::chrono::steady_clock::now();
  Deadline deadline(requested.timeout_seconds, requested.memory_limit);
  Program program(test);

  CheckResult result;
  CheckOptions options = requested;
  if (options.engine == Engine::Auto) {
    EngineChoice choice = choose_engine(program);
    options.engine = choice.engine;
    result.engine_reason = std::move(choice.reason);
  }
  result.name = test.name;
  result.variant = options.variant;
  result.engine = options.engine;
  result.observed = test.observed();
  result.evaluated = result.observed;
  if (test.filter) litmus::append_references(*test.filter, result.evaluated);

  if (options.stop_at_race && !options.want_graph && !program.unsupported()) {
    if (std::optional<RaceWitness> w = certain_race(program, options.variant)) {
      // Racy without a candidate enumerated: no outcomes, as an enumeration stopped at once.
      result.racy = true;
      result.race = race_report(program, *w);
      result.verdict = test.condition.quantifier == litmus::Quantifier::Exists ? Verdict::No : Verdict::Ok;
      result.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
      return result;
    }
  }
  detail::EngineResult r;
  if (options.engine == Engine::Enum && options.only_outcomes && options.only_outcomes->empty() &&
      !program.unsupported() && cannot_race(program, options.variant)) {
    r.partial = true;  // whether it races, asked of a program that cannot: nothing to enumerate
  } else {
    r = run_engine(program, test, options, result.evaluated, deadline, memo);
  }
  result.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (r.unknown) {
    result.unknown_reason = r.unknown;
    result.verdict = Verdict::Unknown;
    return result;
  }
  result.outcomes.assign(r.outcomes.begin(), r.outcomes.end());
  result.partial = r.partial;
  for (const Outcome& o : result.outcomes)
    (holds(test.condition.prop, result.evaluated, o, program) ? result.positive : result.negative)++;
  switch (test.condition.quantifier) {
    case litmus::Quantifier::Exists: result.verdict = result.positive ? Verdict::Ok : Verdict::No; break;
    case litmus::Quantifier::NotExists: result.verdict = result.positive ? Verdict::No : Verdict::Ok; break;
    case litmus::Quantifier::Forall: result.verdict = result.negative ? Verdict::No : Verdict::Ok; break;
  }
  if (r.race) {
    result.racy = true;
    result.race = race_report(program, r.race->second);
  }
  if (options.want_graph) {
    const ConcreteExecution* x = r.race ? &r.race->first : r.satisfying ? &*r.satisfying : nullptr;
    if (x) result.graph = make_graph(program, *x, evaluate_execution(program, *x, options.variant));
  }
  result.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace

CheckResult check(const litmus::Test& test, const CheckOptions& options) { return check_with(test, options, nullptr); }

CheckResult check(const litmus::Test& test, const CheckOptions& options, CandidateMemo& memo) {
  return check_with(test, options, &memo);
}

}  // namespace hsalit::model
