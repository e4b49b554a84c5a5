// The GCN/CDNA/RDNA instruction IR: the instructions a litmus thread needs (memory
// operations with their cache-policy bits, wait counters, cache maintenance, barriers, ALU
// and branches), printed in LLVM's AMDGPU assembly syntax and parsed back from it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hsalit::codegen {

// What an instruction does, as far as the memory model and the simulator care.
enum class InstrClass : std::uint8_t {
  VectorLoad,       // buffer_/global_/flat_load_*
  VectorStore,      // buffer_/global_/flat_store_*
  VectorAtomic,     // buffer_/global_/flat_atomic_*
  LdsLoad,          // ds_read_*, ds_load_*
  LdsStore,         // ds_write_*, ds_store_*
  LdsAtomic,        // ds_add_*, ds_wrxchg_*, ds_cmpst_*, ...
  ScalarLoad,       // s_load_*
  Wait,             // s_waitcnt, s_waitcnt_vscnt, s_wait_* (gfx12)
  CacheInvalidate,  // buffer_wbinvl1(_vol), buffer_inv, buffer_invl2, buffer_gl0_inv, buffer_gl1_inv, global_inv
  CacheWriteback,   // buffer_wbl2, global_wb
  Barrier,          // s_barrier (and s_barrier_signal/wait on gfx12)
  Alu,              // v_*, s_* arithmetic and moves
  Branch,           // s_branch, s_cbranch_*
  Label,            // `NAME:`
  EndProgram,       // s_endpgm
  Other,
};
std::string_view to_string(InstrClass c);
InstrClass classify(std::string_view mnemonic);

struct Operand {
  enum class Kind : std::uint8_t { Vgpr, Sgpr, Immediate, Off, Special, Label };
  Kind kind = Kind::Immediate;
  int reg = 0;    // first register
  int count = 1;  // registers in a range: v[2:3] has count 2
  std::int64_t imm = 0;
  std::string name;  // Special (vcc, exec, null, m0) or Label

  static Operand vgpr(int r, int count = 1) { return {Kind::Vgpr, r, count, 0, {}}; }
  static Operand sgpr(int r, int count = 1) { return {Kind::Sgpr, r, count, 0, {}}; }
  static Operand immediate(std::int64_t v) { return {Kind::Immediate, 0, 1, v, {}}; }
  static Operand off() { return {Kind::Off, 0, 1, 0, {}}; }
  static Operand special(std::string n) { return {Kind::Special, 0, 1, 0, std::move(n)}; }
  static Operand label(std::string n) { return {Kind::Label, 0, 1, 0, std::move(n)}; }
  friend bool operator==(const Operand&, const Operand&) = default;
};

// Cache-policy bits of a memory instruction, per generation: glc/slc (GFX6-GFX9), dlc
// (GFX10-GFX11), sc0/sc1/nt (GFX940-GFX950), th/scope (GFX12).
struct CachePolicy {
  bool glc = false, slc = false, dlc = false;
  bool sc0 = false, sc1 = false, nt = false;
  std::string th;     // gfx12 temporal hint, e.g. TH_LOAD_NT, TH_ATOMIC_RETURN
  std::string scope;  // gfx12 scope, e.g. SCOPE_SE, SCOPE_DEV, SCOPE_SYS
  friend bool operator==(const CachePolicy&, const CachePolicy&) = default;
  bool any() const { return glc || slc || dlc || sc0 || sc1 || nt || !th.empty() || !scope.empty(); }
  // The flag named `name` (glc, slc, dlc, sc0, sc1, nt, as tables and assembly spell them), or nullptr.
  bool* flag(std::string_view name);
  // Clears the field named `name`: a flag, or GFX12's th or scope; false for any other name.
  bool clear(std::string_view name);
};

// The counters of `s_waitcnt`; absent counters are not waited for.
struct WaitCounts {
  std::optional<int> vmcnt, expcnt, lgkmcnt;
  friend bool operator==(const WaitCounts&, const WaitCounts&) = default;
};

// Where an instruction comes from: the litmus instruction it implements and the mapping
// table row that produced it.
struct Origin {
  int thread = -1;
  int instruction = -1;  // index in the litmus thread's code
  std::string row;       // mapping table row id ("" for glue code)
  std::string role;      // "access", "before", "after" or "" for glue
  friend bool operator==(const Origin&, const Origin&) = default;
};

// A field added here goes into operator== below and into append_key (gcn.cpp).
struct Instruction {
  std::string mnemonic;  // or the label name for InstrClass::Label
  std::vector<Operand> operands;
  CachePolicy policy;
  WaitCounts wait;                     // s_waitcnt only
  std::optional<std::int64_t> offset;  // `offset:N`
  std::vector<std::string> flags;      // other bare modifiers, e.g. offen, idxen
  Origin origin;

  InstrClass kind() const { return classify(mnemonic); }
  bool is_memory() const;
  bool is_atomic() const { return kind() == InstrClass::VectorAtomic || kind() == InstrClass::LdsAtomic; }
  // Equality ignores the origin (which the assembly text carries only as a comment).
  friend bool operator==(const Instruction& a, const Instruction& b) {
    return a.mnemonic == b.mnemonic && a.operands == b.operands && a.policy == b.policy && a.wait == b.wait &&
           a.offset == b.offset && a.flags == b.flags;
  }
};

// What of an instruction's origin a key holds.
enum class KeyOrigin : std::uint8_t {
  None,         // nothing: equal keys for equal instructions (operator==)
  Instruction,  // the litmus thread and instruction it implements
  Row,          // those and the table row
};
// Appends to `key` the instruction in binary, each field length-prefixed where its size
// varies: two instructions append the same bytes exactly when they are equal and so is what
// `origin` names of their origins. A key, not a text: printing was most of the cost of
// telling codes apart (classes of a bound's slots, the simulation memo).
void append_key(std::string& key, const Instruction& ins, KeyOrigin origin);
void append_key(std::string& key, const Operand& op);

// One instruction in LLVM assembly syntax, without comment.
std::string print(const Instruction& ins);
// A whole program; with `annotate`, each instruction that has an origin gets a comment.
std::string print(const std::vector<Instruction>& program, bool annotate = true);

struct ParsedProgram {
  std::vector<Instruction> instructions;
  std::vector<std::string> errors;  // `line N: message`
};
// Parses assembly text (one instruction or label per line; `;` and `//` comments, and
// assembler directives starting with `.`, are skipped).
ParsedProgram parse_assembly(std::string_view text);
// Parses one instruction; nullopt with `error` set when malformed.
std::optional<Instruction> parse_instruction(std::string_view line, std::string& error);

}  // namespace hsalit::codegen
