#include "hsalit/codegen/gcn.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "hsalit/support/binary_key.hpp"

namespace hsalit::codegen {

bool* CachePolicy::flag(std::string_view name) {
  if (name == "glc") return &glc;
  if (name == "slc") return &slc;
  if (name == "dlc") return &dlc;
  if (name == "sc0") return &sc0;
  if (name == "sc1") return &sc1;
  if (name == "nt") return &nt;
  return nullptr;
}

bool CachePolicy::clear(std::string_view name) {
  if (bool* f = flag(name)) {
    *f = false;
    return true;
  }
  if (name == "th") th.clear();
  if (name == "scope") scope.clear();
  return name == "th" || name == "scope";
}

namespace {
bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
}  // namespace

std::string_view to_string(InstrClass c) {
  switch (c) {
    case InstrClass::VectorLoad: return "vector-load";
    case InstrClass::VectorStore: return "vector-store";
    case InstrClass::VectorAtomic: return "vector-atomic";
    case InstrClass::LdsLoad: return "lds-load";
    case InstrClass::LdsStore: return "lds-store";
    case InstrClass::LdsAtomic: return "lds-atomic";
    case InstrClass::ScalarLoad: return "scalar-load";
    case InstrClass::Wait: return "wait";
    case InstrClass::CacheInvalidate: return "cache-invalidate";
    case InstrClass::CacheWriteback: return "cache-writeback";
    case InstrClass::Barrier: return "barrier";
    case InstrClass::Alu: return "alu";
    case InstrClass::Branch: return "branch";
    case InstrClass::Label: return "label";
    case InstrClass::EndProgram: return "end";
    case InstrClass::Other: return "other";
  }
  return "?";
}

// One look at the first character picks the few prefixes that can match: classify runs for
// every instruction the compiler and the simulator's lowering look at.
InstrClass classify(std::string_view m) {
  if (m.empty()) return InstrClass::Other;
  if (m.back() == ':') return InstrClass::Label;
  const char first = m.front();
  const std::string_view segment = first == 'b'   ? "buffer_"
                                   : first == 'g' ? "global_"
                                   : first == 'f' ? "flat_"
                                   : first == 's' ? "scratch_"
                                                  : "";
  if (!segment.empty() && starts_with(m, segment)) {
    const std::string_view rest = m.substr(segment.size());
    if (starts_with(rest, "load")) return InstrClass::VectorLoad;
    if (starts_with(rest, "store")) return InstrClass::VectorStore;
    if (starts_with(rest, "atomic")) return InstrClass::VectorAtomic;
  }
  switch (first) {
    case 'b':
      if (m == "buffer_wbinvl1" || m == "buffer_wbinvl1_vol" || m == "buffer_inv" || m == "buffer_invl2" ||
          m == "buffer_gl0_inv" || m == "buffer_gl1_inv")
        return InstrClass::CacheInvalidate;
      return m == "buffer_wbl2" ? InstrClass::CacheWriteback : InstrClass::Other;
    case 'g':
      if (m == "global_inv") return InstrClass::CacheInvalidate;
      return m == "global_wb" ? InstrClass::CacheWriteback : InstrClass::Other;
    case 'd':
      if (!starts_with(m, "ds_")) return InstrClass::Other;
      if (starts_with(m, "ds_read") || starts_with(m, "ds_load")) return InstrClass::LdsLoad;
      if ((starts_with(m, "ds_write") || starts_with(m, "ds_store")) && m.find("xchg") == std::string_view::npos &&
          m.find("rtn") == std::string_view::npos)
        return InstrClass::LdsStore;
      return InstrClass::LdsAtomic;
    case 's':
      if (!starts_with(m, "s_")) return InstrClass::Other;
      if (starts_with(m, "s_load") || starts_with(m, "s_buffer_load")) return InstrClass::ScalarLoad;
      if (starts_with(m, "s_waitcnt") || starts_with(m, "s_wait_")) return InstrClass::Wait;
      if (starts_with(m, "s_barrier")) return InstrClass::Barrier;
      if (m == "s_branch" || starts_with(m, "s_cbranch")) return InstrClass::Branch;
      if (m == "s_endpgm") return InstrClass::EndProgram;
      return InstrClass::Alu;
    case 'v': return starts_with(m, "v_") ? InstrClass::Alu : InstrClass::Other;
    default: return InstrClass::Other;
  }
}

bool Instruction::is_memory() const {
  switch (kind()) {
    case InstrClass::VectorLoad:
    case InstrClass::VectorStore:
    case InstrClass::VectorAtomic:
    case InstrClass::LdsLoad:
    case InstrClass::LdsStore:
    case InstrClass::LdsAtomic: return true;
    default: return false;
  }
}

namespace {

std::string print_operand(const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::Vgpr:
      return o.count == 1 ? fmt::format("v{}", o.reg) : fmt::format("v[{}:{}]", o.reg, o.reg + o.count - 1);
    case Operand::Kind::Sgpr:
      return o.count == 1 ? fmt::format("s{}", o.reg) : fmt::format("s[{}:{}]", o.reg, o.reg + o.count - 1);
    case Operand::Kind::Immediate:
      return (o.imm > -65536 && o.imm < 65536) ? std::to_string(o.imm)
                                               : fmt::format("0x{:x}", static_cast<std::uint64_t>(o.imm));
    case Operand::Kind::Off: return "off";
    case Operand::Kind::Special:
    case Operand::Kind::Label: return o.name;
  }
  return "?";
}

}  // namespace

