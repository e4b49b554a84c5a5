// The outcomes of a litmus test under sequential consistency: every interleaving of the
// threads' memory operations, each operation atomic and seeing the latest write. Written
// independently of the model's engines, as the reference of the property "an HSA-race-free
// program without relaxed atomics appears sequentially consistent" (HSA SysArch 3.2, 3.12).
//
// Forward branches follow the values read; an RMW reads and writes in one step; fences do
// nothing (SC needs none); a barrier is an execution barrier of its work-group: no thread of
// the work-group passes it before all have reached it. Group-segment locations have one
// copy per work-group, and a final condition reads the copy the model reports
// (model::Program::observed_copy).
#pragma once

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/model/program.hpp"

namespace hsalit::testing {

class ScInterleavings {
 public:
  using Value = model::Value;

  // `refs`: what an outcome reports, in order (model::CheckResult::evaluated).
  ScInterleavings(const litmus::Test& test, std::vector<litmus::ObservedRef> refs)
      : test_(test), program_(test), refs_(std::move(refs)) {
    const int threads = static_cast<int>(test.threads.size());
    registers_.resize(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t) {
      auto& regs = registers_[static_cast<std::size_t>(t)];
      for (const litmus::InitEntry& e : test.init)
        if (e.thread == t) regs.emplace(e.name, 0);
      for (const litmus::Instruction& ins : test.threads[static_cast<std::size_t>(t)].code)
        if (!ins.reg.empty()) regs.emplace(ins.reg, 0);
      for (const litmus::ObservedRef& r : refs_)
        if (r.thread == t) regs.emplace(r.name, 0);
      for (auto& [name, index] : regs) index = register_count_++;
    }
    wg_.resize(static_cast<std::size_t>(threads));
    for (int t = 0; t < threads; ++t)
      wg_[static_cast<std::size_t>(t)] = test.scopes.instance(t, litmus::Scope::WorkGroup);
  }

  // Every SC outcome. Throws std::runtime_error on what the enumerator does not handle
  // (an address that is no location).
  std::set<model::Outcome> outcomes() {
    State s;
    s.pc.assign(test_.threads.size(), 0);
    s.regs.assign(static_cast<std::size_t>(register_count_), 0);
    for (const litmus::InitEntry& e : test_.init)
      if (e.thread) s.regs[static_cast<std::size_t>(reg_index(*e.thread, e.name))] = literal(e.value);
    for (std::size_t t = 0; t < s.pc.size(); ++t) run_local(static_cast<int>(t), s);
    explore(s);
    return result_;
  }

  std::size_t states_visited() const { return visited_.size(); }

 private:
  struct State {
    std::vector<std::size_t> pc;
    std::vector<Value> regs;
    std::map<std::pair<int, std::uint32_t>, Value> memory;  // (location, copy) -> value
  };

  struct StateHash {
    std::size_t operator()(const std::vector<Value>& v) const {
      std::size_t h = 1469598103934665603ull;
      for (Value x : v) h = (h ^ static_cast<std::size_t>(x)) * 1099511628211ull;
      return h;
    }
  };

  const std::vector<litmus::Instruction>& code(int t) const { return test_.threads[static_cast<std::size_t>(t)].code; }

  int reg_index(int t, const std::string& name) const { return registers_[static_cast<std::size_t>(t)].at(name); }

  Value literal(const litmus::Expr& e) const {
    if (e.is_location()) {
      auto loc = program_.location_by_name(e.name);
      return loc ? program_.address_of(*loc) : 0;
    }
    return e.value;
  }

  static Value apply(litmus::BinaryOp op, Value a, Value b) {
    auto ua = static_cast<std::uint64_t>(a), ub = static_cast<std::uint64_t>(b);
    switch (op) {
      case litmus::BinaryOp::Add: return static_cast<Value>(ua + ub);
      case litmus::BinaryOp::Sub: return static_cast<Value>(ua - ub);
      case litmus::BinaryOp::Xor: return static_cast<Value>(ua ^ ub);
      case litmus::BinaryOp::And: return static_cast<Value>(ua & ub);
      case litmus::BinaryOp::Or: return static_cast<Value>(ua | ub);
      case litmus::BinaryOp::Eq: return a == b ? 1 : 0;
      case litmus::BinaryOp::Ne: return a != b ? 1 : 0;
    }
    return 0;
  }

  Value eval(int t, const litmus::Expr& e, const State& s) const {
    switch (e.kind) {
      case litmus::Expr::Kind::Constant:
      case litmus::Expr::Kind::Location: return literal(e);
      case litmus::Expr::Kind::Register: return s.regs[static_cast<std::size_t>(reg_index(t, e.name))];
      case litmus::Expr::Kind::Binary: return apply(e.op, eval(t, e.operands[0], s), eval(t, e.operands[1], s));
    }
    return 0;
  }

  std::pair<int, std::uint32_t> cell(int t, const litmus::Address& a, const State& s) const {
    Value address = eval(t, a.base, s);
    if (a.offset) address = apply(litmus::BinaryOp::Add, address, eval(t, *a.offset, s));
    auto loc = program_.location_by_address(address);
    if (!loc) throw std::runtime_error("SC enumerator: an access to an address that is no location");
    return {*loc, program_.copy_of(*loc, t)};
  }

