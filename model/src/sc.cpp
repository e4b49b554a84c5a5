// Sequentially consistent final states (hsalit/model/sc.hpp): a depth-first search over the
// states of the interleavings, each state (program counters, registers, memory cells) visited
// once. The program is compiled first to indices (registers, cells, expression nodes), so
// that a step reads no names.
#include "hsalit/model/sc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_set>

#include "interpreter.hpp"

namespace hsalit::model {

namespace {

using litmus::OpKind;

// An expression with its registers as indices into the state's register block.
struct Term {
  enum class Kind : std::uint8_t { Value, Register, Binary } kind = Kind::Value;
  Value value = 0;
  int reg = 0;
  litmus::BinaryOp op = litmus::BinaryOp::Add;
  int lhs = -1, rhs = -1;  // Binary: indices into the term table
};

// One instruction of a thread, compiled. Terms are -1 when absent.
struct Step {
  OpKind kind = OpKind::Load;
  int reg = -1;
  int base = -1, offset = -1;  // the address
  int value = -1;              // Store, Rmw, Mov
  int expected = -1;           // Rmw with cas
  int condition = -1;          // Branch (absent: always taken)
  std::size_t target = 0;      // Branch: the label's position
};

class ScSearch {
 public:
  ScSearch(const Program& p, std::span<const litmus::ObservedRef> columns, std::size_t max_states)
      : p_(p), max_states_(max_states) {
    const litmus::Test& test = p.test();
    if (p.unsupported()) {
      fail(*p.unsupported());
      return;
    }
    if (test.filter) {
      fail("a filter");
      return;
    }
    threads_ = test.threads.size();
    registers_of_.resize(threads_);
    code_.resize(threads_);
    for (std::size_t t = 0; t < threads_ && !result_.unknown_reason; ++t) compile_thread(t);
    for (const litmus::InitEntry& e : test.init)
      if (e.thread) register_index(static_cast<std::size_t>(*e.thread), e.name);
    build_cells();
    compile_columns(columns);
  }

  ScSearch(const ScSearch&) = delete;  // the visited set's functors point to it
  ScSearch& operator=(const ScSearch&) = delete;

  ScOutcomes run() {
    if (result_.unknown_reason) return std::move(result_);
    std::vector<Value> start(first_register_ + register_count_ + cells_.size(), 0);
    for (const litmus::InitEntry& e : p_.test().init)
      if (e.thread) start[register_slot(static_cast<std::size_t>(*e.thread), e.name)] = literal(e.value);
    for (std::size_t c = 0; c < cells_.size(); ++c)
      start[first_cell_ + c] = p_.locations()[static_cast<std::size_t>(cells_[c].first)].initial;
    for (std::size_t t = 0; t < threads_; ++t) run_local(t, start);
    width_ = start.size();
    visit(start);
    std::vector<Value> s(width_);
    while (!stack_.empty() && !result_.unknown_reason) {
      const std::size_t at = stack_.back() * width_;
      stack_.pop_back();
      std::copy(arena_.begin() + static_cast<std::ptrdiff_t>(at),
                arena_.begin() + static_cast<std::ptrdiff_t>(at + width_), s.begin());
      expand(s);
    }
    if (result_.unknown_reason) return std::move(result_);
    result_.outcomes.assign(found_.begin(), found_.end());
    result_.states = visited_.size();
    return std::move(result_);
  }

 private:
  // States are rows of `width_` values in `arena_`, known by their row number, so that a
  // visited state costs no allocation of its own.
  const Value* row(std::size_t state) const { return arena_.data() + state * width_; }
  struct RowHash {
    const ScSearch* search;
    std::size_t operator()(std::size_t state) const {
      const Value* v = search->row(state);
      std::size_t h = 1469598103934665603ull;
      for (std::size_t i = 0; i < search->width_; ++i) h = (h ^ static_cast<std::size_t>(v[i])) * 1099511628211ull;
      return h;
    }
  };
  struct RowEqual {
    const ScSearch* search;
    bool operator()(std::size_t a, std::size_t b) const {
      return std::equal(search->row(a), search->row(a) + search->width_, search->row(b));
    }
  };

  void fail(std::string reason) {
    if (!result_.unknown_reason) result_.unknown_reason = std::move(reason);
  }

  Value literal(const litmus::Expr& e) const {
    if (e.is_location()) {
      auto loc = p_.location_by_name(e.name);
      return loc ? p_.address_of(*loc) : 0;
    }
    return e.value;
  }

  int register_index(std::size_t thread, const std::string& name) {
    auto [it, added] = registers_of_[thread].try_emplace(name, register_count_);
    if (added) ++register_count_;
    return it->second;
  }
  std::size_t register_slot(std::size_t thread, const std::string& name) const {
    return first_register_ + static_cast<std::size_t>(registers_of_[thread].at(name));
  }

