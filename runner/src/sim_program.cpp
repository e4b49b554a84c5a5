#include "sim_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace hsalit::runner::detail {

using codegen::InstrClass;
using codegen::Instruction;
using codegen::Operand;

namespace {

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

SimInstruction lower_memory(const Instruction& ins) {
  SimInstruction s;
  const std::string& m = ins.mnemonic;
  InstrClass k = ins.kind();
  std::vector<Operand> ops = ins.operands;
  s.width = (contains(m, "x2") || contains(m, "b64") || contains(m, "u64")) ? 2 : 1;
  s.imm_offset = ins.offset.value_or(0);
  s.bypass_l1 = ins.policy.glc || ins.policy.sc0 || ins.policy.sc1 || ins.policy.nt ||
                (!ins.policy.scope.empty() && ins.policy.scope != "SCOPE_CU");
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

SimInstruction lower_one(const Instruction& ins) {
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
      s.op = SimOp::Wait;
      if (m == "s_waitcnt") {
        if (ins.wait.vmcnt) s.vmcnt = *ins.wait.vmcnt;
        if (ins.wait.lgkmcnt) s.lgkmcnt = *ins.wait.lgkmcnt;
        if (!ins.wait.vmcnt && !ins.wait.lgkmcnt && !ins.wait.expcnt && !ins.operands.empty() &&
            ins.operands[0].kind == Operand::Kind::Immediate && ins.operands[0].imm == 0)
          s.vmcnt = s.lgkmcnt = 0;
        return s;
      }
      if (m == "s_waitcnt_vscnt" || m == "s_wait_storecnt" || m == "s_wait_loadcnt" || m == "s_wait_storecnt_dscnt" ||
          m == "s_wait_loadcnt_dscnt") {
        s.vmcnt = v.empty() ? 0 : static_cast<int>(v.back().imm);
        if (contains(m, "dscnt")) s.lgkmcnt = s.vmcnt;
        return s;
      }
      if (m == "s_wait_dscnt" || m == "s_wait_kmcnt") {
        s.lgkmcnt = v.empty() ? 0 : static_cast<int>(v.back().imm);
        return s;
      }
      s.op = SimOp::Nop;  // counters the model does not track (samples, BVH, exports)
      return s;
    case InstrClass::CacheInvalidate:
      // Vector L1 (GFX6-GFX9 buffer_wbinvl1*, GFX940 buffer_inv, GFX10+ GL0, GFX12 global_inv).
      s.op = (m == "buffer_invl2" || m == "buffer_gl1_inv") ? SimOp::Nop : SimOp::InvalidateL1;
      return s;
    case InstrClass::CacheWriteback:
      s.op = SimOp::Nop;  // the L2 is the point of coherence in this model (docs/simulator.md)
      return s;
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
      s.text = v.empty() ? "" : ins.operands.back().name;  // the label, resolved by the caller
      return s;
    case InstrClass::VectorLoad:
    case InstrClass::VectorStore:
    case InstrClass::VectorAtomic:
    case InstrClass::LdsLoad:
    case InstrClass::LdsStore:
    case InstrClass::LdsAtomic: return lower_memory(ins);
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
  unsupported(ins, "not an instruction the code generator emits");
}

}  // namespace

SimProgram lower(const litmus::Test& test, const codegen::CompiledTest& compiled) {
  SimProgram p;
  p.locations = test.location_names();
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
  if (compiled.generic)
    for (bool g : p.group)
      if (g)
        throw std::runtime_error(
            "the simulator does not model flat accesses to the group segment (--generic with group locations)");
  for (const codegen::CompiledThread& ct : compiled.threads) {
    SimThread t;
    std::map<std::string, int> labels;
    for (const Instruction& ins : ct.code) {
      if (ins.kind() == InstrClass::Label) {
        labels[ins.mnemonic.substr(0, ins.mnemonic.size() - 1)] = static_cast<int>(t.code.size());
        continue;
      }
      SimInstruction s = lower_one(ins);
      std::string label = (s.op == SimOp::Branch || s.op == SimOp::BranchVcc) ? s.text : "";
      s.text = codegen::print(ins);
      s.row = ins.origin.row;
      s.litmus_instruction = ins.origin.instruction;
      if (!label.empty()) s.text += "\n" + label;  // resolved below
      t.code.push_back(std::move(s));
    }
    for (SimInstruction& s : t.code) {
      if (s.op != SimOp::Branch && s.op != SimOp::BranchVcc) continue;
      auto nl = s.text.find('\n');
      std::string label = s.text.substr(nl + 1);
      s.text = s.text.substr(0, nl);
      auto it = labels.find(label);
      if (it == labels.end()) throw std::runtime_error(fmt::format("branch to unknown label '{}'", label));
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
    p.threads.push_back(std::move(t));
  }
  return p;
}

}  // namespace hsalit::runner::detail