  Value load(const State& s, std::pair<int, std::uint32_t> c) const {
    auto it = s.memory.find(c);
    return it != s.memory.end() ? it->second : program_.locations()[static_cast<std::size_t>(c.first)].initial;
  }

  std::size_t label_index(int t, const std::string& label) const {
    const auto& c = code(t);
    for (std::size_t i = 0; i < c.size(); ++i)
      if (c[i].kind == litmus::OpKind::Label && c[i].label == label) return i;
    return c.size();
  }

  // Runs thread t's thread-local instructions (mov, branch, label, fence) up to its next
  // memory access, barrier or end.
  void run_local(int t, State& s) const {
    std::size_t& pc = s.pc[static_cast<std::size_t>(t)];
    const auto& c = code(t);
    while (pc < c.size()) {
      const litmus::Instruction& ins = c[pc];
      switch (ins.kind) {
        case litmus::OpKind::Mov:
          s.regs[static_cast<std::size_t>(reg_index(t, ins.reg))] = eval(t, ins.value, s);
          ++pc;
          break;
        case litmus::OpKind::Branch:
          if (!ins.condition || eval(t, *ins.condition, s) != 0)
            pc = label_index(t, ins.label);
          else
            ++pc;
          break;
        case litmus::OpKind::Label:
        case litmus::OpKind::Fence: ++pc; break;
        default: return;
      }
    }
  }

  bool at_barrier(int t, const State& s) const {
    std::size_t pc = s.pc[static_cast<std::size_t>(t)];
    return pc < code(t).size() && code(t)[pc].kind == litmus::OpKind::Barrier;
  }

  std::vector<Value> key(const State& s) const {
    std::vector<Value> k(s.pc.begin(), s.pc.end());
    k.insert(k.end(), s.regs.begin(), s.regs.end());
    for (const auto& [c, v] : s.memory) {
      k.push_back(c.first);
      k.push_back(c.second);
      k.push_back(v);
    }
    return k;
  }

  void explore(const State& s) {
    if (!visited_.insert(key(s)).second) return;
    const int threads = static_cast<int>(s.pc.size());
    bool done = true;
    for (int t = 0; t < threads; ++t) {
      const std::size_t pc = s.pc[static_cast<std::size_t>(t)];
      if (pc >= code(t).size()) continue;
      done = false;
      const litmus::Instruction& ins = code(t)[pc];
      if (ins.kind == litmus::OpKind::Barrier) {
        // The lowest-numbered member of the work-group releases it when all have arrived.
        bool all = true, lowest = true;
        for (int u = 0; u < threads; ++u) {
          if (wg_[static_cast<std::size_t>(u)] != wg_[static_cast<std::size_t>(t)]) continue;
          all = all && at_barrier(u, s);
          lowest = lowest && u >= t;
        }
        if (!all || !lowest) continue;
        State next = s;
        for (int u = 0; u < threads; ++u)
          if (wg_[static_cast<std::size_t>(u)] == wg_[static_cast<std::size_t>(t)]) {
            ++next.pc[static_cast<std::size_t>(u)];
            run_local(u, next);
          }
        explore(next);
        continue;
      }
      State next = s;
      const auto c = cell(t, ins.addr, s);
      if (ins.kind == litmus::OpKind::Load) {
        next.regs[static_cast<std::size_t>(reg_index(t, ins.reg))] = load(s, c);
      } else if (ins.kind == litmus::OpKind::Store) {
        next.memory[c] = eval(t, ins.value, s);
      } else {  // RMW: read, then write the operation (which may use the value read)
        const Value old = load(s, c);
        const bool success = !ins.expected || eval(t, *ins.expected, s) == old;
        next.regs[static_cast<std::size_t>(reg_index(t, ins.reg))] = old;
        if (success) next.memory[c] = eval(t, ins.value, next);
      }
      ++next.pc[static_cast<std::size_t>(t)];
      run_local(t, next);
      explore(next);
    }
    if (done) result_.insert(outcome(s));
  }

  model::Outcome outcome(const State& s) const {
    model::Outcome o;
    for (const litmus::ObservedRef& r : refs_) {
      if (r.thread) {
        o.values.push_back(s.regs[static_cast<std::size_t>(reg_index(*r.thread, r.name))]);
        continue;
      }
      auto loc = program_.location_by_name(r.name);
      o.values.push_back(loc ? load(s, {*loc, program_.observed_copy(*loc)}) : 0);
    }
    return o;
  }

  const litmus::Test& test_;
  model::Program program_;
  std::vector<litmus::ObservedRef> refs_;
  std::vector<std::map<std::string, int>> registers_;  // per thread: name -> index
  int register_count_ = 0;
  std::vector<std::uint32_t> wg_;
  std::unordered_set<std::vector<Value>, StateHash> visited_;
  std::set<model::Outcome> result_;
};

}  // namespace hsalit::testing