  int compile_term(std::size_t thread, const litmus::Expr& e) {
    Term term;
    switch (e.kind) {
      case litmus::Expr::Kind::Constant:
      case litmus::Expr::Kind::Location: term.value = literal(e); break;
      case litmus::Expr::Kind::Register:
        term.kind = Term::Kind::Register;
        term.reg = register_index(thread, e.name);
        break;
      case litmus::Expr::Kind::Binary:
        term.kind = Term::Kind::Binary;
        term.op = e.op;
        term.lhs = compile_term(thread, e.operands[0]);
        term.rhs = compile_term(thread, e.operands[1]);
        break;
    }
    terms_.push_back(term);
    return static_cast<int>(terms_.size()) - 1;
  }

  void compile_thread(std::size_t t) {
    const std::vector<litmus::Instruction>& code = p_.test().threads[t].code;
    std::map<std::string, std::size_t> labels;
    for (std::size_t i = 0; i < code.size(); ++i)
      if (code[i].kind == OpKind::Label) labels.emplace(code[i].label, i);
    for (std::size_t i = 0; i < code.size(); ++i) {
      const litmus::Instruction& ins = code[i];
      Step s;
      s.kind = ins.kind;
      if (!ins.reg.empty()) s.reg = register_index(t, ins.reg);
      if (ins.is_memory_access()) {
        s.base = compile_term(t, ins.addr.base);
        if (ins.addr.offset) s.offset = compile_term(t, *ins.addr.offset);
      }
      if (ins.kind == OpKind::Store || ins.kind == OpKind::Rmw || ins.kind == OpKind::Mov)
        s.value = compile_term(t, ins.value);
      if (ins.expected) s.expected = compile_term(t, *ins.expected);
      if (ins.condition) s.condition = compile_term(t, *ins.condition);
      if (ins.kind == OpKind::Branch) {
        auto it = labels.find(ins.label);
        s.target = it == labels.end() ? code.size() : it->second;
        if (s.target <= i) fail("a backward branch");
      }
      if (ins.kind == OpKind::Barrier) fail("a barrier");
      code_[t].push_back(s);
    }
  }

  // One cell per location and copy that a thread or a column can touch (Program::copy_of).
  void build_cells() {
    first_register_ = threads_;
    const std::size_t locations = p_.locations().size();
    cell_of_.assign(threads_, std::vector<int>(locations, -1));
    std::map<std::pair<int, std::uint32_t>, int> index;
    auto cell = [&](int location, std::uint32_t copy) {
      auto [it, added] = index.try_emplace({location, copy}, static_cast<int>(cells_.size()));
      if (added) cells_.emplace_back(location, copy);
      return it->second;
    };
    for (std::size_t t = 0; t < threads_; ++t)
      for (std::size_t l = 0; l < locations; ++l)
        cell_of_[t][l] = cell(static_cast<int>(l), p_.copy_of(static_cast<int>(l), static_cast<int>(t)));
    observed_cell_.resize(locations);
    for (std::size_t l = 0; l < locations; ++l)
      observed_cell_[l] = cell(static_cast<int>(l), p_.observed_copy(static_cast<int>(l)));
  }

  void compile_columns(std::span<const litmus::ObservedRef> columns) {
    first_cell_ = first_register_ + static_cast<std::size_t>(register_count_);
    for (const litmus::ObservedRef& r : columns) {
      if (r.thread) {
        const auto& regs = registers_of_[static_cast<std::size_t>(*r.thread)];
        auto it = regs.find(r.name);
        // A register no instruction or initialiser names stays 0, as in the engines.
        columns_.push_back(it == regs.end() ? -1 : static_cast<int>(first_register_) + it->second);
        continue;
      }
      auto loc = p_.location_by_name(r.name);
      columns_.push_back(loc ? static_cast<int>(first_cell_) + observed_cell_[static_cast<std::size_t>(*loc)] : -1);
    }
  }

  Value eval(int term, const std::vector<Value>& s) const {
    const Term& e = terms_[static_cast<std::size_t>(term)];
    switch (e.kind) {
      case Term::Kind::Value: return e.value;
      case Term::Kind::Register: return s[first_register_ + static_cast<std::size_t>(e.reg)];
      case Term::Kind::Binary: return detail::apply_binary(e.op, eval(e.lhs, s), eval(e.rhs, s));
    }
    return 0;
  }