std::string print(const Instruction& ins) {
  if (ins.kind() == InstrClass::Label) return ins.mnemonic;
  std::string out = ins.mnemonic;
  if (ins.mnemonic == "s_waitcnt") {
    if (ins.wait.vmcnt) out += fmt::format(" vmcnt({})", *ins.wait.vmcnt);
    if (ins.wait.expcnt) out += fmt::format(" expcnt({})", *ins.wait.expcnt);
    if (ins.wait.lgkmcnt) out += fmt::format(" lgkmcnt({})", *ins.wait.lgkmcnt);
    if (!ins.wait.vmcnt && !ins.wait.expcnt && !ins.wait.lgkmcnt && ins.operands.empty()) out += " 0";
  }
  for (std::size_t i = 0; i < ins.operands.size(); ++i) out += (i == 0 ? " " : ", ") + print_operand(ins.operands[i]);
  // s_delay_alu's fields are joined by `|` (`instid0(VALU_DEP_1) | instskip(NEXT) | ...`).
  const std::string flag_separator = ins.mnemonic == "s_delay_alu" ? " | " : " ";
  for (std::size_t i = 0; i < ins.flags.size(); ++i) out += (i == 0 ? std::string(" ") : flag_separator) + ins.flags[i];
  if (ins.offset) out += fmt::format(" offset:{}", *ins.offset);
  const CachePolicy& p = ins.policy;
  // LLVM's order (AMDGPUInstPrinter::printCPol): glc/sc0, slc/nt, dlc, scc/sc1.
  if (p.glc) out += " glc";
  if (p.sc0) out += " sc0";
  if (p.slc) out += " slc";
  if (p.nt) out += " nt";
  if (p.dlc) out += " dlc";
  if (p.sc1) out += " sc1";
  if (!p.th.empty()) out += " th:" + p.th;
  if (!p.scope.empty()) out += " scope:" + p.scope;
  return out;
}

using support::append_optional;
using support::append_raw;
using support::append_text;

void append_key(std::string& key, const Operand& op) {
  append_raw(key, op.kind);
  append_raw(key, op.reg);
  append_raw(key, op.count);
  append_raw(key, op.imm);
  append_text(key, op.name);
}

void append_key(std::string& key, const Instruction& ins, KeyOrigin origin) {
  append_text(key, ins.mnemonic);
  append_raw(key, ins.operands.size());
  for (const Operand& op : ins.operands) append_key(key, op);
  const CachePolicy& p = ins.policy;
  for (bool bit : {p.glc, p.slc, p.dlc, p.sc0, p.sc1, p.nt}) append_raw(key, bit);
  append_text(key, p.th);
  append_text(key, p.scope);
  append_optional(key, ins.wait.vmcnt);
  append_optional(key, ins.wait.expcnt);
  append_optional(key, ins.wait.lgkmcnt);
  append_optional(key, ins.offset);
  append_raw(key, ins.flags.size());
  for (const std::string& f : ins.flags) append_text(key, f);
  if (origin == KeyOrigin::None) return;
  append_raw(key, ins.origin.thread);
  append_raw(key, ins.origin.instruction);
  if (origin == KeyOrigin::Row) append_text(key, ins.origin.row);
}

