// What the hardware harness can run, the outcome encoding (value domains by a flow-insensitive
// fixpoint over the test's constants), and the instance layout from the scope tree.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "hardware_internal.hpp"
#include "hsalit/runner/hardware.hpp"

namespace hsalit::runner {

using litmus::Expr;
using litmus::OpKind;

std::string_view to_string(HardwareBackend b) { return b == HardwareBackend::Hip ? "hip" : "cuda"; }

std::optional<Incantations> parse_incantations(std::string_view list, std::string& error) {
  Incantations inc;
  while (!list.empty()) {
    std::size_t comma = list.find(',');
    std::string_view word = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (word.empty() || word == "none") continue;
    if (word == "stress")
      inc.stress = true;
    else if (word == "shuffle")
      inc.shuffle = true;
    else if (word == "prestress")
      inc.prestress = true;
    else if (word == "spacing")
      inc.spacing = true;
    else if (word == "delay")
      inc.delay = true;
    else if (word == "all")
      inc = {true, true, true, true, true};
    else {
      error = fmt::format("unknown incantation '{}' (stress, shuffle, prestress, spacing, delay, all, none)", word);
      return std::nullopt;
    }
  }
  return inc;
}

namespace detail {

namespace {

bool reads_register(const Expr& e, const std::string& reg) {
  if (e.is_register()) return e.name == reg;
  for (const Expr& o : e.operands)
    if (reads_register(o, reg)) return true;
  return false;
}

}  // namespace

std::optional<RmwShape> rmw_shape(const litmus::Instruction& ins) {
  if (ins.annots.cas) {
    if (reads_register(ins.value, ins.reg) || (ins.expected && reads_register(*ins.expected, ins.reg)))
      return std::nullopt;
    return RmwShape{RmwShape::Kind::Cas, ins.value};
  }
  if (!reads_register(ins.value, ins.reg)) return RmwShape{RmwShape::Kind::Exchange, ins.value};
  const Expr& v = ins.value;
  if (v.kind != Expr::Kind::Binary || v.operands.size() != 2) return std::nullopt;
  const Expr& a = v.operands[0];
  const Expr& b = v.operands[1];
  bool left = a.is_register() && a.name == ins.reg && !reads_register(b, ins.reg);
  bool right = b.is_register() && b.name == ins.reg && !reads_register(a, ins.reg);
  if (!left && !right) return std::nullopt;
  const Expr& operand = left ? b : a;
  switch (v.op) {
    case litmus::BinaryOp::Add: return RmwShape{RmwShape::Kind::Add, operand};
    case litmus::BinaryOp::Sub:
      if (!left) return std::nullopt;
      return RmwShape{RmwShape::Kind::Sub, operand};
    case litmus::BinaryOp::And: return RmwShape{RmwShape::Kind::And, operand};
    case litmus::BinaryOp::Or: return RmwShape{RmwShape::Kind::Or, operand};
    case litmus::BinaryOp::Xor: return RmwShape{RmwShape::Kind::Xor, operand};
    default: return std::nullopt;
  }
}

TestFacts test_facts(const litmus::Test& test) {
  TestFacts f;
  f.locations = test.location_names();
  for (const std::string& l : f.locations) {
    f.group.push_back(test.segment_of(l) == litmus::Segment::Group);
    bool wide = false;
    for (const litmus::Thread& t : test.threads)
      for (const litmus::Instruction& ins : t.code)
        if (ins.is_memory_access() && ins.addr.base.is_location() && ins.addr.base.name == l &&
            ins.annots.size == litmus::AccessSize::Double)
          wide = true;
    f.wide.push_back(wide);
  }
  for (const litmus::Thread& t : test.threads) {
    std::set<std::string> regs;
    std::set<std::string> wide;
    std::function<void(const Expr&)> collect = [&](const Expr& e) {
      if (e.is_register()) regs.insert(e.name);
      for (const Expr& o : e.operands) collect(o);
    };
    for (const litmus::Instruction& ins : t.code) {
      if (!ins.reg.empty()) regs.insert(ins.reg);
      if (ins.reads_memory() && ins.annots.size == litmus::AccessSize::Double) wide.insert(ins.reg);
      collect(ins.value);
      if (ins.expected) collect(*ins.expected);
      if (ins.condition) collect(*ins.condition);
      if (ins.addr.offset) collect(*ins.addr.offset);
      collect(ins.addr.base);
    }
    for (const litmus::InitEntry& e : test.init)
      if (e.thread == t.id) regs.insert(e.name);
    for (const litmus::ObservedRef& r : test.observed())
      if (r.thread == t.id) regs.insert(r.name);
    f.registers.emplace_back(regs.begin(), regs.end());
    std::vector<bool> w;
    for (const std::string& r : regs) w.push_back(wide.count(r) > 0);
    f.wide_registers.push_back(std::move(w));
  }
  return f;
}

int location_index(const TestFacts& facts, const std::string& name) {
  auto it = std::find(facts.locations.begin(), facts.locations.end(), name);
  return it == facts.locations.end() ? -1 : static_cast<int>(it - facts.locations.begin());
}

std::string register_variable(const std::string& name) {
  std::string out = "r_";
  for (char c : name) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u))
      out += c;
    else
      out += fmt::format("_{:02X}", u);
  }
  return out;
}

}  // namespace detail