  // The state slot of the cell an access of thread t touches, or none.
  std::optional<std::size_t> cell_slot(std::size_t t, const Step& step, const std::vector<Value>& s) const {
    Value address = eval(step.base, s);
    if (step.offset >= 0) address = detail::apply_binary(litmus::BinaryOp::Add, address, eval(step.offset, s));
    auto loc = p_.location_by_address(address);
    if (!loc) return std::nullopt;
    return first_cell_ + static_cast<std::size_t>(cell_of_[t][static_cast<std::size_t>(*loc)]);
  }

  // Runs thread t's thread-local instructions (mov, branch, label, fence: SC needs no
  // fence) up to its next memory access or its end.
  void run_local(std::size_t t, std::vector<Value>& s) const {
    const std::vector<Step>& code = code_[t];
    auto pc = static_cast<std::size_t>(s[t]);
    while (pc < code.size()) {
      const Step& step = code[pc];
      if (step.kind == OpKind::Mov) {
        s[first_register_ + static_cast<std::size_t>(step.reg)] = eval(step.value, s);
        ++pc;
      } else if (step.kind == OpKind::Branch) {
        pc = step.condition < 0 || eval(step.condition, s) != 0 ? step.target : pc + 1;
      } else if (step.kind == OpKind::Label || step.kind == OpKind::Fence) {
        ++pc;
      } else {
        break;
      }
    }
    s[t] = static_cast<Value>(pc);
  }

  // Adds `s` to the states to expand unless it was visited.
  void visit(const std::vector<Value>& s) {
    if (visited_.size() >= max_states_) {
      fail(fmt::format("more than {} sequentially consistent states", max_states_));
      return;
    }
    const std::size_t state = rows_;
    arena_.insert(arena_.end(), s.begin(), s.end());
    ++rows_;
    if (visited_.insert(state).second) {
      stack_.push_back(state);
    } else {
      arena_.resize(arena_.size() - width_);
      --rows_;
    }
  }

  // Every successor of s: one memory access of one unfinished thread; a final state when
  // every thread has finished.
  void expand(const std::vector<Value>& s) {
    bool done = true;
    for (std::size_t t = 0; t < threads_ && !result_.unknown_reason; ++t) {
      const auto pc = static_cast<std::size_t>(s[t]);
      if (pc >= code_[t].size()) continue;
      done = false;
      const Step& step = code_[t][pc];
      const std::optional<std::size_t> cell = cell_slot(t, step, s);
      if (!cell) {
        fail("an access to an address that is no location");
        return;
      }
      std::vector<Value>& next = next_;
      next = s;
      Value* reg = step.reg >= 0 ? &next[first_register_ + static_cast<std::size_t>(step.reg)] : nullptr;
      if (step.kind == OpKind::Load) {
        *reg = s[*cell];
      } else if (step.kind == OpKind::Store) {
        next[*cell] = eval(step.value, s);
      } else {  // Rmw: reads and writes at once; the operation may read the value read
        const Value old = s[*cell];
        const bool success = step.expected < 0 || eval(step.expected, s) == old;
        *reg = old;
        if (success) next[*cell] = eval(step.value, next);
      }
      next[t] = static_cast<Value>(pc + 1);
      run_local(t, next);
      visit(next);
    }
    if (done) found_.insert(outcome(s));
  }

  Outcome outcome(const std::vector<Value>& s) const {
    Outcome o;
    o.values.reserve(columns_.size());
    for (int c : columns_) o.values.push_back(c < 0 ? 0 : s[static_cast<std::size_t>(c)]);
    return o;
  }

  const Program& p_;
  const std::size_t max_states_;
  std::size_t threads_ = 0;
  std::vector<Term> terms_;
  std::vector<std::vector<Step>> code_;
  std::vector<std::map<std::string, int>> registers_of_;
  int register_count_ = 0;
  std::vector<std::pair<int, std::uint32_t>> cells_;  // (location, copy)
  std::vector<std::vector<int>> cell_of_;             // per thread and location
  std::vector<int> observed_cell_;                    // per location
  std::vector<int> columns_;                          // state slot per column, -1: always 0
  // A state: each thread's pc, then the registers, then the cells.
  std::size_t first_register_ = 0, first_cell_ = 0;
  std::size_t width_ = 0;
  std::vector<Value> arena_;
  std::size_t rows_ = 0;
  std::unordered_set<std::size_t, RowHash, RowEqual> visited_{64, RowHash{this}, RowEqual{this}};
  std::vector<std::size_t> stack_;  // states to expand
  std::vector<Value> next_;         // the successor being built
  std::set<Outcome> found_;
  ScOutcomes result_;
};

}  // namespace

ScOutcomes sc_outcomes(const Program& p, std::span<const litmus::ObservedRef> columns, std::size_t max_states) {
  return ScSearch(p, columns, max_states).run();
}

}  // namespace hsalit::model