std::string print(const std::vector<Instruction>& program, bool annotate) {
  std::string out;
  for (const Instruction& ins : program) {
    std::string line = ins.kind() == InstrClass::Label ? ins.mnemonic : "  " + print(ins);
    if (annotate && !ins.origin.row.empty()) {
      line += std::string(line.size() < 44 ? 44 - line.size() : 1, ' ');
      line += fmt::format("; {} [{}]", ins.origin.row, ins.origin.role);
    }
    out += line + "\n";
  }
  return out;
}

namespace {

bool parse_int(std::string_view s, std::int64_t& out) {
  bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return false;
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return false;
  out = negative ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  return true;
}

// `v5`, `v[2:3]`, `s[0:1]`, `s4`.
std::optional<Operand> parse_register(std::string_view t) {
  if (t.size() < 2 || (t[0] != 'v' && t[0] != 's')) return std::nullopt;
  Operand::Kind kind = t[0] == 'v' ? Operand::Kind::Vgpr : Operand::Kind::Sgpr;
  std::string_view rest = t.substr(1);
  std::int64_t first = 0, last = 0;
  if (rest.front() == '[' && rest.back() == ']') {
    rest = rest.substr(1, rest.size() - 2);
    auto colon = rest.find(':');
    if (colon == std::string_view::npos) {
      if (!parse_int(rest, first)) return std::nullopt;
      last = first;
    } else if (!parse_int(rest.substr(0, colon), first) || !parse_int(rest.substr(colon + 1), last)) {
      return std::nullopt;
    }
  } else {
    for (char c : rest)
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    if (!parse_int(rest, first)) return std::nullopt;
    last = first;
  }
  if (first < 0 || last < first || last > 1023) return std::nullopt;
  return Operand{kind, static_cast<int>(first), static_cast<int>(last - first + 1), 0, {}};
}

// Tokens separated by blanks and commas; `&` between wait counters is dropped.
std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out;
  std::string cur;
  int depth = 0;
  for (char c : s) {
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    if (depth == 0 && (c == ' ' || c == '\t' || c == ',')) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
      continue;
    }
    cur += c;
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  std::erase(out, "&");
  return out;
}