namespace {

// Value sets per register and location, grown to a fixpoint, each capped at kCap values.
constexpr std::size_t kCap = 24;

struct Domains {
  std::map<std::pair<int, std::string>, std::set<std::int64_t>> regs;
  std::map<std::string, std::set<std::int64_t>> locs;
  bool changed = false;

  void add(std::set<std::int64_t>& s, std::int64_t v) {
    if (s.size() >= kCap || s.count(v)) return;
    s.insert(v);
    changed = true;
  }
};

std::int64_t apply(litmus::BinaryOp op, std::int64_t a, std::int64_t b) {
  auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
  switch (op) {
    case litmus::BinaryOp::Add: return static_cast<std::int64_t>(ua + ub);
    case litmus::BinaryOp::Sub: return static_cast<std::int64_t>(ua - ub);
    case litmus::BinaryOp::Xor: return a ^ b;
    case litmus::BinaryOp::And: return a & b;
    case litmus::BinaryOp::Or: return a | b;
    case litmus::BinaryOp::Eq: return a == b;
    case litmus::BinaryOp::Ne: return a != b;
  }
  return 0;
}

// Values of an expression in thread `t`, with `reg` (if not empty) bound to `bound`.
std::set<std::int64_t> values(const Domains& d, int t, const Expr& e, const std::string& reg = {},
                              std::int64_t bound = 0) {
  switch (e.kind) {
    case Expr::Kind::Constant: return {e.value};
    case Expr::Kind::Register: {
      if (!reg.empty() && e.name == reg) return {bound};
      auto it = d.regs.find({t, e.name});
      return it == d.regs.end() ? std::set<std::int64_t>{0} : it->second;
    }
    case Expr::Kind::Location: return {};
    case Expr::Kind::Binary: {
      std::set<std::int64_t> out;
      for (std::int64_t a : values(d, t, e.operands[0], reg, bound))
        for (std::int64_t b : values(d, t, e.operands[1], reg, bound)) {
          if (out.size() >= kCap) return out;
          out.insert(apply(e.op, a, b));
        }
      return out;
    }
  }
  return {};
}

std::int64_t narrow(std::int64_t v, bool wide) { return wide ? v : static_cast<std::int32_t>(v); }

Domains analyse(const litmus::Test& test) {
  Domains d;
  for (const std::string& l : test.location_names()) d.locs[l].insert(0);
  const detail::TestFacts facts = detail::test_facts(test);
  for (const litmus::Thread& t : test.threads)
    for (const std::string& r : facts.registers[static_cast<std::size_t>(t.id)]) d.regs[{t.id, r}].insert(0);
  for (const litmus::InitEntry& e : test.init) {
    if (!e.value.is_constant()) continue;
    if (e.thread)
      d.regs[{*e.thread, e.name}] = {e.value.value};
    else
      d.locs[e.name] = {e.value.value};
  }
  do {
    d.changed = false;
    for (const litmus::Thread& t : test.threads) {
      for (const litmus::Instruction& ins : t.code) {
        bool wide = ins.annots.size == litmus::AccessSize::Double;
        switch (ins.kind) {
          case OpKind::Load: {
            std::set<std::int64_t> loaded = d.locs[ins.addr.base.name];
            for (std::int64_t v : loaded) d.add(d.regs[{t.id, ins.reg}], narrow(v, wide));
            break;
          }
          case OpKind::Store: {
            for (std::int64_t v : values(d, t.id, ins.value)) d.add(d.locs[ins.addr.base.name], narrow(v, wide));
            break;
          }
          case OpKind::Rmw: {
            std::set<std::int64_t> old = d.locs[ins.addr.base.name];
            for (std::int64_t o : old) {
              std::int64_t ov = narrow(o, wide);
              d.add(d.regs[{t.id, ins.reg}], ov);
              if (ins.annots.cas) {
                std::set<std::int64_t> expected = values(d, t.id, *ins.expected);
                if (!expected.count(ov)) continue;
              }
              for (std::int64_t v : values(d, t.id, ins.value, ins.annots.cas ? std::string{} : ins.reg, ov))
                d.add(d.locs[ins.addr.base.name], narrow(v, wide));
            }
            break;
          }
          case OpKind::Mov: {
            for (std::int64_t v : values(d, t.id, ins.value)) d.add(d.regs[{t.id, ins.reg}], v);
            break;
          }
          default: break;
        }
      }
    }
  } while (d.changed);
  return d;
}

bool expr_names_location(const Expr& e) {
  if (e.is_location()) return true;
  for (const Expr& o : e.operands)
    if (expr_names_location(o)) return true;
  return false;
}

bool prop_names_location_value(const litmus::Prop& p) {
  if (p.kind == litmus::Prop::Kind::Equals) return p.rhs.is_location();
  for (const litmus::Prop& o : p.operands)
    if (prop_names_location_value(o)) return true;
  return false;
}

// Work-group barriers (HSA PRM 9.3: every work-item of the work-group reaches each barrier).
// Each instance of a test with a barrier gets hardware work-groups of its own, whose idle
// threads join the barriers as many times as the test's threads of that work-group do
// (detail::barrier_counts): so the count must be the same for every thread of a work-group,
// and known before the run, with no branch around a barrier.
std::optional<std::string> barrier_unsupported_reason(const litmus::Test& test) {
  const std::vector<int> counts = detail::barrier_counts(test);
  const int n = static_cast<int>(test.threads.size());
  for (int t = 0; t < n; ++t) {
    const litmus::Thread& thread = test.threads[static_cast<std::size_t>(t)];
    const bool branches = std::any_of(thread.code.begin(), thread.code.end(),
                                      [](const litmus::Instruction& i) { return i.kind == OpKind::Branch; });
    if (counts[static_cast<std::size_t>(t)] > 0 && branches)
      return fmt::format(
          "P{}: a work-group barrier in a thread with branches is not supported (the harness must know "
          "how many barriers every thread of the work-group reaches)",
          thread.id);
    for (int u = 0; u < t; ++u)
      if (test.scopes.same_instance(t, u, litmus::Scope::WorkGroup) &&
          counts[static_cast<std::size_t>(t)] != counts[static_cast<std::size_t>(u)])
        return fmt::format(
            "P{} and P{} share a work-group but reach {} and {} barriers: every work-item of a "
            "work-group must reach each barrier (HSA PRM 9.3)",
            test.threads[static_cast<std::size_t>(u)].id, thread.id, counts[static_cast<std::size_t>(u)],
            counts[static_cast<std::size_t>(t)]);
  }
  return std::nullopt;
}

}  // namespace

