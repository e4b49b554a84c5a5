// Target descriptions (codegen/targets.json): per AMDGPU processor, the instruction forms and
// names of its generation, the mapping table that applies, and which Debian LLVM assembles it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hsalit/codegen/gcn.hpp"

namespace hsalit::codegen {

// How a target addresses global memory: MUBUF with a buffer resource (GFX6), FLAT with a
// 64-bit address in VGPRs (GFX7-GFX8), or GLOBAL with an SGPR base (GFX9 and later).
enum class GlobalForm : std::uint8_t { Buffer, Flat, Global };
std::string_view to_string(GlobalForm f);

// The kinds of atomic read-modify-write a litmus `rmw` can become.
enum class AtomicOp : std::uint8_t { Swap, Add, Sub, And, Or, Xor, Cas };
std::string_view to_string(AtomicOp op);

struct Target {
  std::string name;
  int generation = 9;
  std::string mapping;  // the default mapping table
  // The memory model of its generation: the AMDGPUUsage section the simulator executes
  // (memory_hierarchy.hpp): gfx6-9, gfx90a, gfx942, gfx10-11 or gfx12.
  std::string memory_model;
  GlobalForm global = GlobalForm::Global;
  bool flat = true;           // has FLAT instructions (generic address space)
  std::string naming;         // key of the naming scheme
  std::string alu;            // key of the ALU templates
  CachePolicy atomic_return;  // bits that make an atomic return the old value
  bool even_vgpr_pairs = false;
  bool lds_needs_m0 = false;
  int llvm = 0;  // first Debian LLVM whose llvm-mc knows the target; 0: none
  std::vector<std::string> assembler_flags;
  std::vector<std::string> barrier;               // the work-group barrier instruction(s)
  std::map<std::string, std::string> substitute;  // mnemonic -> mnemonic
  std::string note;
  int wave_size = 64;  // the default wave size: 32 on GFX10 and later (CompileOptions::wave64 keeps 64)
};

// What a mapping table's literal instructions and cache bits may be on a target
// (docs/mapping-tables.md, "Checked against the target"). Sources: the counter widths of
// LLVM's AMDGPUBaseInfo (getVmcntBitWidthLo/Hi, getExpcntBitWidth, getLgkmcntBitWidth, and
// the GFX12 getLoadcnt/Storecnt/Samplecnt/Bvhcnt/Dscnt/KmcntBitWidth), which agree with the
// CDNA4 ISA (section 3.1: VMCNT 6 bits, EXPCNT 3, LGKMCNT 4) and with what llvm-mc-19
// accepts for each processor; which instructions exist, as llvm-mc-19 assembles them per
// processor (gfx950, which it does not know, as gfx940: LLVM's AMDGPUUsage gives both one
// memory model).
struct TargetInstructions {
  // The largest count of each s_waitcnt counter, and of each instruction that takes one
  // count (s_waitcnt_vscnt, gfx12's s_wait_*); absent: the target has no such counter.
  std::map<std::string, int> waitcnt_max;  // vmcnt, expcnt, lgkmcnt
  std::map<std::string, int> count_max;    // mnemonic -> largest count
  // Cache, write-back and barrier instructions that exist, with the cache bits each takes.
  std::map<std::string, std::vector<std::string>> literal_bits;
  std::vector<std::string> access_bits;  // the cache bits of memory accesses
};
const TargetInstructions& target_instructions(const Target& target);

class TargetCatalog {
 public:
  static const TargetCatalog& builtin();
  static TargetCatalog from_json(const nlohmann::json& doc);

  const Target* find(std::string_view name) const;
  const Target& get(std::string_view name) const;  // throws std::runtime_error listing the known ones
  std::vector<std::string> names() const;

  // Mnemonics of memory instructions. `form` is buffer/flat/global for vector memory;
  // nullopt means LDS (ds_*).
  std::string load(const Target& t, std::optional<GlobalForm> form, bool wide) const;
  std::string store(const Target& t, std::optional<GlobalForm> form, bool wide) const;
  std::string atomic(const Target& t, std::optional<GlobalForm> form, AtomicOp op, bool wide) const;
  // The LDS compare-and-swap takes the compare value before the new one (GFX6-GFX10) or
  // after it (GFX11 and later).
  bool ds_cas_compare_first(const Target& t) const;
  // An ALU template such as "v_add_u32_e32 {d}, {a}, {b}".
  std::string alu(const Target& t, std::string_view op) const;

