// HIP inline-assembly mode: a compiled litmus thread (codegen::compile) becomes one
// `asm volatile` block, so the GPU runs exactly the mapping table's sequences with the
// compiler's register allocation and waits.
//
// Binding (docs/hardware.md, "HIP inline assembly"): the block keeps the compiled physical
// registers (declared as clobbers) and replaces the prologue's kernel-argument loads by moves
// from asm operands: the SGPR pair of a global location gets the location's uniform base, the
// zero offset VGPR gets the instance's byte offset (GLOBAL form: saddr + vaddr), an LDS base
// VGPR gets the instance's LDS address and a flat address pair the instance's pointer. After
// the body the block waits for every counter and moves the litmus registers to outputs. A
// scalar branch (s_cbranch_vcc*) assumes one active lane, so a thread with conditional
// branches runs its lanes one at a time (a readfirstlane loop).
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "hardware_internal.hpp"
#include "hsalit/codegen/target.hpp"

namespace hsalit::runner::detail {

namespace {

using codegen::InstrClass;
using codegen::Operand;

std::string label_of(const codegen::Instruction& ins) {
  std::string name = ins.mnemonic;
  if (!name.empty() && name.back() == ':') name.pop_back();
  return name;
}

std::string renamed(const std::string& label) { return fmt::format("hsalit_{}_%=", label); }

}  // namespace

std::string hip_asm_thread_body(const litmus::Test& test, const TestFacts& facts, const codegen::CompiledTest& compiled,
                                int thread) {
  const codegen::Target& target = codegen::TargetCatalog::builtin().get(compiled.target);
  if (target.global == codegen::GlobalForm::Buffer)
    throw HardwareUnsupported(
        fmt::format("{} addresses global memory with buffer resources, which the inline-assembly "
                    "harness does not bind; use --hip-builtins",
                    target.name));
  auto it = std::find_if(compiled.threads.begin(), compiled.threads.end(),
                         [&](const codegen::CompiledThread& t) { return t.thread == thread; });
  if (it == compiled.threads.end()) throw HardwareUnsupported(fmt::format("no compiled code for P{}", thread));
  const codegen::CompiledThread& ct = *it;

  std::vector<std::string> lines, inputs, outputs, setup;
  std::set<std::string> labels;
  for (const codegen::Instruction& ins : ct.code)
    if (ins.kind() == InstrClass::Label) labels.insert(label_of(ins));

  // Operands for the locations.
  struct Bound {
    const codegen::LocationBinding* binding;
    int index;
  };
  std::vector<Bound> bound;
  for (const codegen::LocationBinding& b : ct.locations) {
    int l = location_index(facts, b.name);
    bound.push_back({&b, l});
    if (b.base.kind == Operand::Kind::Sgpr) {
      setup.push_back(
          fmt::format("const unsigned long long base_{} = (unsigned long long)(size_t)e.global_base[{}];", l, l));
      inputs.push_back(fmt::format("[base{}_lo] \"s\"(__builtin_amdgcn_readfirstlane((int)(unsigned)base_{}))", l, l));
      inputs.push_back(
          fmt::format("[base{}_hi] \"s\"(__builtin_amdgcn_readfirstlane((int)(unsigned)(base_{} >> 32)))", l, l));
      lines.push_back(fmt::format("s_mov_b32 s{}, %[base{}_lo]", b.base.reg, l));
      lines.push_back(fmt::format("s_mov_b32 s{}, %[base{}_hi]", b.base.reg + 1, l));
    } else if (b.space == codegen::AddressSpace::Local) {
      inputs.push_back(fmt::format("[lds{}] \"v\"(e.lds_address[{}])", l, l));
    } else {
      setup.push_back(
          fmt::format("const unsigned long long address_{} = (unsigned long long)(size_t)e.loc[{}];", l, l));
      inputs.push_back(fmt::format("[address{}_lo] \"v\"((unsigned)address_{})", l, l));
      inputs.push_back(fmt::format("[address{}_hi] \"v\"((unsigned)(address_{} >> 32))", l, l));
    }
  }
  inputs.push_back("[offset] \"v\"(e.offset_bytes)");

  bool first = true, branches = false, uses_m0 = false;
  for (const codegen::Instruction& original : ct.code) {
    codegen::Instruction ins = original;
    InstrClass kind = ins.kind();
    bool prologue = ins.origin.role == "prologue";
    std::string text = codegen::print(ins);
    uses_m0 |= text.find("m0") != std::string::npos;
    if (kind == InstrClass::EndProgram) continue;
    if (prologue) {
      bool was_first = first;
      first = false;
      if (kind == InstrClass::ScalarLoad || kind == InstrClass::Wait) continue;
      bool move =
          ins.mnemonic == "v_mov_b32_e32" && ins.operands.size() == 2 && ins.operands[0].kind == Operand::Kind::Vgpr;
      if (move && was_first) {  // the zero offset of every GLOBAL access
        lines.push_back(fmt::format("v_mov_b32_e32 v{}, %[offset]", ins.operands[0].reg));
        continue;
      }
      bool replaced = false;
      for (const Bound& b : bound) {
        if (!move || b.binding->base.kind != Operand::Kind::Vgpr) continue;
        int dst = ins.operands[0].reg, base = b.binding->base.reg;
        if (b.binding->space == codegen::AddressSpace::Local && dst == base) {
          lines.push_back(fmt::format("v_mov_b32_e32 v{}, %[lds{}]", dst, b.index));
          replaced = true;
        } else if (b.binding->space != codegen::AddressSpace::Local && (dst == base || dst == base + 1)) {
          lines.push_back(fmt::format("v_mov_b32_e32 v{}, %[address{}_{}]", dst, b.index, dst == base ? "lo" : "hi"));
          replaced = true;
        }
      }
      if (!replaced) lines.push_back(text);
      continue;
    }
    first = false;
    if (kind == InstrClass::Label) {
      lines.push_back(renamed(label_of(ins)) + ":");
      continue;
    }
    if (kind == InstrClass::Branch) {
      if (ins.mnemonic != "s_branch") branches = true;
      for (Operand& o : ins.operands)
        if (o.kind == Operand::Kind::Label && labels.count(o.name)) o.name = renamed(o.name);
      text = codegen::print(ins);
    }
    lines.push_back(text);
  }
  // Every counter to zero before the outputs are read.
  const codegen::CounterModel& model = codegen::counter_model(target);
  std::vector<std::pair<std::string, int>> drained;
  for (const std::string& counter : model.names) drained.emplace_back(counter, 0);
  for (const codegen::Instruction& wait : model.wait_instructions(drained)) lines.push_back(codegen::print(wait));

  std::string after;
  for (const auto& [reg, vgpr] : ct.registers) {
    const auto& regs = facts.registers[static_cast<std::size_t>(thread)];
    auto r = std::find(regs.begin(), regs.end(), reg) - regs.begin();
    bool wide = r < static_cast<std::ptrdiff_t>(regs.size()) &&
                facts.wide_registers[static_cast<std::size_t>(thread)][static_cast<std::size_t>(r)];
    std::string var = register_variable(reg);
    outputs.push_back(fmt::format("[{}_lo] \"=v\"({}_lo)", var, var));
    lines.push_back(fmt::format("v_mov_b32_e32 %[{}_lo], v{}", var, vgpr));
    setup.push_back(fmt::format("unsigned {}_lo = 0;", var));
    if (wide) {
      outputs.push_back(fmt::format("[{}_hi] \"=v\"({}_hi)", var, var));
      lines.push_back(fmt::format("v_mov_b32_e32 %[{}_hi], v{}", var, vgpr + 1));
      setup.push_back(fmt::format("unsigned {}_hi = 0;", var));
      after += fmt::format("  {} = (long long)(((unsigned long long){}_hi << 32) | {}_lo);\n", var, var, var);
    } else {
      after += fmt::format("  {} = (long long)(int){}_lo;\n", var, var);
    }
  }

  std::vector<std::string> clobbers;
  for (int v = 0; v < ct.vgprs; ++v) clobbers.push_back(fmt::format("\"v{}\"", v));
  for (int s = 2; s < ct.sgprs; ++s) clobbers.push_back(fmt::format("\"s{}\"", s));
  clobbers.push_back("\"vcc\"");
  clobbers.push_back("\"scc\"");
  if (uses_m0) clobbers.push_back("\"m0\"");
  clobbers.push_back("\"memory\"");

  std::string out;
  out += fmt::format("  // P{}: {} lines of {} code (mapping table {}), registers bound through asm operands.\n",
                     thread, lines.size(), compiled.target, compiled.table);
  for (const std::string& s : setup) out += "  " + s + "\n";
  std::string indent = branches ? "      " : "  ";
  std::string block = indent + "asm volatile(\n";
  for (const std::string& l : lines) block += fmt::format("{}    \"{}\\n\\t\"\n", indent, l);
  block += fmt::format("{}    : {}\n", indent, outputs.empty() ? "" : fmt::format("{}", fmt::join(outputs, ", ")));
  block += fmt::format("{}    : {}\n", indent, fmt::join(inputs, ", "));
  block += fmt::format("{}    : {});\n", indent, fmt::join(clobbers, ", "));
  if (branches) {
    out += "  // Scalar branches assume one active lane: run the lanes one at a time.\n";
    out += "  for (;;) {\n    const int lane = (int)__lane_id();\n";
    out += "    if (__builtin_amdgcn_readfirstlane(lane) == lane) {\n";
    out += block;
    out += "      break;\n    }\n  }\n";
  } else {
    out += block;
  }
  out += after;
  (void)test;
  return out;
}

}  // namespace hsalit::runner::detail
