// llc's kernels as a CompiledTest for the simulator (llc_program.hpp).
#include "hsalit/codegen/llc_program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "hsalit/codegen/llvm_ir.hpp"

namespace hsalit::codegen {

namespace {

enum class Part : std::uint8_t { Prologue, Body, Epilogue };

struct Kernel {
  std::vector<Instruction> code;
  std::vector<Part> part;                              // per instruction
  std::vector<std::pair<std::string, Operand>> bases;  // location -> SGPR pair, from the begin marker
  std::optional<Operand> out;                          // the pair holding %out
};

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

[[noreturn]] void fail(int thread, const std::string& why) { throw CompileError(fmt::format("P{}: {}", thread, why)); }

Operand parse_register(int thread, const std::string& text) {
  std::string error;
  auto ins = parse_instruction("x " + text, error);
  if (!ins || ins->operands.size() != 1 || ins->operands[0].kind != Operand::Kind::Sgpr || ins->operands[0].count != 2)
    fail(thread, fmt::format("the begin marker names '{}', not an SGPR pair", text));
  return ins->operands[0];
}

// The kernel's function text, split like import_llc_assembly splits it (kernel_body in
// llc.cpp): before the begin marker, between the markers (up to a label after an end marker),
// after an end marker. Instructions between the markers take the origins of `tied`, in order.
Kernel read_kernel(std::string_view assembly, const std::string& name, int thread, const LlcThread& tied) {
  Kernel k;
  Part state = Part::Prologue;
  bool inside = false, begun = false, ended = false;
  std::size_t body_index = 0;
  const std::string header = name + ":";
  std::istringstream lines{std::string(assembly)};
  std::string line;
  while (std::getline(lines, line)) {
    std::string_view trimmed = line;
    trimmed.remove_prefix(std::min(trimmed.size(), trimmed.find_first_not_of(" \t")));
    if (!inside) {
      inside = starts(trimmed, header) &&
               (trimmed.size() == header.size() || trimmed[header.size()] == ' ' || trimmed[header.size()] == '\t');
      continue;
    }
    if (starts(trimmed, ".Lfunc_end") || starts(trimmed, ".end_amdhsa_kernel")) break;
    if (auto b = line.find(kBeginMarker); b != std::string::npos) {
      if (begun) fail(thread, "llc's kernel has two begin markers");
      begun = true;
      state = Part::Body;
      std::istringstream words{line.substr(b + std::string_view(kBeginMarker).size())};
      std::string w;
      while (words >> w) {
        auto eq = w.find('=');
        if (eq == std::string::npos) continue;
        if (w.substr(0, eq) == "@out")
          k.out = parse_register(thread, w.substr(eq + 1));
        else
          k.bases.emplace_back(w.substr(0, eq), parse_register(thread, w.substr(eq + 1)));
      }
      continue;
    }
    if (line.find(kEndMarker) != std::string::npos) {
      if (!begun) fail(thread, "llc's kernel has its end marker before its begin marker");
      ended = true;
      state = Part::Epilogue;
      continue;
    }
    ParsedProgram parsed = parse_assembly(line);
    if (!parsed.errors.empty())
      fail(thread, fmt::format("cannot read llc's line '{}': {}", trimmed, parsed.errors.front()));
    for (Instruction& ins : parsed.instructions) {
      if (state == Part::Epilogue && ins.kind() == InstrClass::Label) state = Part::Body;
      ins.origin = Origin{thread, -1, "", ""};
      if (state == Part::Body) {
        // The same instruction import_llc_assembly parsed, with its tie to the litmus code.
        if (body_index < tied.code.size() && tied.code[body_index] == ins) ins.origin = tied.code[body_index].origin;
        ++body_index;
      }
      k.code.push_back(std::move(ins));
      k.part.push_back(state);
    }
  }
  if (!inside) fail(thread, fmt::format("llc's output has no kernel {}", name));
  if (!begun || !ended) fail(thread, fmt::format("llc's kernel {} has no {} marker", name, begun ? "end" : "begin"));
  if (!k.out) fail(thread, "the begin marker does not name %out");
  return k;
}

// The control-flow successors of each instruction.
std::vector<std::vector<int>> successors(const std::vector<Instruction>& code, int thread) {
  std::map<std::string, int> labels;
  for (std::size_t i = 0; i < code.size(); ++i)
    if (code[i].kind() == InstrClass::Label)
      labels[code[i].mnemonic.substr(0, code[i].mnemonic.size() - 1)] = static_cast<int>(i);
  const int n = static_cast<int>(code.size());
  std::vector<std::vector<int>> out(code.size());
  for (int i = 0; i < n; ++i) {
    const Instruction& ins = code[static_cast<std::size_t>(i)];
    if (ins.kind() == InstrClass::EndProgram) continue;
    if (ins.kind() == InstrClass::Branch) {
      if (ins.operands.empty() || ins.operands.back().kind != Operand::Kind::Label)
        fail(thread, fmt::format("'{}' has no label", print(ins)));
      auto it = labels.find(ins.operands.back().name);
      if (it == labels.end()) fail(thread, fmt::format("'{}' branches to an unknown label", print(ins)));
      out[static_cast<std::size_t>(i)].push_back(it->second);
      if (ins.mnemonic == "s_branch") continue;
    }
    if (i + 1 < n) out[static_cast<std::size_t>(i)].push_back(i + 1);
  }
  return out;
}

// VGPRs an instruction writes: the first operand of anything but a store.
std::vector<int> vgpr_defs(const Instruction& ins) {
  std::vector<int> out;
  InstrClass k = ins.kind();
  if (k == InstrClass::VectorStore || k == InstrClass::LdsStore || ins.operands.empty()) return out;
  const Operand& d = ins.operands[0];
  if (d.kind == Operand::Kind::Vgpr)
    for (int r = d.reg; r < d.reg + d.count; ++r) out.push_back(r);
  return out;
}

// VGPRs an instruction reads: every VGPR operand but the written one. A MUBUF atomic
// (`buffer_atomic_cmpswap v[0:1], off, s[0:3], 0 glc`) reads its data from the registers its
// first operand names, and returns the old value into them.
std::vector<int> vgpr_uses(const Instruction& ins) {
  std::vector<int> out;
  bool has_def = !vgpr_defs(ins).empty() && !starts(ins.mnemonic, "buffer_atomic");
  for (std::size_t i = has_def ? 1 : 0; i < ins.operands.size(); ++i) {
    const Operand& o = ins.operands[i];
    if (o.kind == Operand::Kind::Vgpr)
      for (int r = o.reg; r < o.reg + o.count; ++r) out.push_back(r);
  }
  return out;
}

// Constant VGPRs before each instruction (v_mov_b32 of an immediate, forward over the control
// flow; a register is constant when every path gives it the same value).
using Constants = std::map<int, std::int64_t>;
std::vector<std::optional<Constants>> constants_before(const std::vector<Instruction>& code, int thread) {
  const auto succ = successors(code, thread);
  std::vector<std::optional<Constants>> in(code.size());
  if (code.empty()) return in;
  in[0] = Constants{};
  std::vector<int> work = {0};
  while (!work.empty()) {
    int i = work.back();
    work.pop_back();
    const Instruction& ins = code[static_cast<std::size_t>(i)];
    Constants out = *in[static_cast<std::size_t>(i)];
    std::vector<int> defs = vgpr_defs(ins);
    std::optional<std::int64_t> value;
    if (starts(ins.mnemonic, "v_mov_b32") && ins.operands.size() == 2 && defs.size() == 1) {
      const Operand& s = ins.operands[1];
      if (s.kind == Operand::Kind::Immediate) value = s.imm;
      if (s.kind == Operand::Kind::Vgpr && out.count(s.reg)) value = out[s.reg];
    }
    for (int d : defs) out.erase(d);
    if (value) out[defs[0]] = *value;
    for (int s : succ[static_cast<std::size_t>(i)]) {
      auto& target = in[static_cast<std::size_t>(s)];
      if (!target) {
        target = out;
      } else {
        Constants meet;
        for (const auto& [r, v] : *target)
          if (auto it = out.find(r); it != out.end() && it->second == v) meet[r] = v;
        if (meet == *target) continue;
        target = std::move(meet);
      }
      work.push_back(s);
    }
  }
  return in;
}

// Removes VALU instructions without side effects whose results nothing reads (`live_at_end`
// are read by s_endpgm).
void remove_dead_alu(std::vector<Instruction>& code, const std::set<int>& live_at_end, int thread) {
  static const char* const kPure[] = {"v_mov_b32",     "v_xor_b32", "v_ashrrev_i32", "v_lshrrev_b32",
                                      "v_lshlrev_b32", "v_and_b32", "v_or_b32",      "v_add_u32",
                                      "v_sub_u32",     "v_not_b32", "v_cndmask_b32"};
  auto pure = [](const Instruction& ins) {
    return std::any_of(std::begin(kPure), std::end(kPure), [&](const char* p) { return starts(ins.mnemonic, p); }) &&
           !ins.operands.empty() && ins.operands[0].kind == Operand::Kind::Vgpr;
  };
  for (bool changed = true; changed;) {
    changed = false;
    const auto succ = successors(code, thread);
    std::vector<std::set<int>> live_in(code.size());
    for (bool again = true; again;) {
      again = false;
      for (std::size_t i = code.size(); i-- > 0;) {
        std::set<int> live = code[i].kind() == InstrClass::EndProgram ? live_at_end : std::set<int>{};
        for (int s : succ[i])
          live.insert(live_in[static_cast<std::size_t>(s)].begin(), live_in[static_cast<std::size_t>(s)].end());
        for (int d : vgpr_defs(code[i])) live.erase(d);
        for (int u : vgpr_uses(code[i])) live.insert(u);
        if (live != live_in[i]) {
          live_in[i] = std::move(live);
          again = true;
        }
      }
    }
    for (std::size_t i = code.size(); i-- > 0;) {
      if (!pure(code[i])) continue;
      std::set<int> after;
      for (int s : succ[i])
        after.insert(live_in[static_cast<std::size_t>(s)].begin(), live_in[static_cast<std::size_t>(s)].end());
      std::vector<int> defs = vgpr_defs(code[i]);
      if (std::none_of(defs.begin(), defs.end(), [&](int d) { return after.count(d); })) {
        code.erase(code.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
        break;  // indices moved: recompute
      }
    }
  }
}

// Whether an operand names an SGPR of the pair that starts at `pair`.
bool touches_pair(const Operand& o, const Operand& pair) {
  return o.kind == Operand::Kind::Sgpr && o.reg < pair.reg + 2 && pair.reg < o.reg + o.count;
}

// A global store through the SGPR pair `base` (`global_store_dwordx2 vOFF, vDATA, s[B:B+1]`).
bool stores_through(const Instruction& ins, const Operand& base) {
  return ins.kind() == InstrClass::VectorStore && ins.operands.size() == 3 &&
         ins.operands[2].kind == Operand::Kind::Sgpr && ins.operands[2].reg == base.reg;
}

int max_register(const std::vector<Instruction>& code, Operand::Kind kind) {
  int top = -1;
  for (const Instruction& ins : code)
    for (const Operand& o : ins.operands)
      if (o.kind == kind) top = std::max(top, o.reg + o.count - 1);
  return top;
}

int dwords_of(const Instruction& ins) {
  const std::string& m = ins.mnemonic;
  if (m.find("dwordx4") != std::string::npos || m.find("b128") != std::string::npos) return 4;
  if (m.find("dwordx3") != std::string::npos || m.find("b96") != std::string::npos) return 3;
  if (m.find("dwordx2") != std::string::npos || m.find("b64") != std::string::npos) return 2;
  if (m.find("dword") != std::string::npos || m.find("b32") != std::string::npos) return 1;
  return 0;  // byte and short stores
}

CompiledThread convert_thread(const LlcThread& th, const LlvmKernel& kernel, const litmus::Test& test,
                              std::string_view assembly) {
  const int t = th.thread;
  Kernel k = read_kernel(assembly, kernel.name, t, th);
  const std::vector<std::string> all = test.location_names();
  auto location_index = [&](const std::string& name) {
    return static_cast<int>(std::find(all.begin(), all.end(), name) - all.begin());
  };
  CompiledThread out;
  out.thread = t;

  // 1. Kernel arguments: the prologue's scalar loads go; at the begin marker, each named pair
  // gets its location's base. When the prologue itself reads a named pair (the AMDGPU backend
  // builds buffer resources from the pointers before the marker), the pairs are also loaded at
  // the start of the kernel.
  std::vector<Instruction> base_loads;
  for (const auto& [name, pair] : k.bases) {
    int index = location_index(name);
    if (index >= static_cast<int>(all.size()))
      fail(t, fmt::format("the begin marker names an unknown location {}", name));
    LocationBinding b;
    b.name = name;
    b.space = AddressSpace::Global;
    b.base = pair;
    b.kernarg_offset = 8 * index;
    out.locations.push_back(b);
    std::string error;
    Instruction load = *parse_instruction(
        fmt::format("s_load_dwordx2 s[{}:{}], s[0:1], {}", pair.reg, pair.reg + 1, 8 * index), error);
    load.origin = Origin{t, -1, "", ""};
    base_loads.push_back(std::move(load));
  }
  auto reads_a_base = [&](const Instruction& ins) {
    for (std::size_t o = 1; o < ins.operands.size(); ++o)
      for (const auto& [name, pair] : k.bases)
        if (touches_pair(ins.operands[o], pair)) return true;
    return false;
  };
  std::vector<Instruction> code;
  std::vector<Part> part;
  for (std::size_t i = 0; i < k.code.size() && k.part[i] == Part::Prologue; ++i)
    if (k.code[i].kind() != InstrClass::ScalarLoad && reads_a_base(k.code[i])) {
      code = base_loads;
      part.assign(code.size(), Part::Prologue);
      break;
    }
  bool inserted = false;
  for (std::size_t i = 0; i < k.code.size(); ++i) {
    const Instruction& ins = k.code[i];
    if (k.part[i] != Part::Prologue && !inserted) {
      code.insert(code.end(), base_loads.begin(), base_loads.end());
      part.insert(part.end(), base_loads.size(), Part::Prologue);
      inserted = true;
    }
    if (ins.kind() == InstrClass::ScalarLoad) {
      if (k.part[i] == Part::Prologue) continue;  // a kernel-argument load
      fail(t, fmt::format("a scalar load after the begin marker: '{}'", print(ins)));
    }
    code.push_back(ins);
    part.push_back(k.part[i]);
  }
  // %out must stay where the marker says until the last result is stored through it (llc reuses
  // its SGPRs, for a buffer resource say, when the thread stores no result).
  std::optional<std::size_t> overwritten;
  for (std::size_t i = 0; i < code.size(); ++i) {
    if (overwritten && stores_through(code[i], *k.out))
      fail(t, fmt::format("'{}' overwrites the SGPRs of %out before a result is stored", print(code[*overwritten])));
    if (overwritten || part[i] == Part::Prologue || code[i].operands.empty() || code[i].is_memory()) continue;
    const Operand& d = code[i].operands[0];
    if (touches_pair(d, *k.out)) overwritten = i;
  }

  // 2. Results and LDS addresses, from the constants in VGPRs.
  const auto constants = constants_before(code, t);
  const int result_base = std::max(max_register(code, Operand::Kind::Vgpr) + 1, 0);
  std::set<int> stored_slots;
  std::map<std::int64_t, std::string> lds_at;  // llc's LDS byte address -> location
  struct LdsUse {
    std::size_t index;
    std::int64_t base, address;
  };
  std::vector<LdsUse> lds;
  std::vector<Instruction> rewritten;
  std::vector<Part> rewritten_part;
  bool after_result_store = false;
  for (std::size_t i = 0; i < code.size(); ++i) {
    Instruction ins = code[i];
    const std::optional<Constants>& known = constants[i];
    auto constant = [&](const Operand& o) -> std::optional<std::int64_t> {
      if (o.kind == Operand::Kind::Off) return 0;
      if (o.kind != Operand::Kind::Vgpr || o.count != 1 || !known) return std::nullopt;
      auto it = known->find(o.reg);
      return it == known->end() ? std::nullopt : std::optional<std::int64_t>(it->second);
    };
    InstrClass kind = ins.kind();
    bool out_store = stores_through(ins, *k.out);
    if (out_store) {
      std::optional<std::int64_t> voffset = constant(ins.operands[0]);
      if (!voffset) fail(t, fmt::format("'{}': the offset into %out is not a constant", print(ins)));
      const Operand& data = ins.operands[1];
      int dwords = dwords_of(ins);
      if (dwords == 0 || data.kind != Operand::Kind::Vgpr || data.count != dwords)
        fail(t, fmt::format("'{}': not a store of whole dwords to %out", print(ins)));
      std::int64_t address = *voffset + ins.offset.value_or(0);
      for (int d = 0; d < dwords; ++d) {
        std::int64_t byte = address + 4 * d;
        if (byte % 8 != 0) continue;  // the high dword: the sign extension
        int slot = static_cast<int>(byte / 8);
        if (slot < 0 || slot >= static_cast<int>(kernel.results.size()))
          fail(t, fmt::format("'{}' stores outside the result slots", print(ins)));
        stored_slots.insert(slot);
        Instruction move;
        move.mnemonic = "v_mov_b32_e32";
        move.operands = {Operand::vgpr(result_base + slot), Operand::vgpr(data.reg + d)};
        move.origin = Origin{t, -1, "", "result"};
        rewritten.push_back(std::move(move));
        rewritten_part.push_back(part[i]);
      }
      after_result_store = true;
      continue;
    }
    if (part[i] == Part::Epilogue && ins.is_memory())
      fail(t, fmt::format("a memory instruction after the end marker that is not a result store: '{}'", print(ins)));
    if (after_result_store && kind == InstrClass::Wait && ins.wait.vmcnt) ins.wait.vmcnt = 0;
    if (kind == InstrClass::LdsLoad || kind == InstrClass::LdsStore || kind == InstrClass::LdsAtomic) {
      const Operand* address = kind == InstrClass::LdsStore ? (ins.operands.empty() ? nullptr : &ins.operands[0])
                                                            : (ins.operands.size() < 2 ? nullptr : &ins.operands[1]);
      std::optional<std::int64_t> base = address ? constant(*address) : std::nullopt;
      if (!base) fail(t, fmt::format("'{}': the LDS address is not a constant", print(ins)));
      std::int64_t byte = *base + ins.offset.value_or(0);
      if (ins.origin.role == "access" && ins.origin.instruction >= 0) {
        const std::string& loc = test.threads[static_cast<std::size_t>(t)]
                                     .code[static_cast<std::size_t>(ins.origin.instruction)]
                                     .addr.base.name;
        auto [it, fresh] = lds_at.emplace(byte, loc);
        if (!fresh && it->second != loc)
          fail(t, fmt::format("LDS byte {} holds both {} and {} in llc's code", byte, it->second, loc));
      }
      lds.push_back({rewritten.size(), *base, byte});
    }
    rewritten.push_back(std::move(ins));
    rewritten_part.push_back(part[i]);
  }
  // Group locations the thread names: the fallback for an LDS instruction no tie located.
  std::vector<std::string> group_used;
  for (const litmus::Instruction& li : test.threads[static_cast<std::size_t>(t)].code)
    if (li.is_memory_access() && li.addr.base.is_location() &&
        test.segment_of(li.addr.base.name) == litmus::Segment::Group &&
        std::find(group_used.begin(), group_used.end(), li.addr.base.name) == group_used.end())
      group_used.push_back(li.addr.base.name);
  for (const LdsUse& u : lds) {
    Instruction& ins = rewritten[u.index];
    std::string loc;
    if (auto it = lds_at.find(u.address); it != lds_at.end())
      loc = it->second;
    else if (group_used.size() == 1)
      loc = group_used.front();
    else
      fail(t, fmt::format("'{}': cannot tell which group location LDS byte {} holds", print(ins), u.address));
    int slot = 0;
    for (const std::string& other : all) {
      if (other == loc) break;
      if (test.segment_of(other) == litmus::Segment::Group) ++slot;
    }
    // The simulator's layout: 8 bytes per group location, in the order the test names them.
    ins.offset = 8 * slot - u.base;
    if (std::none_of(out.locations.begin(), out.locations.end(),
                     [&](const LocationBinding& b) { return b.name == loc; })) {
      LocationBinding b;
      b.name = loc;
      b.space = AddressSpace::Local;
      b.base = ins.kind() == InstrClass::LdsStore ? ins.operands[0] : ins.operands[1];
      b.lds_offset = 8 * slot;
      out.locations.push_back(b);
    }
  }
  for (std::size_t slot = 0; slot < kernel.results.size(); ++slot) {
    if (!stored_slots.count(static_cast<int>(slot)))
      fail(t, fmt::format("llc's code never stores register {} to %out", kernel.results[slot]));
    out.registers[kernel.results[slot]] = result_base + static_cast<int>(slot);
  }

  // 3. What only fed the removed stores' high dwords goes.
  std::set<int> results;
  for (const auto& [name, reg] : out.registers) results.insert(reg);
  remove_dead_alu(rewritten, results, t);
  out.code = std::move(rewritten);
  out.vgprs = max_register(out.code, Operand::Kind::Vgpr) + 1;
  for (const auto& [name, reg] : out.registers) out.vgprs = std::max(out.vgprs, reg + 1);
  out.sgprs = max_register(out.code, Operand::Kind::Sgpr) + 1;
  return out;
}

}  // namespace

CompiledTest to_compiled_test(const LlcResult& llc, const litmus::Test& test) {
  // The kernels' shapes (names, result slots) as emit_llvm_ir wrote them; they do not depend on
  // the IR options.
  LlvmModule module = emit_llvm_ir(test);
  CompiledTest out;
  out.test = test.name;
  out.target = llc.target;
  out.table = llc.llc;
  out.flavour = fmt::format("LLVM {}", llc.llvm_version);
  for (const LlcThread& th : llc.threads) {
    auto kernel = std::find_if(module.kernels.begin(), module.kernels.end(),
                               [&](const LlvmKernel& k) { return k.thread == th.thread; });
    if (kernel == module.kernels.end()) throw CompileError(fmt::format("P{}: no kernel for the thread", th.thread));
    out.threads.push_back(convert_thread(th, *kernel, test, llc.assembly));
  }
  return out;
}

}  // namespace hsalit::codegen
