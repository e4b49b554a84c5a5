// The table's code beside llc's, compared semantically (llc.hpp, docs/llvm-ir.md).
//
// Both programs are walked with the target's model of its wait counters (counter_model,
// target.hpp): each memory instruction increments the counters it uses, each wait bounds them. Between two
// consecutive litmus accesses (a "gap"), the comparison looks at
//   - the cache invalidates, writebacks and barriers of the gap, matched by mnemonic, with
//     their cache bits and the counters known to be zero when each is issued;
//   - the counters known to be zero when the next access is issued (or at the end);
// so a wait with nothing outstanding equals no wait, and one merged wait equals two.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "hsalit/codegen/llc.hpp"
#include "hsalit/litmus/printer.hpp"

namespace hsalit::codegen {

int Comparison::difference_count() const {
  int n = 0;
  for (const ThreadComparison& t : threads)
    for (const OperationComparison& o : t.operations) n += static_cast<int>(o.differences.size());
  return n;
}

int Comparison::problem_count() const {
  int n = 0;
  for (const ThreadComparison& t : threads) n += static_cast<int>(t.problems.size());
  return n;
}

namespace {

using Zeros = std::set<std::string>;

// An instruction the report lists under a litmus instruction: its memory access and the
// memory-model code around it.
bool owned(const Instruction& ins) {
  return ins.origin.instruction >= 0 &&
         (ins.is_memory() || ins.kind() == InstrClass::Wait || ins.kind() == InstrClass::CacheInvalidate ||
          ins.kind() == InstrClass::CacheWriteback || ins.kind() == InstrClass::Barrier);
}

bool is_listed(const litmus::Instruction& ins) {
  return ins.is_memory_access() || ins.kind == litmus::OpKind::Fence || ins.kind == litmus::OpKind::Barrier;
}

// One entry per litmus instruction with memory-model code.
std::map<int, OperationComparison> operations(const litmus::Test& test, const litmus::Thread& t, bool generic) {
  std::map<int, OperationComparison> ops;
  for (std::size_t i = 0; i < t.code.size(); ++i) {
    const litmus::Instruction& ins = t.code[i];
    if (!is_listed(ins)) continue;
    OperationComparison o;
    o.thread = t.id;
    o.instruction = static_cast<int>(i);
    o.litmus = litmus::print_instruction(ins);
    o.operation = ins.kind == litmus::OpKind::Barrier ? "barrier" : memory_operation(test, ins, generic).describe();
    o.tied = !ins.is_memory_access();
    ops[o.instruction] = o;
  }
  return ops;
}

void mark_unreachable(std::map<int, OperationComparison>& ops, const LlcThread& lt) {
  for (int u : lt.unreachable)
    if (auto it = ops.find(u); it != ops.end()) it->second.unreachable = true;
}

void fill_llc(std::map<int, OperationComparison>& ops, const std::vector<Instruction>& lcode) {
  for (const Instruction& ins : lcode) {
    auto it = ops.find(ins.origin.instruction);
    if (!owned(ins) || it == ops.end()) continue;
    it->second.llc.push_back(ins);
    if (ins.origin.role == "access") it->second.tied = true;
  }
}

// The counter state before each instruction of a program, and which wait made each counter
// zero (the index of the wait, for attributing a difference to an instruction).
struct Walk {
  std::vector<Zeros> zero_before;                      // per instruction
  std::vector<std::map<std::string, int>> drained_by;  // per instruction: counter -> wait index
  Zeros zero_at_end;
  std::map<std::string, int> drained_at_end;
};

Walk walk(const std::vector<Instruction>& code, const CounterModel& m, std::size_t from,
          const std::vector<int>& unreachable = {}) {
  Walk w;
  std::map<std::string, int> outstanding;
  std::map<std::string, int> drained;
  for (const std::string& n : m.names) outstanding[n] = 0;
  auto zeros = [&] {
    Zeros z;
    for (const auto& [n, v] : outstanding)
      if (v == 0) z.insert(n);
    return z;
  };
  for (std::size_t i = 0; i < code.size(); ++i) {
    w.zero_before.push_back(zeros());
    w.drained_by.push_back(drained);
    // The prologue, and code no path reaches, issue nothing.
    if (i < from || std::count(unreachable.begin(), unreachable.end(), code[i].origin.instruction)) continue;
    for (const std::string& c : m.issued(code[i])) {
      ++outstanding[c];
      drained.erase(c);
    }
    for (const auto& [c, bound] : m.waits(code[i])) {
      auto it = outstanding.find(c);
      if (it == outstanding.end()) continue;
      if (it->second > bound) {
        it->second = bound;
        if (bound == 0) drained[c] = static_cast<int>(i);
      }
    }
  }
  w.zero_at_end = zeros();
  w.drained_at_end = drained;
  return w;
}

std::string join(const Zeros& z) {
  std::string s;
  for (const std::string& c : z) s += (s.empty() ? "" : ", ") + c;
  return s;
}

std::string bits_text(const CachePolicy& p) {
  Instruction i;
  i.mnemonic = "";
  i.policy = p;
  std::string s = print(i);
  return s.empty() ? "none" : s.substr(1);
}

// One program's view of a gap: its cache and barrier instructions with the zero counters
// before each, and the zero counters at its end.
struct GapView {
  std::vector<int> points;  // indices of cache/barrier instructions
  int end = -1;             // index of the next access, or code.size()
};

GapView gap_view(const std::vector<Instruction>& code, int from, int to) {
  GapView g;
  for (int i = from + 1; i < to; ++i) {
    InstrClass k = code[static_cast<std::size_t>(i)].kind();
    if (k == InstrClass::CacheInvalidate || k == InstrClass::CacheWriteback || k == InstrClass::Barrier)
      g.points.push_back(i);
  }
  g.end = to;
  return g;
}

// Longest common subsequence of two mnemonic lists: pairs of matched indices.
std::vector<std::pair<int, int>> match_points(const std::vector<Instruction>& a, const std::vector<int>& pa,
                                              const std::vector<Instruction>& b, const std::vector<int>& pb) {
  const std::size_t n = pa.size(), m = pb.size();
  std::vector<std::vector<int>> L(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      L[i][j] = a[static_cast<std::size_t>(pa[i])].mnemonic == b[static_cast<std::size_t>(pb[j])].mnemonic
                    ? L[i + 1][j + 1] + 1
                    : std::max(L[i + 1][j], L[i][j + 1]);
  std::vector<std::pair<int, int>> out;
  std::size_t i = 0, j = 0;
  while (i < n && j < m) {
    if (a[static_cast<std::size_t>(pa[i])].mnemonic == b[static_cast<std::size_t>(pb[j])].mnemonic) {
      out.emplace_back(static_cast<int>(i), static_cast<int>(j));
      ++i;
      ++j;
    } else if (L[i + 1][j] >= L[i][j + 1]) {
      ++i;
    } else {
      ++j;
    }
  }
  return out;
}

class Comparer {
 public:
  Comparer(const litmus::Test& test, const CompiledTest& table, const LlcResult& llc, const Target& target)
      : test_(test), table_(table), llc_(llc), model_(counter_model(target)) {}

  Comparison run() {
    Comparison c{test_.name, table_.target, table_.table, llc_.llc, {}};
    for (const LlcThread& lt : llc_.threads) c.threads.push_back(thread(lt));
    return c;
  }

 private:
  ThreadComparison thread(const LlcThread& lt) {
    ThreadComparison out;
    out.thread = lt.thread;
    reported_.clear();
    out.problems = lt.problems;
    const litmus::Thread& t = test_.threads[static_cast<std::size_t>(lt.thread)];
    const CompiledThread* ct = nullptr;
    for (const CompiledThread& x : table_.threads)
      if (x.thread == lt.thread) ct = &x;
    if (!ct) {
      out.problems.push_back(fmt::format("P{}: the table compilation has no such thread", lt.thread));
      return out;
    }
    const std::vector<Instruction>& tcode = ct->code;
    const std::vector<Instruction>& lcode = lt.code;

    // One entry per litmus instruction with memory-model code.
    std::map<int, OperationComparison> ops = operations(test_, t, table_.generic);
    mark_unreachable(ops, lt);
    for (const Instruction& ins : tcode)
      if (owned(ins) && ops.count(ins.origin.instruction)) {
        OperationComparison& o = ops[ins.origin.instruction];
        o.table.push_back(ins);
        if (!ins.origin.row.empty()) o.row = ins.origin.row;
      }
    fill_llc(ops, lcode);

    // The table's access for each litmus access, and llc's where tied.
    std::map<int, int> taccess, laccess;
    for (std::size_t i = 0; i < tcode.size(); ++i)
      if (tcode[i].origin.role == "access" && tcode[i].is_memory())
        taccess[tcode[i].origin.instruction] = static_cast<int>(i);
    for (std::size_t i = 0; i < lcode.size(); ++i)
      if (lcode[i].origin.role == "access") laccess[lcode[i].origin.instruction] = static_cast<int>(i);

    // Anchors: litmus accesses tied on both sides, in program order.
    std::vector<int> anchors;
    for (const auto& [lit, idx] : laccess)
      if (taccess.count(lit)) anchors.push_back(lit);
    std::sort(anchors.begin(), anchors.end());

    // Where each program's body starts: after the table's prologue; llc's body is all body.
    std::size_t tbody = 0;
    while (tbody < tcode.size() && tcode[tbody].origin.role == "prologue") ++tbody;
    Walk tw = walk(tcode, model_, tbody, lt.unreachable), lw = walk(lcode, model_, 0);

    auto note = [&](int lit, std::string text) {
      auto it = ops.find(lit);
      if (it == ops.end()) {
        out.problems.push_back(fmt::format("P{}:{}: {}", t.id, lit, text));
        return;
      }
      it->second.differences.push_back(std::move(text));
    };

    // The accesses themselves.
    for (int lit : anchors) {
      const Instruction& a = tcode[static_cast<std::size_t>(taccess[lit])];
      const Instruction& b = lcode[static_cast<std::size_t>(laccess[lit])];
      if (a.mnemonic != b.mnemonic)
        note(lit, fmt::format("different instruction: table {}, llc {}", a.mnemonic, b.mnemonic));
      if (!(a.policy == b.policy))
        note(lit, fmt::format("different cache bits on the access: table {}, llc {}", bits_text(a.policy),
                              bits_text(b.policy)));
    }

    // The gaps.
    std::vector<int> lits = {-1};
    lits.insert(lits.end(), anchors.begin(), anchors.end());
    lits.push_back(static_cast<int>(t.code.size()));
    int tprologue_end = static_cast<int>(tbody) - 1;
    for (std::size_t g = 0; g + 1 < lits.size(); ++g) {
      int from_lit = lits[g], to_lit = lits[g + 1];
      int tf = from_lit < 0 ? tprologue_end : taccess[from_lit];
      int tt = to_lit >= static_cast<int>(t.code.size()) ? static_cast<int>(tcode.size()) : taccess[to_lit];
      int lf = from_lit < 0 ? -1 : laccess[from_lit];
      int lt2 = to_lit >= static_cast<int>(t.code.size()) ? static_cast<int>(lcode.size()) : laccess[to_lit];
      // Without an access after it, the table's gap ends at s_endpgm.
      if (to_lit >= static_cast<int>(t.code.size()))
        for (int i = tf + 1; i < tt; ++i)
          if (tcode[static_cast<std::size_t>(i)].kind() == InstrClass::EndProgram) tt = i;
      compare_gap(t, from_lit, to_lit, tcode, tw, tf, tt, lcode, lw, lf, lt2, note);
    }

    for (auto& [lit, o] : ops) out.operations.push_back(std::move(o));
    return out;
  }

  template <typename Note>
  void compare_gap(const litmus::Thread& t, int from_lit, int to_lit, const std::vector<Instruction>& tcode,
                   const Walk& tw, int tf, int tt, const std::vector<Instruction>& lcode, const Walk& lw, int lf,
                   int lt, Note& note) {
    const int n = static_cast<int>(t.code.size());
    // Where a difference goes when no instruction names it: the access after the gap, else
    // the one before.
    const int fallback = to_lit < n ? to_lit : from_lit;
    // An instruction's litmus instruction, when that has memory-model code; glue (such as the
    // table's waits for a register a `mov` reads) goes to the access before the gap.
    auto where = [&](const Instruction& ins) {
      int i = ins.origin.instruction;
      if (i >= 0 && i < n && is_listed(t.code[static_cast<std::size_t>(i)])) return i;
      return from_lit >= 0 ? from_lit : fallback;
    };
    std::string gap_name = from_lit < 0  ? fmt::format("before P{}:{}", t.id, to_lit)
                           : to_lit >= n ? fmt::format("after P{}:{}", t.id, from_lit)
                                         : fmt::format("between P{}:{} and P{}:{}", t.id, from_lit, t.id, to_lit);
    GapView tg = gap_view(tcode, tf, tt), lg = gap_view(lcode, lf, lt);
    auto zeros_at = [](const Walk& w, const std::vector<Instruction>& code, int i) {
      return i < static_cast<int>(code.size()) ? w.zero_before[static_cast<std::size_t>(i)] : w.zero_at_end;
    };
    auto drained_at = [](const Walk& w, const std::vector<Instruction>& code, int i) {
      return i < static_cast<int>(code.size()) ? w.drained_by[static_cast<std::size_t>(i)] : w.drained_at_end;
    };
    // Counter differences at a point: what the table has at zero that llc does not, and back.
    auto counters = [&](int ti, int li, const std::string& at, int owner_default) {
      Zeros zt = zeros_at(tw, tcode, ti), zl = zeros_at(lw, lcode, li);
      Zeros missing, extra;
      for (const std::string& c : zt)
        if (!zl.count(c)) missing.insert(c);
      for (const std::string& c : zl)
        if (!zt.count(c)) extra.insert(c);
      std::map<std::string, int> dt = drained_at(tw, tcode, ti), dl = drained_at(lw, lcode, li);
      // A difference made by a wait already reported (it lasts until both programs issue
      // another access of that counter) is not reported again.
      std::erase_if(missing, [&](const std::string& c) {
        return dt.count(c) && !reported_.insert({"t", c, dt[c]}).second;
      });
      std::erase_if(extra, [&](const std::string& c) {
        return dl.count(c) && !reported_.insert({"l", c, dl[c]}).second;
      });
      if (missing.empty() && extra.empty()) return;
      // Attribute to the wait that made the difference.
      int owner = owner_default;
      std::string hint;
      for (const std::string& c : missing)
        if (dt.count(c)) {
          const Instruction& w = tcode[static_cast<std::size_t>(dt[c])];
          owner = where(w);
          if (w.origin.role == "register" && w.origin.instruction >= 0)
            hint = fmt::format(
                " (the table waits because P{}:{} reads the loaded register; llc does not need the "
                "value there: it computed it without the load, e.g. folded the dependency away)",
                t.id, w.origin.instruction);
        }
      for (const std::string& c : extra)
        if (dl.count(c)) {
          int w = dl[c];
          owner = where(lcode[static_cast<std::size_t>(w)]);
          hint = why_llc_waits(lcode, w);
        }
      std::string text;
      if (!missing.empty() && !extra.empty())
        text = fmt::format("different counter {}: the table waits for {} to reach 0, llc for {}", at, join(missing),
                           join(extra));
      else if (!missing.empty())
        text = fmt::format("missing wait {}: the table waits for {} to reach 0, llc does not", at, join(missing));
      else
        text = fmt::format("extra wait {}: llc waits for {} to reach 0, the table does not", at, join(extra));
      note(owner, text + hint);
    };

    auto matched = match_points(tcode, tg.points, lcode, lg.points);
    std::vector<bool> tm(tg.points.size()), lm(lg.points.size());
    for (auto [i, j] : matched) {
      tm[static_cast<std::size_t>(i)] = lm[static_cast<std::size_t>(j)] = true;
      const Instruction& a = tcode[static_cast<std::size_t>(tg.points[static_cast<std::size_t>(i)])];
      const Instruction& b = lcode[static_cast<std::size_t>(lg.points[static_cast<std::size_t>(j)])];
      if (!(a.policy == b.policy))
        note(where(a), fmt::format("different cache bits on {} {}: table {}, llc {}", a.mnemonic, gap_name,
                                   bits_text(a.policy), bits_text(b.policy)));
      counters(tg.points[static_cast<std::size_t>(i)], lg.points[static_cast<std::size_t>(j)],
               fmt::format("before {} {}", a.mnemonic, gap_name), where(a));
    }
    for (std::size_t i = 0; i < tg.points.size(); ++i)
      if (!tm[i]) {
        const Instruction& a = tcode[static_cast<std::size_t>(tg.points[i])];
        note(where(a),
             fmt::format("missing {} {}: the table has `{}`, llc none",
                         a.kind() == InstrClass::Barrier ? "barrier" : "cache instruction", gap_name, print(a)));
      }
    for (std::size_t j = 0; j < lg.points.size(); ++j)
      if (!lm[j]) {
        const Instruction& b = lcode[static_cast<std::size_t>(lg.points[j])];
        note(where(b),
             fmt::format("extra {} {}: llc has `{}`, the table none",
                         b.kind() == InstrClass::Barrier ? "barrier" : "cache instruction", gap_name, print(b)));
      }
    std::string at = to_lit < n ? fmt::format("before P{}:{}", t.id, to_lit) : fmt::format("at the end of P{}", t.id);
    counters(tt, lt, at, fallback);
  }

  // Why llc put a wait there, when its next instruction tells: a data dependency (it reads a
  // register a load wrote) or a barrier (llc waits for everything before s_barrier on targets
  // whose barrier does not).
  static std::string why_llc_waits(const std::vector<Instruction>& code, int w) {
    std::size_t i = static_cast<std::size_t>(w) + 1;
    while (i < code.size() && code[i].kind() == InstrClass::Wait) ++i;
    if (i >= code.size()) return "";
    const Instruction& next = code[i];
    if (next.kind() == InstrClass::Barrier) return " (llc waits before s_barrier)";
    if (next.kind() != InstrClass::Alu && next.kind() != InstrClass::Branch) return "";
    // Destinations of the loads before the wait.
    for (std::size_t j = static_cast<std::size_t>(w); j-- > 0;) {
      const Instruction& l = code[j];
      if (!(l.kind() == InstrClass::VectorLoad || l.kind() == InstrClass::LdsLoad || l.is_atomic())) continue;
      if (l.operands.empty() || l.operands[0].kind != Operand::Kind::Vgpr) continue;
      const Operand& d = l.operands[0];
      for (std::size_t k = 1; k < next.operands.size(); ++k) {
        const Operand& o = next.operands[k];
        if (o.kind == Operand::Kind::Vgpr && o.reg < d.reg + d.count && d.reg < o.reg + o.count)
          return fmt::format(" (llc needs the value loaded into {} for `{}`: a data dependency)", print_operand_text(d),
                             print(next));
      }
      break;
    }
    return "";
  }

  static std::string print_operand_text(const Operand& o) {
    return o.count == 1 ? fmt::format("v{}", o.reg) : fmt::format("v[{}:{}]", o.reg, o.reg + o.count - 1);
  }

  const litmus::Test& test_;
  const CompiledTest& table_;
  const LlcResult& llc_;
  CounterModel model_;
  std::set<std::tuple<std::string, std::string, int>> reported_;  // (program, counter, wait index)
};

}  // namespace

Comparison compare_with_table(const litmus::Test& test, const CompiledTest& table, const LlcResult& llc,
                              const Target& target) {
  return Comparer(test, table, llc, target).run();
}

Comparison describe_llc(const litmus::Test& test, const LlcResult& llc, bool generic) {
  Comparison c{test.name, llc.target, "", llc.llc, {}};
  for (const LlcThread& lt : llc.threads) {
    ThreadComparison t;
    t.thread = lt.thread;
    t.problems = lt.problems;
    std::map<int, OperationComparison> ops =
        operations(test, test.threads[static_cast<std::size_t>(lt.thread)], generic);
    mark_unreachable(ops, lt);
    fill_llc(ops, lt.code);
    for (auto& [lit, o] : ops) t.operations.push_back(std::move(o));
    c.threads.push_back(std::move(t));
  }
  return c;
}

std::string render_comparison(const Comparison& c) {
  std::string out = c.table.empty()
                        ? fmt::format("; {} on {}: {} (no table to compare with)\n", c.test, c.target, c.llc)
                        : fmt::format("; {} on {}: table {} versus {}\n", c.test, c.target, c.table, c.llc);
  constexpr std::size_t kColumn = 46;
  for (const ThreadComparison& t : c.threads) {
    out += fmt::format("\n; ---- thread P{} ----\n", t.thread);
    for (const std::string& p : t.problems) out += fmt::format("PROBLEM {}\n", p);
    for (const OperationComparison& o : t.operations) {
      std::string_view verdict = o.unreachable            ? "unreachable (after an unconditional branch)"
                                 : !o.tied                ? "UNTIED"
                                 : !o.differences.empty() ? "DIFF"
                                 : c.table.empty()        ? ""
                                                          : "same";
      out += fmt::format("P{}:{} {}  [{}{}]  {}\n", o.thread, o.instruction, o.litmus, o.operation,
                         o.row.empty() ? "" : ", row " + o.row, verdict);
      auto cell = [](const std::vector<Instruction>& v, std::size_t k) {
        if (k >= v.size()) return std::string();
        return fmt::format("{:<8} {}", v[k].origin.role, print(v[k]));
      };
      if (c.table.empty()) {
        for (std::size_t i = 0; i < o.llc.size(); ++i) out += fmt::format("    {}\n", cell(o.llc, i));
      } else {
        out += fmt::format("    {:<{}}| {}\n", "table", kColumn, c.llc);
        std::size_t rows = std::max(o.table.size(), o.llc.size());
        for (std::size_t i = 0; i < rows; ++i)
          out += fmt::format("    {:<{}}| {}\n", cell(o.table, i), kColumn, cell(o.llc, i));
      }
      for (const std::string& d : o.differences) out += fmt::format("    DIFF {}\n", d);
    }
  }
  out += fmt::format("\n; {} difference{}, {} tying problem{}\n", c.difference_count(),
                     c.difference_count() == 1 ? "" : "s", c.problem_count(), c.problem_count() == 1 ? "" : "s");
  return out;
}

nlohmann::json to_json(const Comparison& c) {
  auto code = [](const std::vector<Instruction>& v) {
    nlohmann::json a = nlohmann::json::array();
    for (const Instruction& i : v) a.push_back({{"text", print(i)}, {"role", i.origin.role}});
    return a;
  };
  nlohmann::json threads = nlohmann::json::array();
  for (const ThreadComparison& t : c.threads) {
    nlohmann::json ops = nlohmann::json::array();
    for (const OperationComparison& o : t.operations)
      ops.push_back({{"instruction", o.instruction},
                     {"litmus", o.litmus},
                     {"operation", o.operation},
                     {"row", o.row},
                     {"tied", o.tied},
                     {"unreachable", o.unreachable},
                     {"table", code(o.table)},
                     {"llc", code(o.llc)},
                     {"differences", o.differences}});
    threads.push_back({{"thread", t.thread}, {"problems", t.problems}, {"operations", ops}});
  }
  return {{"schema", "hsalit-llc-comparison/1"},
          {"test", c.test},
          {"target", c.target},
          {"table", c.table},
          {"llc", c.llc},
          {"differences", c.difference_count()},
          {"problems", c.problem_count()},
          {"threads", threads}};
}

}  // namespace hsalit::codegen
