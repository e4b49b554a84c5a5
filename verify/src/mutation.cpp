#include "hsalit/verify/mutation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <set>

#include "hsalit/litmus/printer.hpp"
#include "hsalit/verify/bound.hpp"

namespace hsalit::verify {

namespace {

using nlohmann::json;

template <typename T>
json names(const std::set<T>& values) {
  json out = json::array();
  for (const T& v : values) out.push_back(std::string(codegen::to_string(v)));
  return out;
}

constexpr std::array<const char*, 6> kBits = {"glc", "slc", "sc0", "sc1", "nt", "dlc"};

bool bit(const codegen::CachePolicy& p, std::string_view name) {
  if (name == "glc") return p.glc;
  if (name == "slc") return p.slc;
  if (name == "sc0") return p.sc0;
  if (name == "sc1") return p.sc1;
  if (name == "nt") return p.nt;
  return p.dlc;
}

json element_to_json(const codegen::SequenceElement& e) {
  json out = {{"op", e.is_access ? std::string("access") : e.mnemonic}};
  for (const char* b : kBits)
    if (bit(e.policy, b)) out[b] = true;
  if (!e.policy.th.empty()) out["th"] = e.policy.th;
  if (!e.policy.scope.empty()) out["scope"] = e.policy.scope;
  if (e.wait.vmcnt) out["vmcnt"] = *e.wait.vmcnt;
  if (e.wait.expcnt) out["expcnt"] = *e.wait.expcnt;
  if (e.wait.lgkmcnt) out["lgkmcnt"] = *e.wait.lgkmcnt;
  if (e.count) out["count"] = *e.count;
  if (!e.omit_in.empty()) out["omit_in"] = e.omit_in;
  if (!e.omit_counters_in.empty()) {
    json m = json::object();
    for (const auto& [flavour, counters] : e.omit_counters_in) m[flavour] = counters;
    out["omit_counters_in"] = m;
  }
  if (!e.omit_bits_in.empty()) {
    json m = json::object();
    for (const auto& [flavour, bits] : e.omit_bits_in) m[flavour] = bits;
    out["omit_bits_in"] = m;
  }
  return out;
}

// `s_waitcnt vmcnt(0)`, `buffer_wbinvl1_vol`, `the access`.
std::string element_text(const codegen::SequenceElement& e) {
  if (e.is_access) return "the access";
  std::string text = e.mnemonic;
  std::vector<std::string> parts;
  if (e.wait.vmcnt) parts.push_back(fmt::format("vmcnt({})", *e.wait.vmcnt));
  if (e.wait.expcnt) parts.push_back(fmt::format("expcnt({})", *e.wait.expcnt));
  if (e.wait.lgkmcnt) parts.push_back(fmt::format("lgkmcnt({})", *e.wait.lgkmcnt));
  if (e.count) parts.push_back(std::to_string(*e.count));
  for (const char* b : kBits)
    if (bit(e.policy, b)) parts.push_back(b);
  if (!parts.empty()) text += " " + fmt::format("{}", fmt::join(parts, " "));
  return text;
}

}  // namespace

json table_to_json(const codegen::MappingTable& table) {
  json rows = json::array();
  for (const codegen::MappingRow& r : table.rows()) {
    json row = {{"id", r.id}, {"operation", names(r.operations)}};
    row["atomic"] = r.atomicity == codegen::Atomicity::Atomic;
    if (!r.access.empty()) row["access"] = names(r.access);
    if (!r.orderings.empty()) row["orderings"] = names(r.orderings);
    if (!r.scopes.empty()) row["scopes"] = names(r.scopes);
    if (!r.spaces.empty()) row["spaces"] = names(r.spaces);
    if (!r.targets.empty()) row["targets"] = r.targets;
    json sequence = json::array();
    for (const codegen::SequenceElement& e : r.sequence) sequence.push_back(element_to_json(e));
    row["sequence"] = sequence;
    row["source"] = {{"document", r.source.document}, {"table", r.source.table}, {"row", r.source.row}};
    if (r.source.line > 0) row["source"]["line"] = r.source.line;
    if (!r.note.empty()) row["note"] = r.note;
    rows.push_back(std::move(row));
  }
  json doc = {{"schema", "hsalit-mapping/1"},
              {"name", table.name()},
              {"targets", table.targets()},
              {"flavours", table.flavours()},
              {"rows", std::move(rows)}};
  if (!table.description().empty()) doc["description"] = table.description();
  return doc;
}

std::vector<Mutant> mutants(const codegen::MappingTable& table, std::span<const std::string> rows,
                            std::string_view flavour) {
  const json doc = table_to_json(table);
  std::vector<Mutant> out;
  for (std::size_t ri = 0; ri < table.rows().size(); ++ri) {
    const codegen::MappingRow& row = table.rows()[ri];
    if (std::find(rows.begin(), rows.end(), row.id) == rows.end()) continue;
    for (std::size_t ei = 0; ei < row.sequence.size(); ++ei) {
      const codegen::SequenceElement& e = row.sequence[ei];
      if (!flavour.empty() && e.omit_in.count(std::string(flavour))) continue;  // not in this flavour's code
      if (!e.is_access) {
        Mutant m{row.id, fmt::format("remove element {} ({})", ei, element_text(e)), doc};
        auto& seq = m.table["rows"][ri]["sequence"];
        seq.erase(seq.begin() + static_cast<std::ptrdiff_t>(ei));
        out.push_back(std::move(m));
      }
      const auto omitted_bits = e.omit_bits_in.find(std::string(flavour));
      for (const char* b : kBits) {
        if (!bit(e.policy, b)) continue;
        if (omitted_bits != e.omit_bits_in.end() && omitted_bits->second.count(b)) continue;  // not in this flavour
        Mutant m{row.id, fmt::format("clear {} of element {} ({})", b, ei, element_text(e)), doc};
        m.table["rows"][ri]["sequence"][ei].erase(b);
        out.push_back(std::move(m));
      }
    }
  }
  return out;
}

std::size_t MutationReport::killed() const {
  return static_cast<std::size_t>(
      std::count_if(mutants.begin(), mutants.end(), [](const MutantResult& m) { return m.killed; }));
}

namespace {

// The rows each test's code uses under the unmutated table (a mutant of a row can only be
// killed by a test that uses the row).
std::vector<std::set<std::string>> rows_per_test(std::span<const litmus::Test> tests,
                                                 const codegen::MappingTable& table, const VerifyOptions& options) {
  std::vector<std::set<std::string>> out(tests.size());
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target* target = catalog.find(options.target);
  if (!target) return out;
  for (std::size_t i = 0; i < tests.size(); ++i) {
    try {
      codegen::CompiledTest c = codegen::compile(tests[i], *target, catalog, table, options.compile);
      for (const auto& t : c.threads)
        for (const auto& ins : t.code)
          if (!ins.origin.row.empty()) out[i].insert(ins.origin.row);
    } catch (const std::exception&) {
    }
  }
  return out;
}

// The first counterexample for the mutated table, as `TEST (OUTCOME)`, or "".
// `fails_already[i]`: the unmutated table fails test i (a finding), so it kills nothing.
std::string first_kill(std::span<const litmus::Test> tests, const std::vector<std::set<std::string>>& uses,
                       const std::vector<bool>& fails_already, const std::string& row,
                       const codegen::MappingTable& mutated, const VerifyOptions& options, VerificationCache& cache) {
  for (std::size_t i = 0; i < tests.size(); ++i) {
    if (!uses[i].count(row) || fails_already[i]) continue;
    TestVerification v = verify_test(tests[i], mutated, options, cache);
    if (v.status == TestStatus::Counterexample)
      return fmt::format("{} ({})", v.name, runner::format_outcome(v.test, *v.sim, v.forbidden.front()));
  }
  return "";
}

}  // namespace

namespace {

// The mutant loop: `kill(mutated, row)` and `kill_larger(...)` give the first counterexample
// of a mutated table on the bound and on the larger bound, as text, or "".
using KillFunction = std::function<std::string(const codegen::MappingTable&, const std::string&)>;

MutationReport mutate_all(const codegen::MappingTable& table, std::span<const std::string> rows,
                          std::string_view flavour, const KillFunction& kill, const KillFunction& kill_larger) {
  MutationReport report;
  for (const Mutant& m : mutants(table, rows, flavour)) {
    MutantResult r;
    r.row = m.row;
    r.change = m.change;
    std::optional<codegen::MappingTable> parsed;
    try {
      parsed = codegen::MappingTable::from_json(m.table, fmt::format("{} ({}: {})", table.name(), m.row, m.change));
    } catch (const codegen::MappingError&) {
      continue;  // not a table any more (e.g. a fence row left empty where the format needs one)
    }
    r.killed_by = kill(*parsed, m.row);
    r.killed = !r.killed_by.empty();
    if (!r.killed && kill_larger) {
      r.larger_killed_by = kill_larger(*parsed, m.row);
      r.killed_at_larger_bound = !r.larger_killed_by.empty();
    }
    report.mutants.push_back(std::move(r));
  }
  return report;
}

VerifyOptions quick_options(const VerifyOptions& options) {
  VerifyOptions quick = options;
  quick.minimise = false;
  quick.sim.keep_traces = false;
  return quick;
}

// Whether the unmutated table passes a test: a counterexample kills a mutant only then (a
// test the table itself fails, a finding, says nothing about the mutated instruction). The
// same tests come back mutant after mutant, so each verdict is kept.
class UnmutatedVerdicts {
 public:
  UnmutatedVerdicts(const codegen::MappingTable& table, const VerifyOptions& options)
      : table_(table), options_(options) {}
  bool passes(const litmus::Test& test) {
    auto [it, fresh] = passes_.try_emplace(litmus::print_litmus(test), false);
    if (fresh) it->second = verify_test(test, table_, options_, cache_).status != TestStatus::Counterexample;
    return it->second;
  }