 private:
  nlohmann::json naming_, alu_;
  std::vector<Target> targets_;
};

// ---- Wait counters: one model per generation ---------------------------------------------
//
// Which counters each instruction increments and what each wait instruction bounds, as LLVM's
// SIInsertWaitcnts has one per generation. The compiler's register-dependency waits, the llc
// comparison (llc_compare.cpp) and the simulator's lowering (runner/src/sim_program.cpp) all
// ask this model; nothing else tells generations apart by their counters.
//   GFX6-GFX9: vmcnt counts vector memory loads, stores and atomics (MUBUF, FLAT, GLOBAL);
//     lgkmcnt counts LDS, scalar memory and FLAT ("Incremented every time a vector-memory read
//     or write (MUBUF, MTBUF, or FLAT format) instruction is issued", VM_CNT; "Incremented by
//     1 for every FLAT instruction issued", LGKM_CNT: CDNA4 ISA 4.4).
//   GFX10-GFX11: vmcnt counts loads and atomics with return, vscnt stores and atomics without
//     return, waited for with `s_waitcnt_vscnt null, N` ("s_waitcnt vmcnt(0) must happen after
//     any preceding global/generic load/load atomic/atomicrmw-with-return-value", "s_waitcnt
//     vscnt(0) must happen after any preceding global/generic store/store atomic/
//     atomicrmw-no-return-value", "Use vmcnt(0) if atomic with return and vscnt(0) if atomic
//     with no-return": AMDGPUUsage, Memory Model GFX10-GFX11).
//   GFX12: loadcnt and storecnt split the same way, dscnt counts LDS (and FLAT), kmcnt scalar
//     memory, each with its own `s_wait_*cnt N` (AMDGPUUsage, Memory Model GFX12).
// Completion is reported in issue order per counter ("Instructions of a given type return in
// order", CDNA4 ISA 4.4), except that FLAT and LDS operations, both in lgkmcnt (dscnt), complete
// in no common order: there only a bound of 0 is meaningful.
struct CounterModel {
  int generation = 9;
  CachePolicy atomic_return;  // the bits that make a vector atomic return (and count as a load)
  // The counters the model tracks, in a fixed order (an index is a counter's slot):
  // vmcnt lgkmcnt (GFX6-9); vmcnt vscnt lgkmcnt (GFX10-11); loadcnt storecnt dscnt kmcnt (GFX12).
  std::vector<std::string> names;
  // Per counter, the largest count its wait field holds, as target_instructions gives the
  // target's wait fields (vmcnt 0..15 on GFX6-GFX8, 0..63 from GFX9; lgkmcnt 0..15 before
  // GFX10, 0..63 after; vscnt, loadcnt, storecnt, dscnt 0..63; kmcnt 0..31).
  std::vector<int> max_counts;
  // The counter LDS operations count in (lgkmcnt or dscnt), which FLAT operations share.
  std::string lds_counter;

  // Slot of a counter name, or -1 when the model does not track it (expcnt, samplecnt, ...).
  int slot(std::string_view name) const;
  // Counters an instruction increments.
  std::vector<std::string> issued(const Instruction& ins) const;
  // Counters a wait instruction bounds, with the bound (0 = wait until none outstanding).
  std::vector<std::pair<std::string, int>> waits(const Instruction& ins) const;
  // The wait instructions that bound each named counter to its count, in this generation's
  // syntax: one `s_waitcnt` for vmcnt and lgkmcnt, `s_waitcnt_vscnt null, N`, `s_wait_loadcnt N`.
  std::vector<Instruction> wait_instructions(const std::vector<std::pair<std::string, int>>& bounds) const;
};
// The target's model, built once per distinct model and kept for the process (the compiler and
// the simulator's lowering ask for it per thread).
const CounterModel& counter_model(const Target& target);

// The assembler (and llc) flags for a target at a wave size: its `assembler_flags`, and
// `-mattr=+wavefrontsize64` where the target's default is wave32 and 64 is asked for.
std::vector<std::string> assembler_flags(const Target& target, int wave_size);

}  // namespace hsalit::codegen
