// The simulator's view of a compiled test: each thread's GCN program lowered to a compact
// instruction form, and the memory cells it names.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/ast.hpp"
#include "hsalit/runner/sim.hpp"

namespace hsalit::runner::detail {

enum class SimOp : std::uint8_t {
  Nop,
  Move,  // d <- a (VGPR, SGPR or immediate)
  Add,
  Sub,
  Xor,
  And,
  Or,
  ShiftLeft,
  CompareEq,
  CompareNe,   // vcc <- a op b
  Select,      // d <- vcc ? 1 : 0 (v_cndmask_b32 d, 0, 1, vcc)
  ScalarLoad,  // s[d..] <- base address of the location the kernel argument offset names
  Branch,
  BranchVcc,
  Wait,
  Barrier,
  Invalidate,   // the levels its invalidate_* fields name (codegen::CacheMaintenance)
  WritebackL2,  // buffer_wbl2: the agent's dirty L2 lines to memory (l2-per-agent)
  VectorLoad,
  VectorStore,
  VectorAtomic,
  LdsLoad,
  LdsStore,
  LdsAtomic,
  End,
};

// The most wait counters a target's counter model tracks (GFX12: loadcnt storecnt dscnt kmcnt).
inline constexpr std::size_t kCounters = 4;

enum class RegFile : std::uint8_t { None, Vgpr, Sgpr, Imm };

struct Src {
  RegFile file = RegFile::None;
  int reg = 0;
  std::int64_t imm = 0;
  friend bool operator==(const Src&, const Src&) = default;
};

enum class AddressForm : std::uint8_t { Global, Flat, Buffer, Lds };

struct SimInstruction {
  SimOp op = SimOp::Nop;
  int dst = -1;                   // VGPR (or first SGPR for ScalarLoad, SGPR moves and sgpr_destination)
  bool sgpr_destination = false;  // a 32-bit scalar ALU operation that writes SGPR `dst`
  int dst_count = 1;
  Src a, b;
  int target = -1;  // branch target (instruction index)
  // Memory operations: bit i set when counter i of the target's counter model (codegen::
  // counter_model, SimProgram::counters) counts the operation. Waits: per counter, the count
  // it waits for, -1 where it does not wait for that counter.
  std::uint8_t counters = 0;
  std::array<int, kCounters> bounds{-1, -1, -1, -1};
  // Memory operations.
  AddressForm form = AddressForm::Global;
  Src base;    // SGPR pair/quad (global, buffer) or VGPR pair (flat) or VGPR (LDS)
  Src offset;  // VGPR offset (global) or none
  std::int64_t imm_offset = 0;
  int width = 1;                // dwords
  int data = -1;                // first VGPR of the stored value / atomic operand
  int compare = -1;             // first VGPR of the cas compare value
  int atomic_kind = 0;          // codegen::AtomicOp
  bool bypass_l1 = false;       // a load that misses the CU's vector L1 / L0 (codegen::CachePath)
  bool bypass_gl1 = true;       // a load that misses the GL1 (GFX10-GFX12; every load elsewhere)
  bool flat = false;            // FLAT instruction: counted by the LDS counter too
  bool invalidate_l1 = false;   // Invalidate: the CU's vector L1 / L0
  bool invalidate_gl1 = false;  // Invalidate: the GL1 (GFX10-GFX11 buffer_gl1_inv, GFX12 global_inv)
  bool invalidate_l2 = false;   // Invalidate: the agent's clean L2 lines (buffer_invl2, GFX94x buffer_inv sc1)
  bool system_scope = false;    // system scope (GFX94x): performed at memory under l2-per-agent
  bool agent_scope = false;     // a load or store with sc1 (GFX94x): performed at memory under l2-per-xcd
  // The instruction lowered, for traces and messages (its text and table row): a view into
  // the CompiledTest, which outlives the program (lower's callers simulate while holding it).
  const codegen::Instruction* source = nullptr;
  int litmus_instruction = -1;
  friend bool operator==(const SimInstruction&, const SimInstruction&) = default;  // the same `source` too
};

// The assembly of the instruction an instruction was lowered from, and its table row.
std::string text(const SimInstruction& ins);
std::string_view row(const SimInstruction& ins);

struct SimThread {
  std::vector<SimInstruction> code;
  std::vector<std::pair<std::string, int>> registers;  // litmus register -> VGPR
  int vgprs = 0, sgprs = 0;
  std::vector<int> non_glc_loads;  // locations this thread reads through the L1
  friend bool operator==(const SimThread&, const SimThread&) = default;
};

// Global locations have addresses kGlobalBase + kLineBytes * index; group locations sit at
// 8 * (their index among the test's group locations) in the LDS.
inline constexpr std::uint32_t kGlobalBase = 0x10000;
inline constexpr std::uint32_t kLineBytes = 0x100;

struct SimProgram {
  std::vector<std::string> locations;  // the test's locations, in order
  std::vector<bool> group;             // per location
  std::vector<std::int64_t> initial;   // per location
  std::vector<int> lds_slot;           // per location: byte offset / 8, or -1
  std::vector<SimThread> threads;
  bool l2_maintenance = false;        // the target has buffer_wbl2/buffer_invl2 (GFX90A, GFX94x)
  bool gl1 = false;                   // a GL1 between the L0s and the L2 (GFX10-GFX12)
  bool l2_per_xcd = false;            // an agent may span several L2s (GFX942; l2-per-xcd)
  std::vector<std::string> counters;  // the target's wait counters, by index (codegen::CounterModel::names)
  int lds_counter = -1;               // the index of the one LDS and FLAT operations share (lgkmcnt, dscnt)
  WorkgroupSpan workgroup_span = WorkgroupSpan::OneCu;  // the CUs a work-group's waves may run on
  friend bool operator==(const SimProgram&, const SimProgram&) = default;
};

// Throws std::runtime_error naming the instruction it cannot simulate. The program's
// instructions point into `compiled` (SimInstruction::source), which must outlive it.
SimProgram lower(const litmus::Test& test, const codegen::CompiledTest& compiled);
// Lowers thread `thread` of `compiled` again into `p`, lowered from the same test but for that
// thread's code (a caller that changes one thread's code at a time): `p` is then what lower()
// gives. False, `p` unchanged, where the test's locations, the target's counters or the
// work-group span differ from what `p` was lowered with.
bool relower_thread(SimProgram& p, const litmus::Test& test, const codegen::CompiledTest& compiled, std::size_t thread);

// Whether a wait lets a thread go on with `outstanding[i]` operations outstanding on counter i.
// A bound on the LDS counter above 0 does not hold where the thread has FLAT operations (they
// complete in no common order with LDS ones): callers that need an operation complete use
// wait_completes instead.
bool wait_passes(const SimInstruction& wait, const std::array<int, kCounters>& outstanding);
// Whether a wait guarantees that an operation counted by `counters`, with `after[i]` more
// operations counted by counter i issued after it, has completed. Completion is reported in
// issue order per counter (docs/simulator.md, rule 3), except on the LDS counter of a thread
// with FLAT operations, where only a bound of 0 tells.
bool wait_completes(const SimInstruction& wait, std::uint8_t counters, const std::array<int, kCounters>& after,
                    int lds_counter, bool thread_has_flat);

// The first place where a thread's code may read or overwrite a VGPR before the load (or
// atomic) that writes it has completed, as the simulator counts (rule 2: the hardware does
// not interlock, the code must wait): "P0: `global_store_dword v0, v1, s[2:3]` reads v1 before
// `global_load_dword v1, v0, s[4:5]` has completed". nullopt when every path waits. Every
// path of the thread is followed, nothing completing unless a wait makes it.
std::optional<std::string> register_hazard(const SimProgram& program, std::size_t thread);

}  // namespace hsalit::runner::detail