 private:
  const codegen::MappingTable& table_;
  const VerifyOptions& options_;
  VerificationCache cache_;
  std::map<std::string, bool> passes_;
};

// The first counterexample of `mutated` on every variation of `bound` that the unmutated
// table passes, or "".
std::string first_kill_in_bound(const litmus::GenerateOptions& bound, const codegen::MappingTable& mutated,
                                UnmutatedVerdicts& unmutated, const VerifyOptions& options) {
  BoundOptions b;
  // Called one call at a time (BoundOptions::stop_at), so `unmutated` needs no lock.
  b.stop_at = [&](const TestVerification& t) { return t.counterexample && unmutated.passes(t.test); };
  const BoundVerification v = verify_bound(bound, mutated, options, b);
  if (!v.stopped_at) return "";
  return fmt::format("{} ({})", v.stopped_at->name, v.stopped_at->counterexample->outcome);
}

}  // namespace

MutationReport run_mutation(std::span<const litmus::Test> tests, std::span<const litmus::Test> larger,
                            const codegen::MappingTable& table, std::span<const std::string> rows,
                            const VerifyOptions& options, VerificationCache& cache) {
  const VerifyOptions quick = quick_options(options);
  const auto uses = rows_per_test(tests, table, options);
  const auto larger_uses = rows_per_test(larger, table, options);
  auto failing = [&](std::span<const litmus::Test> set) {
    std::vector<bool> out;
    for (const litmus::Test& t : set)
      out.push_back(verify_test(t, table, quick, cache).status == TestStatus::Counterexample);
    return out;
  };
  const std::vector<bool> fails = failing(tests), larger_fails = failing(larger);
  KillFunction kill_larger;
  if (!larger.empty())
    kill_larger = [&](const codegen::MappingTable& mutated, const std::string& row) {
      return first_kill(larger, larger_uses, larger_fails, row, mutated, quick, cache);
    };
  return mutate_all(
      table, rows, options.compile.flavour,
      [&](const codegen::MappingTable& mutated, const std::string& row) {
        return first_kill(tests, uses, fails, row, mutated, quick, cache);
      },
      kill_larger);
}

MutationReport run_mutation(const litmus::GenerateOptions& bound, const std::optional<litmus::GenerateOptions>& larger,
                            const codegen::MappingTable& table, std::span<const std::string> rows,
                            const VerifyOptions& options) {
  const VerifyOptions quick = quick_options(options);
  UnmutatedVerdicts unmutated(table, quick);
  KillFunction kill_larger;
  if (larger)
    kill_larger = [&](const codegen::MappingTable& mutated, const std::string&) {
      return first_kill_in_bound(*larger, mutated, unmutated, quick);
    };
  return mutate_all(
      table, rows, options.compile.flavour,
      [&](const codegen::MappingTable& mutated, const std::string&) {
        return first_kill_in_bound(bound, mutated, unmutated, quick);
      },
      kill_larger);
}

std::string render_text(const MutationReport& report) {
  std::string out = fmt::format("mutation score: {} of {} mutants killed ({})\n", report.killed(),
                                report.mutants.size(), report.bound);
  for (const MutantResult& m : report.mutants) {
    if (m.killed) {
      out += fmt::format("  killed    {}: {} -- by {}\n", m.row, m.change, m.killed_by);
      continue;
    }
    std::string verdict = "survived";
    if (m.killed_at_larger_bound)
      verdict = *m.killed_at_larger_bound
                    ? fmt::format("missing test (killed at bound {} by {})", report.larger_bound, m.larger_killed_by)
                    : fmt::format("redundant instruction (sound up to bound {})", report.larger_bound);
    out += fmt::format("  survived  {}: {} -- {}\n", m.row, m.change, verdict);
  }
  return out;
}

nlohmann::json to_json(const MutationReport& report) {
  json mutants = json::array();
  for (const MutantResult& m : report.mutants) {
    json j = {{"row", m.row}, {"change", m.change}, {"killed", m.killed}};
    if (m.killed) j["killed_by"] = m.killed_by;
    if (m.killed_at_larger_bound) {
      j["verdict"] = *m.killed_at_larger_bound ? "missing test" : "redundant instruction";
      if (*m.killed_at_larger_bound) j["larger_killed_by"] = m.larger_killed_by;
    }
    mutants.push_back(std::move(j));
  }
  return {{"schema", "hsalit-mutation/1"}, {"bound", report.bound},          {"larger_bound", report.larger_bound},
          {"killed", report.killed()},     {"total", report.mutants.size()}, {"mutants", mutants}};
}

}  // namespace hsalit::verify
