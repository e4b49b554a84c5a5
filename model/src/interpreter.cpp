#include "interpreter.hpp"

#include <algorithm>

namespace hsalit::model::detail {

using litmus::Expr;
using litmus::Instruction;
using litmus::OpKind;

Value apply_binary(litmus::BinaryOp op, Value a, Value b) {
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

namespace {

struct Tainted {
  Value value = 0;
  std::vector<int> deps;  // sorted read events
};

void merge_into(std::vector<int>& into, const std::vector<int>& from) {
  std::vector<int> out;
  std::set_union(into.begin(), into.end(), from.begin(), from.end(), std::back_inserter(out));
  into = std::move(out);
}

class ThreadInterpreter {
 public:
  ThreadInterpreter(const Program& p, int thread, const ValueDomains& domains, std::size_t limit,
                    std::vector<ThreadRun>& out)
      : p_(p),
        thread_(p.test().threads[static_cast<std::size_t>(thread)]),
        domains_(domains),
        limit_(limit),
        out_(out) {
    for (const litmus::InitEntry& e : p.test().init)
      if (e.thread == thread) {
        Value v = e.value.value;
        if (e.value.is_location()) {
          auto loc = p.location_by_name(e.value.name);
          v = loc ? p.address_of(*loc) : 0;
        }
        initial_[e.name] = {v, {}};
      }
  }

  bool run() {
    State s;
    s.regs = initial_;
    step(0, std::move(s));
    return !overflow_;
  }

 private:
  struct State {
    std::map<std::string, Tainted> regs;
    std::vector<int> ctrl;  // reads that control whether we got here
    ThreadRun run;
  };

  Tainted eval(const Expr& e, const State& s) const {
    switch (e.kind) {
      case Expr::Kind::Constant: return {e.value, {}};
      case Expr::Kind::Register: {
        auto it = s.regs.find(e.name);
        return it == s.regs.end() ? Tainted{} : it->second;
      }
      case Expr::Kind::Location: {
        auto loc = p_.location_by_name(e.name);
        return {loc ? p_.address_of(*loc) : 0, {}};
      }
      case Expr::Kind::Binary: {
        Tainted a = eval(e.operands[0], s), b = eval(e.operands[1], s);
        merge_into(a.deps, b.deps);
        a.value = apply_binary(e.op, a.value, b.value);
        return a;
      }
    }
    return {};
  }

  // The cell an access touches; an address that is no location gives location -1.
  Cell resolve(const litmus::Address& a, const State& s, std::vector<int>& deps) const {
    Tainted base = eval(a.base, s);
    Value address = base.value;
    merge_into(deps, base.deps);
    if (a.offset) {
      Tainted off = eval(*a.offset, s);
      merge_into(deps, off.deps);
      address = apply_binary(litmus::BinaryOp::Add, address, off.value);
    }
    auto loc = p_.location_by_address(address);
    if (!loc) return {};
    return {*loc, p_.copy_of(*loc, thread_.id)};
  }

  void finish(State& s) {
    if (out_.size() >= limit_) {
      overflow_ = true;
      return;
    }
    for (auto& [name, t] : s.regs) s.run.registers[name] = t.value;
    out_.push_back(std::move(s.run));
  }

  void step(std::size_t pc, State s) {
    for (; pc < thread_.code.size() && !overflow_; ++pc) {
      const Instruction& ins = thread_.code[pc];
      const std::vector<int>& ids = p_.events_of_instruction(thread_.id)[pc];
      switch (ins.kind) {
        case OpKind::Label:
        case OpKind::Fence:
          if (ins.kind == OpKind::Fence) s.run.records.push_back({ids[0], {}, 0, 0, false, s.ctrl});
          break;
        case OpKind::Mov: s.regs[ins.reg] = eval(ins.value, s); break;
        case OpKind::Branch: {
          if (!ins.condition) {
            pc = label_index(ins.label);
            break;
          }
          Tainted c = eval(*ins.condition, s);
          merge_into(s.ctrl, c.deps);
          if (c.value != 0) pc = label_index(ins.label);
          break;
        }
        case OpKind::Store: {
          EventRecord r{ids[0], {}, 0, 0, true, s.ctrl};
          r.cell = resolve(ins.addr, s, r.deps);
          Tainted v = eval(ins.value, s);
          merge_into(r.deps, v.deps);
          r.written = v.value;
          s.run.invalid_address |= r.cell.location < 0;
          s.run.records.push_back(std::move(r));
          break;
        }
        case OpKind::Barrier: {
          // Arrive: a relaxed increment of the barrier counter; depart: a relaxed load that
          // returns the number of participants (HSA PRM 9.3). Both are forks over the counter.
          const StaticEvent& depart = p_.events()[static_cast<std::size_t>(ids[1])];
          Cell c{*depart.location, p_.copy_of(*depart.location, thread_.id)};
          for (Value v : domains_[static_cast<std::size_t>(c.location)]) {
            State next = s;
            next.run.records.push_back({ids[0], c, v, v + 1, true, s.ctrl});
            next.run.records.push_back({ids[1], c, depart.barrier_participants, 0, false, s.ctrl});
            step(pc + 1, std::move(next));
          }
          return;
        }
        case OpKind::Load:
        case OpKind::Rmw: {
          std::vector<int> addr_deps = s.ctrl;
          Cell c = resolve(ins.addr, s, addr_deps);
          const std::set<Value> zero = {0};
          const std::set<Value>& values = c.location < 0 ? zero : domains_[static_cast<std::size_t>(c.location)];
          for (Value v : values) {
            State next = s;
            next.run.invalid_address |= c.location < 0;
            EventRecord r{ids[0], c, v, 0, false, addr_deps};
            next.regs[ins.reg] = {v, {ids[0]}};
            if (ins.kind == OpKind::Rmw) {
              bool success = true;
              if (ins.expected) {
                Tainted expected = eval(*ins.expected, s);
                merge_into(r.deps, expected.deps);
                success = expected.value == v;
              }
              Tainted nv = eval(ins.value, next);  // the operation may read the value just read
              std::vector<int> data = nv.deps;
              data.erase(std::remove(data.begin(), data.end(), ids[0]), data.end());
              merge_into(r.deps, data);
              r.writes = success;
              r.written = success ? nv.value : 0;
            }
            next.run.records.push_back(std::move(r));
            step(pc + 1, std::move(next));
          }
          return;
        }
      }
    }
    if (!overflow_) finish(s);
  }

  std::size_t label_index(const std::string& label) const {
    for (std::size_t i = 0; i < thread_.code.size(); ++i)
      if (thread_.code[i].kind == OpKind::Label && thread_.code[i].label == label) return i;
    return thread_.code.size();
  }

  const Program& p_;
  const litmus::Thread& thread_;
  const ValueDomains& domains_;
  std::size_t limit_;
  std::vector<ThreadRun>& out_;
  std::map<std::string, Tainted> initial_;
  bool overflow_ = false;
};

}  // namespace

bool enumerate_runs(const Program& p, int thread, const ValueDomains& domains, std::size_t limit,
                    std::vector<ThreadRun>& out) {
  return ThreadInterpreter(p, thread, domains, limit, out).run();
}

}  // namespace hsalit::model::detail
