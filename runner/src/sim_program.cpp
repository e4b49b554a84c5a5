#include "sim_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "hsalit/codegen/memory_hierarchy.hpp"
#include "hsalit/runner/sim.hpp"

namespace hsalit::runner::detail {

using codegen::InstrClass;
using codegen::Instruction;
using codegen::Operand;

namespace {

// What the lowering asks of the target's generation: its counters and its caches.
struct Generation {
  const codegen::CounterModel& counters;
  const codegen::MemoryHierarchy& caches;
  codegen::WorkgroupSpan span;
};

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

// Register and immediate operands, without the special ones (vcc as a carry-out).
std::vector<Operand> values(const Instruction& ins) {
  std::vector<Operand> out;
  for (const Operand& o : ins.operands)
    if (o.kind != Operand::Kind::Special) out.push_back(o);
  return out;
}

Src src_of(const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::Vgpr: return {RegFile::Vgpr, o.reg, 0};
    case Operand::Kind::Sgpr: return {RegFile::Sgpr, o.reg, 0};
    case Operand::Kind::Immediate: return {RegFile::Imm, 0, o.imm};
    default: return {};
  }
}

int atomic_kind_of(std::string_view m) {
  using codegen::AtomicOp;
  if (contains(m, "cmpswap") || contains(m, "cmpst")) return static_cast<int>(AtomicOp::Cas);
  if (contains(m, "swap") || contains(m, "xchg")) return static_cast<int>(AtomicOp::Swap);
  if (contains(m, "_add")) return static_cast<int>(AtomicOp::Add);
  if (contains(m, "_sub")) return static_cast<int>(AtomicOp::Sub);
  if (contains(m, "_and")) return static_cast<int>(AtomicOp::And);
  if (contains(m, "_or")) return static_cast<int>(AtomicOp::Or);
  if (contains(m, "_xor")) return static_cast<int>(AtomicOp::Xor);
  return -1;
}

[[noreturn]] void unsupported(const Instruction& ins, std::string_view why) {
  throw std::runtime_error(fmt::format("the simulator cannot execute '{}': {}", codegen::print(ins), why));
}

SimInstruction lower_memory(const Instruction& ins, const Generation& gen) {
  SimInstruction s;
  const std::string& m = ins.mnemonic;
  InstrClass k = ins.kind();
  std::vector<Operand> ops = ins.operands;
  s.width = (contains(m, "x2") || contains(m, "b64") || contains(m, "u64")) ? 2 : 1;
  s.imm_offset = ins.offset.value_or(0);
  // The levels the access passes, from its cache bits as its generation reads them.
  const codegen::CachePath path = gen.caches.access(ins, gen.span);
  s.bypass_l1 = path.bypass_l1;
  s.bypass_gl1 = path.bypass_gl1 || !gen.caches.has_gl1();
  s.system_scope = path.system_scope;
  s.agent_scope = path.agent_scope;
  auto need = [&](std::size_t n) {
    if (ops.size() != n) unsupported(ins, fmt::format("expected {} operands", n));
  };
  bool atomic = k == InstrClass::VectorAtomic || k == InstrClass::LdsAtomic;
  if (atomic) {
    s.atomic_kind = atomic_kind_of(m);
    if (s.atomic_kind < 0) unsupported(ins, "unknown atomic operation");
  }
  bool cas = s.atomic_kind == static_cast<int>(codegen::AtomicOp::Cas) && atomic;
  if (k == InstrClass::LdsLoad || k == InstrClass::LdsStore || k == InstrClass::LdsAtomic) {
    s.form = AddressForm::Lds;
    if (k == InstrClass::LdsLoad) {
      need(2);
      s.op = SimOp::LdsLoad;
      s.dst = ops[0].reg;
      s.base = src_of(ops[1]);
    } else if (k == InstrClass::LdsStore) {
      need(2);
      s.op = SimOp::LdsStore;
      s.base = src_of(ops[0]);
      s.data = ops[1].reg;
    } else {
      s.op = SimOp::LdsAtomic;
      s.dst = ops[0].reg;
      s.base = src_of(ops[1]);
      if (cas) {
        need(4);
        bool compare_first = contains(m, "cmpst_");  // ds_cmpst_*: compare, then new value
        s.compare = compare_first ? ops[2].reg : ops[3].reg;
        s.data = compare_first ? ops[3].reg : ops[2].reg;
      } else {
        need(3);
        s.data = ops[2].reg;
      }
    }
    return s;
  }
  s.form = starts(m, "flat_") ? AddressForm::Flat : starts(m, "buffer_") ? AddressForm::Buffer : AddressForm::Global;
  s.flat = s.form == AddressForm::Flat;
  s.op = k == InstrClass::VectorLoad    ? SimOp::VectorLoad
         : k == InstrClass::VectorStore ? SimOp::VectorStore
                                        : SimOp::VectorAtomic;
  auto set_cas_data = [&](const Operand& range) {
    s.data = range.reg;
    if (cas) s.compare = range.reg + s.width;
  };
  switch (s.form) {
    case AddressForm::Global:
      if (s.op == SimOp::VectorLoad) {
        need(3);
        s.dst = ops[0].reg, s.offset = src_of(ops[1]), s.base = src_of(ops[2]);
      } else if (s.op == SimOp::VectorStore) {
        need(3);
        s.offset = src_of(ops[0]), s.data = ops[1].reg, s.base = src_of(ops[2]);
      } else {
        need(4);
        s.dst = ops[0].reg, s.offset = src_of(ops[1]), s.base = src_of(ops[3]);
        set_cas_data(ops[2]);
      }
      break;
    case AddressForm::Flat:
      if (s.op == SimOp::VectorLoad) {
        need(2);
        s.dst = ops[0].reg, s.base = src_of(ops[1]);
      } else if (s.op == SimOp::VectorStore) {
        need(2);
        s.base = src_of(ops[0]), s.data = ops[1].reg;
      } else {
        need(3);
        s.dst = ops[0].reg, s.base = src_of(ops[1]);
        set_cas_data(ops[2]);
      }
      break;
    case AddressForm::Buffer:
      need(4);
      if (ops[1].kind != Operand::Kind::Off) unsupported(ins, "only buffer accesses without a VGPR address");
      s.base = src_of(ops[2]);
      s.imm_offset += ops[3].imm;
      if (s.op == SimOp::VectorLoad) {
        s.dst = ops[0].reg;
      } else if (s.op == SimOp::VectorStore) {
        s.data = ops[0].reg;
      } else {
        s.dst = ops[0].reg;  // MUBUF atomics return into their data registers
        set_cas_data(ops[0]);
      }
      break;
    case AddressForm::Lds: break;
  }
  return s;
}

// 32-bit scalar logic on SGPRs that are not lane masks: the buffer resources the AMDGPU backend
// builds from a pointer (`s_and_b32 s5, s1, 0xffff` keeps the base's high bits; a global
// location's base fits in 32 bits, so its high SGPR is 0, as in hardware). nullopt for other
// instructions.
std::optional<SimInstruction> scalar_logic(const Instruction& ins) {
  const std::string& m = ins.mnemonic;
  if (m != "s_and_b32" && m != "s_or_b32" && m != "s_xor_b32") return std::nullopt;
  const std::vector<Operand>& ops = ins.operands;
  if (ops.size() != 3 || ops[0].kind != Operand::Kind::Sgpr || ops[0].count != 1)
    unsupported(ins, "expected an SGPR D, A, B");
  SimInstruction s;
  s.op = m == "s_and_b32" ? SimOp::And : m == "s_or_b32" ? SimOp::Or : SimOp::Xor;
  s.dst = ops[0].reg;
  s.a = src_of(ops[1]);
  s.b = src_of(ops[2]);
  s.sgpr_destination = true;
  return s;
}

SimInstruction lower_one(const Instruction& ins, const Generation& gen) {
  const codegen::CounterModel& model = gen.counters;
  const std::string& m = ins.mnemonic;
  std::vector<Operand> v = values(ins);
  SimInstruction s;
  switch (ins.kind()) {
    case InstrClass::Label: return s;
    case InstrClass::EndProgram: s.op = SimOp::End; return s;
    case InstrClass::Barrier:
      if (m == "s_barrier_signal") return s;  // GFX12: signal, then wait below
      s.op = SimOp::Barrier;
      return s;
    case InstrClass::Wait:
      // The counters the target's model says the wait bounds; waits on counters the model
      // does not track (expcnt, samplecnt, bvhcnt: nothing the code generator emits counts
      // in them) wait for nothing.
      for (const auto& [counter, bound] : model.waits(ins)) {
        int slot = model.slot(counter);
        if (slot < 0) continue;
        int& b = s.bounds[static_cast<std::size_t>(slot)];
        b = b < 0 ? bound : std::min(b, bound);
      }
      s.op = starts(m, "s_wait_") && std::none_of(s.bounds.begin(), s.bounds.end(), [](int b) { return b >= 0; })
                 ? SimOp::Nop
                 : SimOp::Wait;
      return s;
    case InstrClass::CacheInvalidate:
    case InstrClass::CacheWriteback: {
      // What the generation says the instruction does (docs/simulator.md, rules 8 and 12).
      const codegen::CacheMaintenance effect = gen.caches.maintenance(ins, gen.span);
      s.invalidate_l1 = effect.invalidate_l1;
      s.invalidate_gl1 = effect.invalidate_gl1;
      s.invalidate_l2 = effect.invalidate_l2;
      s.op = effect.writeback_l2                                                     ? SimOp::WritebackL2
             : effect.invalidate_l1 || effect.invalidate_gl1 || effect.invalidate_l2 ? SimOp::Invalidate
                                                                                     : SimOp::Nop;
      return s;
    }
    case InstrClass::ScalarLoad:
      if (v.size() != 3) unsupported(ins, "expected s_load DST, s[0:1], OFFSET");
      s.op = SimOp::ScalarLoad;
      s.dst = v[0].reg;
      s.dst_count = v[0].count;
      s.a = src_of(v[2]);
      return s;
    case InstrClass::Branch:
      s.op = m == "s_branch" ? SimOp::Branch : m == "s_cbranch_vccnz" ? SimOp::BranchVcc : SimOp::Nop;
      if (s.op == SimOp::Nop) unsupported(ins, "only s_branch and s_cbranch_vccnz are simulated");
      return s;
    case InstrClass::VectorLoad:
    case InstrClass::VectorStore:
    case InstrClass::VectorAtomic:
    case InstrClass::LdsLoad:
    case InstrClass::LdsStore:
    case InstrClass::LdsAtomic: {
      s = lower_memory(ins, gen);
      for (const std::string& counter : model.issued(ins))
        if (int slot = model.slot(counter); slot >= 0) s.counters |= static_cast<std::uint8_t>(1u << slot);
      return s;
    }
    case InstrClass::Alu: break;
    case InstrClass::Other: unsupported(ins, "unknown instruction");
  }
  if (m == "s_mov_b32" && !v.empty() && v[0].kind != Operand::Kind::Sgpr) return s;  // m0 set-up
  if (starts(m, "v_mov_b32") || m == "s_mov_b32") {
    if (v.size() != 2) unsupported(ins, "expected two operands");
    s.op = SimOp::Move;
    s.dst = v[0].reg;
    s.a = src_of(v[1]);
    return s;
  }
  if (starts(m, "v_cndmask_b32")) {
    if (v.size() != 3 || v[1].imm != 0 || v[2].imm != 1) unsupported(ins, "only v_cndmask_b32 D, 0, 1, vcc");
    s.op = SimOp::Select;
    s.dst = v[0].reg;
    return s;
  }
  if (starts(m, "v_cmp_eq_u32") || starts(m, "v_cmp_ne_u32")) {
    if (v.size() != 2) unsupported(ins, "expected vcc, A, B");
    s.op = starts(m, "v_cmp_eq") ? SimOp::CompareEq : SimOp::CompareNe;
    s.a = src_of(v[0]);
    s.b = src_of(v[1]);
    return s;
  }
  struct Binary {
    const char* prefix;
    SimOp op;
  };
  static const Binary kBinary[] = {{"v_add_", SimOp::Add},    {"v_sub_", SimOp::Sub},
                                   {"v_xor_b32", SimOp::Xor}, {"v_and_b32", SimOp::And},
                                   {"v_or_b32", SimOp::Or},   {"v_lshlrev_b32", SimOp::ShiftLeft}};
  for (const Binary& b : kBinary) {
    if (!starts(m, b.prefix)) continue;
    if (v.size() != 3) unsupported(ins, "expected D, A, B");
    s.op = b.op;
    s.dst = v[0].reg;
    s.a = src_of(v[1]);
    s.b = src_of(v[2]);
    return s;
  }
  if (std::optional<SimInstruction> logic = scalar_logic(ins)) return *logic;
  unsupported(ins, "not an instruction the code generator emits");
}

// Lane masks in llc's code (docs/verification.md, "The real compiler (verify-llc)"). Each litmus thread is one lane,
// so a lane mask (vcc, exec, an SGPR pair written by v_cmp_*_e64 or s_*_b64; in wave32 code,
// the GFX10+ default, vcc_lo, exec_lo and single SGPRs with s_*_b32) is one bit: it is kept
// as 0 or 1 in a scratch VGPR, and the wave's condition flag is set from it right before a
// branch or select reads it. exec is 1 wherever code executes: the only exec changes accepted
// are llc's if-then shape, `s_and_saveexec_b64 D, M` (`_b32`) followed by `s_cbranch_execz L`
// whose label L is followed by `s_or_b64 exec, exec, D` (`s_or_b32 exec_lo, exec_lo, D`): the
// lane skips the block when M is 0, and the restore makes exec 1 again. Anything else that
// writes exec is unsupported.
struct Masks {
  bool enabled = false;
  int temp = 0;                   // two scratch VGPRs for selects
  std::map<int, int> slot;        // first SGPR of a mask (-1: vcc) -> scratch VGPR
  std::set<int> saved_exec;       // SGPRs holding exec saved by s_and_saveexec_b64 (_b32)
  std::optional<Src> execz_mask;  // the mask the next s_cbranch_execz tests
  int next = 0;
  int vgpr(int key) {
    auto it = slot.find(key);
    if (it == slot.end()) it = slot.emplace(key, next++).first;
    return it->second;
  }
};

bool is_special(const Operand& o, std::string_view name) { return o.kind == Operand::Kind::Special && o.name == name; }
// The lane mask of compares: vcc, or vcc_lo in wave32 code (GFX10 and later by default).
bool is_vcc(const Operand& o) { return is_special(o, "vcc") || is_special(o, "vcc_lo"); }
bool is_exec(const Operand& o) { return is_special(o, "exec") || is_special(o, "exec_lo"); }
// An SGPR operand that can hold a lane mask: a pair (wave64) or one SGPR (wave32).
bool is_mask_sgpr(const Operand& o) { return o.kind == Operand::Kind::Sgpr && (o.count == 1 || o.count == 2); }
bool ends(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// Does the thread's code use lane masks beyond `v_cmp ... vcc` + `s_cbranch_vccnz`?
bool uses_masks(const std::vector<Instruction>& code) {
  for (const Instruction& ins : code) {
    const std::string& m = ins.mnemonic;
    if ((starts(m, "s_") && ends(m, "_b64")) || starts(m, "s_and_saveexec") || starts(m, "v_cmpx_") ||
        m == "s_cbranch_vccz" || m == "s_cbranch_execz" || m == "s_cbranch_execnz")
      return true;
    for (const Operand& o : ins.operands)
      if (is_exec(o)) return true;
    if ((starts(m, "v_cmp") || starts(m, "v_cndmask")) &&
        std::any_of(ins.operands.begin(), ins.operands.end(), [](const Operand& o) { return is_mask_sgpr(o); }))
      return true;
  }
  return false;
}

SimInstruction alu(SimOp op, int dst, Src a, Src b = {}) {
  SimInstruction s;
  s.op = op;
  s.dst = dst;
  s.a = a;
  s.b = b;
  return s;
}
Src vgpr_src(int r) { return {RegFile::Vgpr, r, 0}; }
Src imm_src(std::int64_t v) { return {RegFile::Imm, 0, v}; }

// A lane mask operand as a value 0 or 1.
Src mask_src(const Instruction& ins, const Operand& o, Masks& masks) {
  if (is_exec(o)) return imm_src(1);
  if (is_vcc(o)) return vgpr_src(masks.vgpr(-1));
  if (is_mask_sgpr(o)) return vgpr_src(masks.vgpr(o.reg));
  if (o.kind == Operand::Kind::Immediate) return imm_src(o.imm != 0 ? 1 : 0);
  unsupported(ins, "a lane mask the simulator does not model");
}
int mask_dst(const Instruction& ins, const Operand& o, Masks& masks) {
  if (is_vcc(o)) return masks.vgpr(-1);
  if (is_mask_sgpr(o)) return masks.vgpr(o.reg);
  unsupported(ins, "writes a lane mask the simulator does not model");
}

// d <- flag ? b : a, from the wave's condition flag: d = a ^ ((a ^ b) & -flag).
void select(std::vector<SimInstruction>& out, int dst, Src a, Src b, const Masks& masks) {
  if (a.file == RegFile::Imm && a.imm == 0 && b.file == RegFile::Imm && b.imm == 1) {
    out.push_back(alu(SimOp::Select, dst, {}));
    return;
  }
  const int bit = masks.temp, diff = masks.temp + 1;
  out.push_back(alu(SimOp::Select, bit, {}));
  out.push_back(alu(SimOp::Sub, bit, imm_src(0), vgpr_src(bit)));
  out.push_back(alu(SimOp::Xor, diff, a, b));
  out.push_back(alu(SimOp::And, diff, vgpr_src(diff), vgpr_src(bit)));
  out.push_back(alu(SimOp::Xor, dst, a, vgpr_src(diff)));
}

// Is `code[i + 1]` `s_cbranch_execz L`, with L followed by the restore of exec from a saved
// copy (`s_or_b64 exec, exec, S`; `s_or_b32 exec_lo, exec_lo, S`) that `restores` accepts?
template <typename Restores>
bool if_then_shape(const std::vector<Instruction>& code, std::size_t i, bool wave32, Restores restores) {
  if (i + 1 >= code.size() || code[i + 1].mnemonic != "s_cbranch_execz" || code[i + 1].operands.empty()) return false;
  const std::string label = code[i + 1].operands.back().name + ":";
  const char* exec = wave32 ? "exec_lo" : "exec";
  for (std::size_t j = 0; j + 1 < code.size(); ++j)
    if (code[j].mnemonic == label) {
      const Instruction& r = code[j + 1];
      return r.mnemonic == (wave32 ? "s_or_b32" : "s_or_b64") && r.operands.size() == 3 &&
             is_special(r.operands[0], exec) && is_special(r.operands[1], exec) &&
             r.operands[2].kind == Operand::Kind::Sgpr && restores(r.operands[2]);
    }
  return false;
}

// `v_cmpx_*` writes its comparison to exec (GFX6-GFX9: also to vcc or the SGPR mask it names).
// llc's if-then shape with it (GFX10.3 and later; llc-16 and later): `s_mov_b32 S, exec_lo`,
// `v_cmpx_... A, B`, `s_cbranch_execz L`, ..., `L: s_or_b32 exec_lo, exec_lo, S`. As with
// s_and_saveexec, the lane skips the block when the comparison is 0 and the restore makes exec
// 1 again; any other use of v_cmpx is unsupported.
std::vector<SimInstruction> lower_cmpx(const std::vector<Instruction>& code, std::size_t i, Masks& masks) {
  const Instruction& ins = code[i];
  const std::string& m = ins.mnemonic;
  const std::vector<Operand>& ops = ins.operands;
  const SimOp op = starts(m, "v_cmpx_eq_u32") || starts(m, "v_cmpx_eq_i32") ? SimOp::CompareEq
                   : starts(m, "v_cmpx_ne_u32") || starts(m, "v_cmpx_ne_i32") || starts(m, "v_cmpx_lg_u32") ||
                           starts(m, "v_cmpx_lg_i32")
                       ? SimOp::CompareNe
                       : SimOp::Nop;
  if (op == SimOp::Nop) unsupported(ins, "only equality comparisons are simulated");
  if (ops.size() != 2 && ops.size() != 3) unsupported(ins, "expected [MASK,] A, B");
  auto saved = [&](const Operand& s) { return masks.saved_exec.count(s.reg) > 0; };
  if (!if_then_shape(code, i, true, saved) && !if_then_shape(code, i, false, saved))
    unsupported(ins, "exec masking other than s_mov S, exec + v_cmpx + s_cbranch_execz + s_or exec restore from S");
  constexpr int kCmpxMask = -2;  // the mask slot of a comparison written only to exec
  const std::size_t first = ops.size() - 2;
  const int dst = ops.size() == 3 ? mask_dst(ins, ops[0], masks) : masks.vgpr(kCmpxMask);
  std::vector<SimInstruction> out;
  out.push_back(alu(op, -1, src_of(ops[first]), src_of(ops[first + 1])));
  out.push_back(alu(SimOp::Select, dst, {}));
  masks.execz_mask = vgpr_src(dst);
  return out;
}

// The simulator steps of instruction `i` of `code`, for instructions beyond the code
// generator's vocabulary (llc's code); empty when lower_one handles it.
std::vector<SimInstruction> lower_extended(const std::vector<Instruction>& code, std::size_t i, Masks& masks) {
  const Instruction& ins = code[i];
  const std::string& m = ins.mnemonic;
  const std::vector<Operand>& ops = ins.operands;
  std::vector<SimInstruction> out;
  // s_clause (GFX10+) and s_delay_alu (GFX11+) are scheduling hints: no effect on what the
  // wave computes or when its memory operations complete.
  if (starts(m, "s_nop") || m == "s_clause" || m == "s_delay_alu") {
    out.emplace_back();  // Nop
    return out;
  }
  // GFX11+: the wave frees its VGPRs before s_endpgm; its memory operations still complete.
  if (m == "s_sendmsg" && ins.flags == std::vector<std::string>{"sendmsg(MSG_DEALLOC_VGPRS)"}) {
    out.emplace_back();  // Nop
    return out;
  }
  if (starts(m, "v_cndmask_b32")) {
    if (ops.size() != 4 || ops[0].kind != Operand::Kind::Vgpr) unsupported(ins, "expected v_cndmask_b32 D, A, B, MASK");
    if (masks.enabled)
      out.push_back(alu(SimOp::CompareNe, -1, mask_src(ins, ops[3], masks), imm_src(0)));
    else if (!is_vcc(ops[3]))
      unsupported(ins, "a select on a mask other than vcc");
    select(out, ops[0].reg, src_of(ops[1]), src_of(ops[2]), masks);
    return out;
  }
  if (!masks.enabled) return out;
  if (starts(m, "v_cmp_")) {
    SimOp op = starts(m, "v_cmp_eq_u32") || starts(m, "v_cmp_eq_i32") ? SimOp::CompareEq
               : starts(m, "v_cmp_ne_u32") || starts(m, "v_cmp_ne_i32") || starts(m, "v_cmp_lg_u32") ||
                       starts(m, "v_cmp_lg_i32")
                   ? SimOp::CompareNe
                   : SimOp::Nop;
    if (op == SimOp::Nop) unsupported(ins, "only equality comparisons are simulated");
    if (ops.size() != 3) unsupported(ins, "expected MASK, A, B");
    out.push_back(alu(op, -1, src_of(ops[1]), src_of(ops[2])));
    out.push_back(alu(SimOp::Select, mask_dst(ins, ops[0], masks), {}));
    return out;
  }
  if (starts(m, "v_cmpx_")) return lower_cmpx(code, i, masks);
  if (m == "s_cbranch_vccnz" || m == "s_cbranch_vccz") {
    out.push_back(
        alu(m == "s_cbranch_vccnz" ? SimOp::CompareNe : SimOp::CompareEq, -1, vgpr_src(masks.vgpr(-1)), imm_src(0)));
    SimInstruction b;
    b.op = SimOp::BranchVcc;
    out.push_back(b);
    return out;
  }
  if (m == "s_cbranch_execz" || m == "s_cbranch_execnz") {
    SimInstruction b;
    if (m == "s_cbranch_execnz") {
      b.op = SimOp::Branch;  // exec is 1 wherever code runs
    } else if (masks.execz_mask) {
      out.push_back(alu(SimOp::CompareEq, -1, *masks.execz_mask, imm_src(0)));
      b.op = SimOp::BranchVcc;
    }  // else: exec is 1 here, the branch is never taken (a Nop)
    masks.execz_mask.reset();
    out.push_back(b);
    return out;
  }
  masks.execz_mask.reset();
  if (m == "s_and_saveexec_b64" || m == "s_and_saveexec_b32") {
    const bool wave32 = m == "s_and_saveexec_b32";
    if (ops.size() != 2) unsupported(ins, "expected s_and_saveexec D, M");
    // The if-then shape: s_cbranch_execz L next, and L followed by s_or_b64 exec, exec, D
    // (s_or_b32 exec_lo, exec_lo, D).
    bool shaped = false;
    if (i + 1 < code.size() && code[i + 1].mnemonic == "s_cbranch_execz" && !code[i + 1].operands.empty()) {
      const std::string label = code[i + 1].operands.back().name + ":";
      const char* exec = wave32 ? "exec_lo" : "exec";
      for (std::size_t j = 0; j + 1 < code.size(); ++j)
        if (code[j].mnemonic == label) {
          const Instruction& r = code[j + 1];
          shaped = r.mnemonic == (wave32 ? "s_or_b32" : "s_or_b64") && r.operands.size() == 3 &&
                   is_special(r.operands[0], exec) && is_special(r.operands[1], exec) && r.operands[2] == ops[0];
        }
    }
    if (!shaped || ops[0].kind != Operand::Kind::Sgpr)
      unsupported(ins, "exec masking other than s_and_saveexec + s_cbranch_execz + s_or exec restore");
    masks.saved_exec.insert(ops[0].reg);
    out.push_back(alu(SimOp::Or, mask_dst(ins, ops[0], masks), imm_src(1), imm_src(0)));  // exec was 1
    masks.execz_mask = mask_src(ins, ops[1], masks);
    return out;
  }
  if (!ops.empty() && is_exec(ops[0])) {
    if ((m == "s_or_b64" || m == "s_or_b32") && ops.size() == 3 && is_exec(ops[1]) &&
        ops[2].kind == Operand::Kind::Sgpr && masks.saved_exec.count(ops[2].reg)) {
      out.emplace_back();  // the restore: exec is 1 again
      return out;
    }
    unsupported(ins, "exec masking other than s_and_saveexec + s_cbranch_execz + s_or exec restore");
  }
  // Wave32: a 32-bit scalar operation is on lane masks where it names vcc_lo, exec_lo or an
  // SGPR that holds a mask; other 32-bit scalar operations are not lane masks.
  const bool wave32_mask =
      ends(m, "_b32") && std::any_of(ops.begin(), ops.end(), [&](const Operand& o) {
        return is_vcc(o) || is_exec(o) || (o.kind == Operand::Kind::Sgpr && o.count == 1 && masks.slot.count(o.reg));
      });
  struct Logic {
    const char* mnemonic;
    SimOp op;
    bool invert_b;
  };
  static const Logic kLogic[] = {
      {"s_and_b64", SimOp::And, false},     {"s_or_b64", SimOp::Or, false},    {"s_xor_b64", SimOp::Xor, false},
      {"s_andn2_b64", SimOp::And, true},    {"s_orn2_b64", SimOp::Or, true},   {"s_and_not1_b64", SimOp::And, true},
      {"s_or_not1_b64", SimOp::Or, true},   {"s_and_b32", SimOp::And, false},  {"s_or_b32", SimOp::Or, false},
      {"s_xor_b32", SimOp::Xor, false},     {"s_andn2_b32", SimOp::And, true}, {"s_orn2_b32", SimOp::Or, true},
      {"s_and_not1_b32", SimOp::And, true}, {"s_or_not1_b32", SimOp::Or, true}};
  for (const Logic& l : kLogic) {
    if (m != l.mnemonic || (ends(m, "_b32") && !wave32_mask)) continue;
    if (ops.size() != 3) unsupported(ins, "expected D, A, B");
    Src b = mask_src(ins, ops[2], masks);
    if (l.invert_b) {
      out.push_back(alu(SimOp::Xor, masks.temp, b, imm_src(1)));
      b = vgpr_src(masks.temp);
    }
    out.push_back(alu(l.op, mask_dst(ins, ops[0], masks), mask_src(ins, ops[1], masks), b));
    return out;
  }
  if (!wave32_mask)
    if (std::optional<SimInstruction> s = scalar_logic(ins)) {
      out.push_back(*s);
      return out;
    }
  if (m == "s_not_b64" || (m == "s_not_b32" && wave32_mask)) {
    if (ops.size() != 2) unsupported(ins, "expected D, A");
    out.push_back(alu(SimOp::Xor, mask_dst(ins, ops[0], masks), mask_src(ins, ops[1], masks), imm_src(1)));
    return out;
  }
  if (m == "s_mov_b32" && wave32_mask) {
    if (ops.size() != 2) unsupported(ins, "expected D, A");
    if (is_exec(ops[1]) && ops[0].kind == Operand::Kind::Sgpr) masks.saved_exec.insert(ops[0].reg);
    out.push_back(alu(SimOp::Or, mask_dst(ins, ops[0], masks), mask_src(ins, ops[1], masks), imm_src(0)));
    return out;
  }
  if (m == "s_mov_b64") {
    if (ops.size() != 2) unsupported(ins, "expected D, A");
    bool mask = ops[0].kind == Operand::Kind::Special || ops[1].kind == Operand::Kind::Special ||
                (ops[1].kind == Operand::Kind::Sgpr && masks.slot.count(ops[1].reg));
    if (mask) {
      if (is_exec(ops[1]) && ops[0].kind == Operand::Kind::Sgpr) masks.saved_exec.insert(ops[0].reg);
      out.push_back(alu(SimOp::Or, mask_dst(ins, ops[0], masks), mask_src(ins, ops[1], masks), imm_src(0)));
      return out;
    }
    if (ops[0].kind != Operand::Kind::Sgpr || ops[1].kind != Operand::Kind::Sgpr)
      unsupported(ins, "expected two SGPR pairs");
    for (int k = 0; k < 2; ++k) out.push_back(alu(SimOp::Move, ops[0].reg + k, {RegFile::Sgpr, ops[1].reg + k, 0}));
    return out;  // SGPR moves: their text starts with s_, which the simulator reads as an SGPR destination
  }
  if ((starts(m, "v_add_co_") || starts(m, "v_addc_") || starts(m, "v_sub_co_") || starts(m, "v_subb_") ||
       starts(m, "v_subrev_co_")))
    unsupported(ins, "carries are not simulated in code that keeps lane masks");
  if (starts(m, "s_") && m.size() > 4 && m.substr(m.size() - 4) == "_b64")
    unsupported(ins, "a 64-bit scalar operation the simulator does not model");
  return out;
}

}  // namespace

std::string text(const SimInstruction& ins) { return ins.source ? codegen::print(*ins.source) : std::string(); }
std::string_view row(const SimInstruction& ins) { return ins.source ? std::string_view(ins.source->origin.row) : ""; }

namespace {

// The target's description, as lower_one reads it.
struct TargetModels {
  const codegen::CounterModel& counters;
  const codegen::MemoryHierarchy& caches;
};

TargetModels target_models(const codegen::CompiledTest& compiled) {
  const codegen::Target* target = codegen::TargetCatalog::builtin().find(compiled.target);
  if (!target) throw std::runtime_error(fmt::format("the simulator does not know target '{}'", compiled.target));
  TargetModels out{codegen::counter_model(*target), codegen::memory_hierarchy(*target)};
  if (out.counters.names.size() > kCounters)
    throw std::logic_error("a counter model with more counters than the simulator");
  return out;
}

// One thread of `p` (whose locations are set) from its compiled code.
SimThread lower_thread(const litmus::Test& test, const codegen::CompiledThread& ct, const Generation& gen,
                       const SimProgram& p) {
  SimThread t;
  std::map<std::string, int> labels;
  std::vector<std::string> branch_label;  // per SimInstruction: the label a branch names
  // Scratch VGPRs for lane masks and selects sit above every register the program names.
  Masks masks;
  masks.enabled = uses_masks(ct.code);
  int top = ct.vgprs;
  for (const Instruction& ins : ct.code)
    for (const Operand& o : ins.operands)
      if (o.kind == Operand::Kind::Vgpr) top = std::max(top, o.reg + o.count);
  for (const auto& [r, v] : ct.registers) top = std::max(top, v + 1);
  masks.temp = top;
  masks.next = top + 2;
  for (std::size_t i = 0; i < ct.code.size(); ++i) {
    const Instruction& ins = ct.code[i];
    if (ins.kind() == InstrClass::Label) {
      labels[ins.mnemonic.substr(0, ins.mnemonic.size() - 1)] = static_cast<int>(t.code.size());
      continue;
    }
    std::vector<SimInstruction> steps = lower_extended(ct.code, i, masks);
    if (steps.empty()) steps.push_back(lower_one(ins, gen));
    for (SimInstruction& s : steps) {
      bool branch = s.op == SimOp::Branch || s.op == SimOp::BranchVcc;
      branch_label.push_back(branch && !ins.operands.empty() ? ins.operands.back().name : "");
      s.source = &ins;
      s.litmus_instruction = ins.origin.instruction;
      t.code.push_back(std::move(s));
    }
  }
  for (std::size_t i = 0; i < t.code.size(); ++i) {
    SimInstruction& s = t.code[i];
    if (s.op != SimOp::Branch && s.op != SimOp::BranchVcc) continue;
    auto it = labels.find(branch_label[i]);
    if (it == labels.end()) throw std::runtime_error(fmt::format("branch to unknown label '{}'", branch_label[i]));
    s.target = it->second;
  }
  for (const auto& [r, v] : ct.registers) t.registers.emplace_back(r, v);
  t.vgprs = ct.vgprs + 4;
  t.sgprs = std::max(ct.sgprs, 2) + 8;
  // Locations this thread reads through the L1 (candidates for spontaneous fills).
  const litmus::Thread& lt = test.threads[static_cast<std::size_t>(ct.thread)];
  for (const litmus::Instruction& li : lt.code)
    if (li.is_memory_access() && li.addr.base.is_location()) {
      auto it = std::find(p.locations.begin(), p.locations.end(), li.addr.base.name);
      int loc = static_cast<int>(it - p.locations.begin());
      if (!p.group[static_cast<std::size_t>(loc)] &&
          std::find(t.non_glc_loads.begin(), t.non_glc_loads.end(), loc) == t.non_glc_loads.end())
        t.non_glc_loads.push_back(loc);
    }
  return t;
}

// FLAT instructions cannot reach the LDS in the simulator.
void refuse_generic_group_accesses(const SimProgram& p, const codegen::CompiledTest& compiled) {
  if (compiled.generic && std::find(p.group.begin(), p.group.end(), true) != p.group.end())
    throw std::runtime_error(
        "the simulator does not model flat accesses to the group segment (--generic with group locations)");
}

}  // namespace

SimProgram lower(const litmus::Test& test, const codegen::CompiledTest& compiled) {
  SimProgram p;
  const TargetModels models = target_models(compiled);
  const Generation gen{models.counters, models.caches, models.caches.workgroup_span(compiled.flavour)};
  p.counters = models.counters.names;
  p.lds_counter = models.counters.slot(models.counters.lds_counter);
  p.locations = test.location_names();
  p.l2_maintenance = models.caches.l2_maintenance();
  p.gl1 = models.caches.has_gl1();
  p.l2_per_xcd = models.caches.several_l2s_per_agent();
  p.workgroup_span = gen.span;
  int group_index = 0;
  for (const std::string& name : p.locations) {
    bool group = test.segment_of(name) == litmus::Segment::Group;
    p.group.push_back(group);
    p.lds_slot.push_back(group ? group_index++ : -1);
    std::int64_t initial = 0;
    for (const litmus::InitEntry& e : test.init)
      if (!e.thread && e.name == name) initial = e.value.value;
    p.initial.push_back(initial);
  }
  refuse_generic_group_accesses(p, compiled);
  for (const codegen::CompiledThread& ct : compiled.threads) p.threads.push_back(lower_thread(test, ct, gen, p));
  return p;
}

bool relower_thread(SimProgram& p, const litmus::Test& test, const codegen::CompiledTest& compiled,
                    std::size_t thread) {
  // What the rest of the program was lowered from must be what this test says.
  if (thread >= p.threads.size() || thread >= compiled.threads.size() || test.location_names() != p.locations)
    return false;
  const TargetModels models = target_models(compiled);
  const Generation gen{models.counters, models.caches, models.caches.workgroup_span(compiled.flavour)};
  if (gen.span != p.workgroup_span || models.counters.names != p.counters) return false;
  refuse_generic_group_accesses(p, compiled);
  p.threads[thread] = lower_thread(test, compiled.threads[thread], gen, p);
  return true;
}

bool wait_passes(const SimInstruction& wait, const std::array<int, kCounters>& outstanding) {
  for (std::size_t c = 0; c < kCounters; ++c)
    if (wait.bounds[c] >= 0 && outstanding[c] > wait.bounds[c]) return false;
  return true;
}

bool wait_completes(const SimInstruction& wait, std::uint8_t counters, const std::array<int, kCounters>& after,
                    int lds_counter, bool thread_has_flat) {
  for (std::size_t c = 0; c < kCounters; ++c) {
    const int bound = wait.bounds[c];
    if (!(counters >> c & 1) || bound < 0) continue;
    if (static_cast<int>(c) == lds_counter && thread_has_flat && bound != 0) continue;
    if (after[c] >= bound) return true;
  }
  return false;
}

namespace {

// The VGPRs an instruction reads (its sources, address, data and compare registers) and
// writes (its destination, unless that is SGPRs).
struct VgprUse {
  std::vector<int> read, written;
};
VgprUse vgpr_use(const SimInstruction& ins) {
  VgprUse u;
  auto add = [](std::vector<int>& to, int first, int count) {
    for (int r = first; first >= 0 && r < first + count; ++r) to.push_back(r);
  };
  for (const Src* src : {&ins.a, &ins.b, &ins.base, &ins.offset})
    if (src->file == RegFile::Vgpr) add(u.read, src->reg, src == &ins.base && ins.form == AddressForm::Flat ? 2 : 1);
  add(u.read, ins.data, ins.width);
  add(u.read, ins.compare, ins.width);
  const bool scalar_destination =
      ins.op == SimOp::ScalarLoad || (ins.op == SimOp::Move && ins.source && ins.source->mnemonic.rfind("s_", 0) == 0);
  if (!scalar_destination) add(u.written, ins.dst, std::max(ins.width, ins.dst_count));
  return u;
}

bool is_memory(SimOp op) {
  return op == SimOp::VectorLoad || op == SimOp::VectorStore || op == SimOp::VectorAtomic || op == SimOp::LdsLoad ||
         op == SimOp::LdsStore || op == SimOp::LdsAtomic;
}

// The VGPRs a memory operation writes when it completes (none for stores).
std::pair<int, int> result_registers(const SimInstruction& ins) {
  if (ins.dst < 0 || ins.op == SimOp::VectorStore || ins.op == SimOp::LdsStore) return {-1, 0};
  return {ins.dst, ins.width};
}

}  // namespace

std::optional<std::string> register_hazard(const SimProgram& program, std::size_t thread) {
  const SimThread& th = program.threads.at(thread);
  const bool has_flat = std::any_of(th.code.begin(), th.code.end(), [](const SimInstruction& i) { return i.flat; });
  // A path's state: its pc and the operations not known complete (instruction indices, in
  // issue order).
  using Local = std::pair<int, std::vector<int>>;
  constexpr std::size_t kMaxLocal = 1 << 14, kMaxOutstanding = 64;
  std::set<Local> seen;
  std::vector<Local> work{{0, {}}};
  auto where = [&](int pc) { return fmt::format("`{}`", text(th.code[static_cast<std::size_t>(pc)])); };
  while (!work.empty()) {
    Local local = std::move(work.back());
    work.pop_back();
    if (!seen.insert(local).second) continue;
    if (seen.size() > kMaxLocal)
      return fmt::format("P{}: more than {} states of its code and its outstanding operations", thread, kMaxLocal);
    auto& [pc, outstanding] = local;
    if (pc < 0 || pc >= static_cast<int>(th.code.size())) continue;
    const SimInstruction& ins = th.code[static_cast<std::size_t>(pc)];
    const VgprUse use = vgpr_use(ins);
    for (int o : outstanding) {
      auto [first, count] = result_registers(th.code[static_cast<std::size_t>(o)]);
      for (const auto& [regs, verb] : {std::pair{&use.read, "reads"}, std::pair{&use.written, "overwrites"}})
        for (int r : *regs)
          if (r >= first && r < first + count)
            return fmt::format("P{}: {} {} v{} before {} has completed", thread, where(pc), verb, r, where(o));
    }
    switch (ins.op) {
      case SimOp::Wait: {
        std::vector<int> left;
        for (std::size_t i = 0; i < outstanding.size(); ++i) {
          const SimInstruction& earlier = th.code[static_cast<std::size_t>(outstanding[i])];
          std::array<int, kCounters> after{};
          for (std::size_t j = i + 1; j < outstanding.size(); ++j)
            for (std::size_t c = 0; c < kCounters; ++c)
              after[c] += th.code[static_cast<std::size_t>(outstanding[j])].counters >> c & 1;
          if (!wait_completes(ins, earlier.counters, after, program.lds_counter, has_flat))
            left.push_back(outstanding[i]);
        }
        work.emplace_back(pc + 1, std::move(left));
        break;
      }
      case SimOp::End: break;
      case SimOp::Branch: work.emplace_back(ins.target, std::move(outstanding)); break;
      case SimOp::BranchVcc:
        work.emplace_back(ins.target, outstanding);
        work.emplace_back(pc + 1, std::move(outstanding));
        break;
      default:
        if (is_memory(ins.op)) {
          if (outstanding.size() >= kMaxOutstanding)
            return fmt::format("P{}: more than {} operations outstanding", thread, kMaxOutstanding);
          outstanding.push_back(pc);
        }
        work.emplace_back(pc + 1, std::move(outstanding));
    }
  }
  return std::nullopt;
}

}  // namespace hsalit::runner::detail

namespace hsalit::runner {

std::vector<std::string> register_hazards(const LoweredProgram& lowered) {
  std::vector<std::string> out;
  for (std::size_t t = 0; t < lowered.program().threads.size(); ++t)
    if (auto hazard = detail::register_hazard(lowered.program(), t)) out.push_back(std::move(*hazard));
  return out;
}

}  // namespace hsalit::runner