// `name(arguments)`: a field such as `instid0(VALU_DEP_1)` or `sendmsg(MSG_DEALLOC_VGPRS)`.
bool is_call_field(std::string_view t) {
  const auto open = t.find('(');
  if (open == std::string_view::npos || open == 0 || t.back() != ')' || t.size() < open + 3) return false;
  return std::all_of(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(open),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

}  // namespace

std::optional<Instruction> parse_instruction(std::string_view line, std::string& error) {
  std::vector<std::string> toks = tokens(line);
  if (toks.empty()) {
    error = "empty instruction";
    return std::nullopt;
  }
  Instruction ins;
  ins.mnemonic = toks[0];
  if (ins.mnemonic.back() == ':') {
    if (toks.size() != 1) {
      error = "a label stands alone on its line";
      return std::nullopt;
    }
    return ins;
  }
  if (ins.mnemonic == "s_delay_alu") std::erase(toks, "|");
  const bool branch = ins.kind() == InstrClass::Branch;
  for (std::size_t i = 1; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    std::int64_t n = 0;
    auto counter = [&](std::string_view name, std::optional<int>& slot) {
      if (!starts_with(t, name) || t.size() < name.size() + 3 || t[name.size()] != '(' || t.back() != ')') return false;
      std::int64_t v = 0;
      if (!parse_int(std::string_view(t).substr(name.size() + 1, t.size() - name.size() - 2), v)) return false;
      slot = static_cast<int>(v);
      return true;
    };
    if (counter("vmcnt", ins.wait.vmcnt) || counter("expcnt", ins.wait.expcnt) || counter("lgkmcnt", ins.wait.lgkmcnt))
      continue;
    if (bool* f = ins.policy.flag(t))
      *f = true;
    else if (starts_with(t, "th:"))
      ins.policy.th = t.substr(3);
    else if (starts_with(t, "scope:"))
      ins.policy.scope = t.substr(6);
    else if (starts_with(t, "offset:")) {
      if (!parse_int(std::string_view(t).substr(7), n)) {
        error = fmt::format("bad offset '{}'", t);
        return std::nullopt;
      }
      ins.offset = n;
    } else if (t == "offen" || t == "idxen" || t == "lds" || t == "addr64" || t == "gds" ||
               starts_with(t, "op_sel:[") || starts_with(t, "op_sel_hi:[") || starts_with(t, "neg_lo:[") ||
               starts_with(t, "neg_hi:[")) {
      // The packed-math operand selects (`v_pk_mov_b32 v[0:1], s[2:3], s[2:3] op_sel:[0,1]`).
      ins.flags.push_back(t);
    } else if (auto reg = parse_register(t)) {
      ins.operands.push_back(*reg);
    } else if (parse_int(t, n)) {
      ins.operands.push_back(Operand::immediate(n));
    } else if (t == "off") {
      ins.operands.push_back(Operand::off());
    } else if (t == "vcc" || t == "exec" || t == "null" || t == "m0" || t == "scc" || t == "vcc_lo" || t == "exec_lo") {
      ins.operands.push_back(Operand::special(t));
    } else if (t.size() > 1 && (t[0] == 'v' || t[0] == 's') && t[1] == '[') {
      error = fmt::format("bad register range '{}'", t);
      return std::nullopt;
    } else if (is_call_field(t)) {
      // A field written as a call: s_delay_alu's `instid0(VALU_DEP_1)`, s_sendmsg's
      // `sendmsg(MSG_DEALLOC_VGPRS)`, the ALU dependency waits' `depctr_sa_sdst(0)` (GFX10+
      // s_waitcnt_depctr, GFX12 s_wait_alu: no memory counter). A memory wait's fields are its
      // counters, read above.
      const bool alu_wait = ins.mnemonic == "s_wait_alu" || ins.mnemonic == "s_waitcnt_depctr";
      if (ins.kind() == InstrClass::Wait && !(alu_wait && starts_with(t, "depctr_"))) {
        error = fmt::format("unknown wait counter '{}'", t);
        return std::nullopt;
      }
      ins.flags.push_back(t);
    } else if (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_' || t[0] == '.') {
      // Only a branch names a label: another word is a modifier this reader does not know
      // (never dropped, which could change what the instruction does).
      if (!branch) {
        error = fmt::format("unknown modifier or operand '{}'", t);
        return std::nullopt;
      }
      ins.operands.push_back(Operand::label(t));
    } else {
      error = fmt::format("cannot read operand '{}'", t);
      return std::nullopt;
    }
  }
  // `s_waitcnt 0` is the same as an immediate operand: keep it as written.
  return ins;
}

ParsedProgram parse_assembly(std::string_view text) {
  ParsedProgram out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    ++line_no;
    for (std::string_view marker : {";", "//"}) {
      auto c = line.find(marker);
      if (c != std::string_view::npos) line = line.substr(0, c);
    }
    auto b = line.find_first_not_of(" \t\r");
    if (b == std::string_view::npos) continue;
    line = line.substr(b);
    line = line.substr(0, line.find_last_not_of(" \t\r") + 1);
    // Assembler directives start with '.', but so do local labels (`.LBB0_2:`), which stay.
    if (line[0] == '.' && !(line.back() == ':' && line.find_first_of(" \t") == std::string_view::npos)) continue;
    // A dual-issue VOPD pair (GFX11+ wave32: `v_dual_mov_b32 v0, s0 :: v_dual_mov_b32 v1, s1`)
    // is two VALU instructions the compiler pairs only when neither reads what the other
    // writes: read as the two, one after the other, without the `dual_`.
    std::vector<std::string_view> parts;
    for (auto sep = line.find("::"); sep != std::string_view::npos; sep = line.find("::")) {
      parts.push_back(line.substr(0, sep));
      line = line.substr(sep + 2);
    }
    parts.push_back(line);
    for (std::string_view part : parts) {
      std::string error;
      auto ins = parse_instruction(part, error);
      if (!ins) {
        out.errors.push_back(fmt::format("line {}: {}", line_no, error));
        continue;
      }
      if (parts.size() > 1 && starts_with(ins->mnemonic, "v_dual_")) ins->mnemonic = "v_" + ins->mnemonic.substr(7);
      out.instructions.push_back(std::move(*ins));
    }
  }
  return out;
}

}  // namespace hsalit::codegen