std::vector<bool> detail::host_threads(const litmus::Test& test) {
  std::vector<bool> out;
  for (int t = 0; t < static_cast<int>(test.threads.size()); ++t)
    out.push_back(!test.scopes.same_instance(0, t, litmus::Scope::Agent));
  return out;
}

std::vector<int> detail::barrier_counts(const litmus::Test& test) {
  std::vector<int> out;
  for (const litmus::Thread& t : test.threads)
    out.push_back(static_cast<int>(std::count_if(
        t.code.begin(), t.code.end(), [](const litmus::Instruction& i) { return i.kind == OpKind::Barrier; })));
  return out;
}

std::optional<std::string> hardware_unsupported_reason(const litmus::Test& test, const HarnessOptions& options) {
  const int n = static_cast<int>(test.threads.size());
  if (!test.scopes.resolved()) return "the scope tree is not resolved";
  // Threads of another agent than P0's run on the host: no work-group barrier there, and no
  // group memory (a host thread's work-group is its own).
  const std::vector<bool> on_host = detail::host_threads(test);
  for (int t = 0; t < n; ++t) {
    if (!on_host[static_cast<std::size_t>(t)]) continue;
    const litmus::Thread& thread = test.threads[static_cast<std::size_t>(t)];
    for (std::size_t i = 0; i < thread.code.size(); ++i) {
      const litmus::Instruction& ins = thread.code[i];
      if (ins.kind == OpKind::Barrier)
        return fmt::format("P{}:{}: P{} runs on the host (another agent than P0's), which has no work-group barrier",
                           thread.id, i, thread.id);
      if (ins.is_memory_access() && ins.addr.base.is_location() &&
          test.segment_of(ins.addr.base.name) == litmus::Segment::Group)
        return fmt::format("P{}:{}: P{} runs on the host (another agent than P0's), which has no group memory",
                           thread.id, i, thread.id);
    }
  }
  if (test.filter) return "tests with a `filter` are not supported on hardware";
  for (const litmus::InitEntry& e : test.init)
    if (e.value.is_location())
      return fmt::format("{} holds the address of {}: addresses as values are not supported",
                         e.thread ? fmt::format("{}:{}", *e.thread, e.name) : e.name, e.value.name);
  if (prop_names_location_value(test.condition.prop)) return "the condition compares with an address";
  for (const litmus::ObservedRef& r : test.observed())
    if (!r.is_register() && test.segment_of(r.name) == litmus::Segment::Group)
      return fmt::format("the final value of group location {} is per work-group and cannot be observed", r.name);
  if (auto why = barrier_unsupported_reason(test)) return why;
  Domains d = analyse(test);
  for (const litmus::Thread& t : test.threads) {
    for (std::size_t i = 0; i < t.code.size(); ++i) {
      const litmus::Instruction& ins = t.code[i];
      std::string where = fmt::format("P{}:{}", t.id, i);
      if (expr_names_location(ins.value) || (ins.expected && expr_names_location(*ins.expected)) ||
          (ins.condition && expr_names_location(*ins.condition)))
        return fmt::format("{}: a location's address used as a value is not supported", where);
      if (!ins.is_memory_access()) continue;
      if (!ins.addr.base.is_location()) return fmt::format("{}: an address held in a register is not supported", where);
      if (ins.addr.offset) {
        if (ins.addr.offset->is_constant() && ins.addr.offset->value != 0)
          return fmt::format("{}: constant address offsets are not supported", where);
        if (ins.addr.offset->is_register()) {
          if (options.backend == HardwareBackend::Hip && !options.hip_builtins && !options.host_emulation)
            return fmt::format("{}: register address offsets are not supported in inline-assembly mode", where);
          const auto& offsets = d.regs[{t.id, ins.addr.offset->name}];
          if (offsets != std::set<std::int64_t>{0})
            return fmt::format("{}: the address offset {} may be non-zero", where, ins.addr.offset->name);
        }
      }
      if (ins.kind == OpKind::Rmw && !detail::rmw_shape(ins))
        return fmt::format("{}: no single atomic computes this read-modify-write", where);
    }
  }
  return std::nullopt;
}

