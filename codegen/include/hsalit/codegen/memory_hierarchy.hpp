// The memory hierarchy of each GPU generation, as the simulator executes it: one description
// per generation, the way LLVM's SIMemoryLegalizer has one SICacheControl per generation with
// a few hooks. What the cache bits of an access (glc/slc/dlc, sc0/sc1/nt, GFX12 scope:/th:)
// do at each level, what each invalidate and write-back instruction does, whether the waves
// of a work-group may run on several CUs, and which levels exist. Each case cites the section
// of LLVM's AMDGPUUsage it reads ("Memory Model GFX942", ...; docs/simulator.md quotes them).
// The wait counters are the CounterModel of target.hpp. Nothing else tells generations apart
// by their caches: the simulator's lowering (runner/src/sim_program.cpp) asks this.
#pragma once

#include <cstdint>
#include <string_view>

#include "hsalit/codegen/gcn.hpp"
#include "hsalit/codegen/target.hpp"

namespace hsalit::codegen {

// Where the waves of one work-group may run.
enum class WorkgroupSpan : std::uint8_t {
  OneCu,  // on one CU, sharing its vector L1 (GFX6-GFX9; CU mode; no tgsplit)
  Wgp,    // on either CU of one WGP, each CU with its own L0 (GFX10-GFX12 WGP mode)
  Agent,  // on any CUs of the agent (GFX90A/GFX942 tgsplit mode)
};
std::string_view to_string(WorkgroupSpan span);

// What a vector memory access does at each cache level, from its cache bits.
struct CachePath {
  bool bypass_l1 = false;   // a load misses (and evicts) its CU's vector L1 (the L0 from GFX10)
  bool bypass_gl1 = false;  // a load misses the GL1 (GFX10-GFX12: the L1 of a shader array)
  // An access coherent at system scope (GFX942: sc1 on an atomic, sc0 sc1 on a load or store):
  // performed at memory past the agent's L2 under `l2-per-agent`.
  bool system_scope = false;
  // A load or store coherent at agent scope or wider (GFX942 sc1): performed at memory where an
  // agent spans several L2s (`l2-per-xcd`).
  bool agent_scope = false;
};

// What a cache-maintenance instruction (InstrClass::CacheInvalidate, CacheWriteback) does.
struct CacheMaintenance {
  bool invalidate_l1 = false;   // every line of the CU's vector L1 (L0)
  bool invalidate_gl1 = false;  // every line of the GL1
  bool invalidate_l2 = false;   // the agent's clean L2 lines (under `l2-per-agent`)
  bool writeback_l2 = false;    // the agent's dirty L2 lines to memory (under `l2-per-agent`)
};

class MemoryHierarchy {
 public:
  virtual ~MemoryHierarchy() = default;
  // The section of AMDGPUUsage the description transcribes, e.g. "Memory Model GFX942".
  virtual std::string_view section() const = 0;
  // A GL1 between the CUs' L0s and the L2 (GFX10-GFX12).
  virtual bool has_gl1() const { return false; }
  // Instructions that write back and invalidate the agent's L2 (`buffer_wbl2`, `buffer_invl2`,
  // GFX942 `buffer_inv sc1`): the generations whose L2s the simulator can split per agent.
  virtual bool l2_maintenance() const { return false; }
  // An agent may span several L2s, kept coherent by write-back and invalidation (GFX942).
  virtual bool several_l2s_per_agent() const { return false; }
  // Where the waves of a work-group run in the table's execution-mode flavour.
  virtual WorkgroupSpan workgroup_span(std::string_view flavour) const;
  // The path of a vector memory access (load, store or atomic) given where its work-group's waves run.
  virtual CachePath access(const Instruction& ins, WorkgroupSpan span) const = 0;
  // What a CacheInvalidate or CacheWriteback instruction does (nothing for any other), given
  // where its work-group's waves run.
  virtual CacheMaintenance maintenance(const Instruction& ins, WorkgroupSpan span) const = 0;
};

// The description of a target's generation, by its `memory_model` in targets.json.
const MemoryHierarchy& memory_hierarchy(const Target& target);

}  // namespace hsalit::codegen