std::uint64_t OutcomeEncoding::outcome_count() const {
  std::uint64_t n = 1;
  for (const auto& d : domains) n *= d.size() + 1;
  return n;
}

std::uint64_t OutcomeEncoding::encode(const std::vector<std::int64_t>& values) const {
  std::uint64_t index = 0;
  for (std::size_t i = domains.size(); i-- > 0;) {
    const auto& d = domains[i];
    auto it = std::find(d.begin(), d.end(), values[i]);
    index = index * (d.size() + 1) + static_cast<std::uint64_t>(it - d.begin());
  }
  return index;
}

std::optional<std::vector<std::int64_t>> OutcomeEncoding::decode(std::uint64_t index) const {
  std::vector<std::int64_t> values;
  for (const auto& d : domains) {
    std::uint64_t digit = index % (d.size() + 1);
    index /= d.size() + 1;
    if (digit == d.size()) return std::nullopt;
    values.push_back(d[digit]);
  }
  return values;
}

OutcomeEncoding outcome_encoding(const litmus::Test& test, std::uint64_t max_outcomes) {
  OutcomeEncoding enc;
  enc.observed = test.observed();
  Domains d = analyse(test);
  for (const litmus::ObservedRef& r : enc.observed) {
    const std::set<std::int64_t>& s = r.thread ? d.regs[{*r.thread, r.name}] : d.locs[r.name];
    enc.domains.emplace_back(s.begin(), s.end());
  }
  if (enc.outcome_count() > max_outcomes)
    throw HardwareUnsupported(fmt::format("the test has {} possible outcomes, more than the harness counts ({})",
                                          enc.outcome_count(), max_outcomes));
  return enc;
}

InstanceLayout instance_layout(const litmus::Test& test) {
  InstanceLayout layout;
  std::vector<std::uint32_t> wg_ids;
  std::vector<std::vector<std::uint32_t>> wave_ids;
  const std::vector<bool> on_host = detail::host_threads(test);
  for (int t = 0; t < static_cast<int>(test.threads.size()); ++t) {
    if (on_host[static_cast<std::size_t>(t)]) continue;  // not on the GPU
    std::uint32_t wg = test.scopes.instance(t, litmus::Scope::WorkGroup);
    std::uint32_t wave = test.scopes.instance(t, litmus::Scope::Wavefront);
    auto c = std::find(wg_ids.begin(), wg_ids.end(), wg) - wg_ids.begin();
    if (c == static_cast<std::ptrdiff_t>(wg_ids.size())) {
      wg_ids.push_back(wg);
      wave_ids.emplace_back();
      layout.workgroups.emplace_back();
    }
    auto& waves = wave_ids[static_cast<std::size_t>(c)];
    auto w = std::find(waves.begin(), waves.end(), wave) - waves.begin();
    if (w == static_cast<std::ptrdiff_t>(waves.size())) {
      waves.push_back(wave);
      layout.workgroups[static_cast<std::size_t>(c)].emplace_back();
    }
    layout.workgroups[static_cast<std::size_t>(c)][static_cast<std::size_t>(w)].push_back(t);
  }
  return layout;
}

}  // namespace hsalit::runner
