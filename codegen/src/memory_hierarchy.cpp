// One memory-hierarchy description per generation (memory_hierarchy.hpp). The quotations are
// from LLVM's AMDGPUUsage, the section each class names, and LLVM's SIMemoryLegalizer.cpp
// (the cache-policy comments of each SICacheControl), as docs/simulator.md records them.
#include "hsalit/codegen/memory_hierarchy.hpp"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace hsalit::codegen {

std::string_view to_string(WorkgroupSpan span) {
  switch (span) {
    case WorkgroupSpan::OneCu: return "one CU";
    case WorkgroupSpan::Wgp: return "the two CUs of a WGP";
    case WorkgroupSpan::Agent: return "any CUs of the agent";
  }
  return "?";
}

WorkgroupSpan MemoryHierarchy::workgroup_span(std::string_view) const { return WorkgroupSpan::OneCu; }

namespace {

bool is_invalidate(const Instruction& ins) { return ins.kind() == InstrClass::CacheInvalidate; }

// GFX6-GFX9 (seed 000, "Memory Model"): one vector L1 per CU, write-through, shared by the
// waves of its work-groups; one L2 per agent, the point of coherence.
class Gfx6Gfx9Hierarchy final : public MemoryHierarchy {
 public:
  std::string_view section() const override { return "Memory Model GFX6-GFX9"; }
  // "glc=1 loads miss/evict in L1"; atomics are performed in the L2 whatever their bits.
  CachePath access(const Instruction& ins, WorkgroupSpan) const override { return {ins.policy.glc, false, false}; }
  // "buffer_wbinvl1_vol ... Ensures that following loads will not see stale global data."
  CacheMaintenance maintenance(const Instruction& ins, WorkgroupSpan) const override {
    CacheMaintenance m;
    m.invalidate_l1 = is_invalidate(ins);
    return m;
  }
};

// GFX90A ("Memory Model GFX90A"): the GFX9 CU and L1; "The exception is when in tgsplit
// execution mode when the wavefronts may be executed by different SIMDs in different CUs";
// "To ensure coherence of local and remote memory writes of work-groups in different agents
// a buffer_wbl2 is required"; "... reads of work-groups in different agents a buffer_invl2 is
// required".
class Gfx90aHierarchy final : public MemoryHierarchy {
 public:
  std::string_view section() const override { return "Memory Model GFX90A"; }
  bool l2_maintenance() const override { return true; }
  WorkgroupSpan workgroup_span(std::string_view flavour) const override {
    return flavour == "tgsplit" ? WorkgroupSpan::Agent : WorkgroupSpan::OneCu;
  }
  CachePath access(const Instruction& ins, WorkgroupSpan) const override { return {ins.policy.glc, false, false}; }
  CacheMaintenance maintenance(const Instruction& ins, WorkgroupSpan) const override {
    CacheMaintenance m;
    if (ins.mnemonic == "buffer_invl2")
      m.invalidate_l2 = true;
    else if (is_invalidate(ins))
      m.invalidate_l1 = true;  // buffer_wbinvl1_vol, buffer_wbinvl1
    else if (ins.mnemonic == "buffer_wbl2")
      m.writeback_l2 = true;
    return m;
  }
};

// GFX942 and GFX950 ("Memory Model GFX942"; gfx950 has no section of its own and LLVM gives it
// SIGfx940CacheControl). The sc0/sc1 bits of loads, stores and cache instructions name a
// scope (SIGfx940CacheControl: "Set SC bits to indicate work-group scope" = sc0, "agent
// scope" = sc1, "system scope" = sc0 sc1).
class Gfx942Hierarchy final : public MemoryHierarchy {
 public:
  std::string_view section() const override { return "Memory Model GFX942"; }
  bool l2_maintenance() const override { return true; }
  // "The gfx942 can be configured as a number of smaller agents with each having a single L2
  // shared by all CUs on the same agent, or as fewer (possibly one) larger agents with groups
  // of CUs on each agent each sharing separate L2 caches."
  bool several_l2s_per_agent() const override { return true; }
  WorkgroupSpan workgroup_span(std::string_view flavour) const override {
    return flavour == "tgsplit" ? WorkgroupSpan::Agent : WorkgroupSpan::OneCu;
  }
  CachePath access(const Instruction& ins, WorkgroupSpan span) const override {
    CachePath p;
    // A load of agent or system scope misses the L1; one of work-group scope (sc0 alone) only
    // where the work-group's waves may be on several CUs: "In threadgroup split mode the waves
    // of a work-group can be executing on different CUs. Therefore need to bypass the L1 which
    // is per CU. Otherwise ... the L1 does not need to be bypassed. Setting SC bits to
    // indicate work-group scope will do this automatically." `nt` (non-temporal) is a hint
    // that changes no level a load reads.
    p.bypass_l1 = ins.policy.sc1 || (ins.policy.sc0 && span == WorkgroupSpan::Agent);
    // "Atomic read-modify-write instructions implicitly bypass the L1 cache. Therefore, they do
    // not use the sc0 bit for coherence ... They do use sc1 to indicate system or agent scope
    // coherence."
    // System scope: sc1 on an atomic, sc0 sc1 on a load or store ("system scope").
    p.system_scope = ins.kind() == InstrClass::VectorAtomic ? ins.policy.sc1 : ins.policy.sc0 && ins.policy.sc1;
    // Loads and stores: "Set SC bits to indicate agent scope" (sc1) or system scope (sc0 sc1):
    // coherent across the agent's L2s.
    p.agent_scope = ins.kind() != InstrClass::VectorAtomic && ins.policy.sc1;
    return p;
  }
  // The scope bits again: "A buffer_inv sc0 is required to invalidate the L1 cache" where a
  // work-group's waves may be on several CUs, and SIGfx940CacheControl: "In non-threadgroup
  // split mode it is a NOP"; "buffer_inv sc1 ... will invalidate non-local L2 cache lines if
  // configured to have multiple L2 caches" (agent and system scope include the L1);
  // "buffer_wbl2 sc1 ... will writeback dirty L2 cache lines", emitted for agent and system
  // scope only: one without sc1 (a narrower scope) writes nothing back here.
  CacheMaintenance maintenance(const Instruction& ins, WorkgroupSpan span) const override {
    CacheMaintenance m;
    if (ins.mnemonic == "buffer_inv") {
      m.invalidate_l2 = ins.policy.sc1;
      m.invalidate_l1 = ins.policy.sc1 || (ins.policy.sc0 && span == WorkgroupSpan::Agent);
    } else if (is_invalidate(ins)) {
      m.invalidate_l1 = true;  // buffer_wbinvl1(_vol), which gfx940 still has
    } else if (ins.mnemonic == "buffer_wbl2") {
      m.writeback_l2 = ins.policy.sc1;
    }
    return m;
  }
};

// GFX10-GFX11 ("Memory Model GFX10-GFX11"): "There is a single L0 cache per CU"; "The vector
// and scalar memory L0 caches use an L1 cache shared by all WGPs on the same SA" (the GL1);
// "In WGP wavefront execution mode the wavefronts of a work-group are executed on the SIMDs of
// both CUs of the WGP".
class Gfx10Gfx11Hierarchy final : public MemoryHierarchy {
 public:
  explicit Gfx10Gfx11Hierarchy(bool gfx11) : gfx11_(gfx11) {}
  std::string_view section() const override { return "Memory Model GFX10-GFX11"; }
  bool has_gl1() const override { return true; }
  WorkgroupSpan workgroup_span(std::string_view flavour) const override {
    return flavour == "cumode" ? WorkgroupSpan::OneCu : WorkgroupSpan::Wgp;
  }
  // SIGfx10CacheControl: "Set the L0 and L1 cache policies to MISS_EVICT" with glc and dlc for
  // agent scope, "need to bypass the L0 which is per CU" with glc alone for work-group scope
  // in WGP mode: glc misses the L0, dlc the GL1. SIGfx11CacheControl sets glc alone for "the
  // L0 and L1 cache policies to MISS_EVICT": on GFX11 glc misses both. Atomics are performed
  // in the L2.
  CachePath access(const Instruction& ins, WorkgroupSpan) const override {
    CachePath p;
    p.bypass_l1 = ins.policy.glc;
    p.bypass_gl1 = gfx11_ ? ins.policy.glc : ins.policy.dlc;
    return p;
  }
  // "a buffer_gl0_inv is required for coherence between wavefronts executing in the same
  // work-group as they may be executing on SIMDs of different CUs that access different L0s";
  // "a buffer_gl1_inv is required for coherence between wavefronts executing in different
  // work-groups as they may be executing on different SAs that access different L1s".
  CacheMaintenance maintenance(const Instruction& ins, WorkgroupSpan) const override {
    CacheMaintenance m;
    m.invalidate_l1 = ins.mnemonic == "buffer_gl0_inv";
    m.invalidate_gl1 = ins.mnemonic == "buffer_gl1_inv";
    return m;
  }

 private:
  bool gfx11_;
};

// GFX12 ("Memory Model GFX12"): the GFX10-GFX11 levels, and a SCOPE field on every access:
// "When a memory operation with a given SCOPE reaches a cache with a smaller SCOPE value, it
// is forwarded to the next level of cache. When ... a cache with a SCOPE value greater than or
// equal to its own, the operation can proceed: Reads can hit into the cache". The L0 has
// scope CU, the GL1 ("L1 buffer ... shared by all WGPs on the same SA") scope SE, the L2 DEV.
class Gfx12Hierarchy final : public MemoryHierarchy {
 public:
  std::string_view section() const override { return "Memory Model GFX12"; }
  bool has_gl1() const override { return true; }
  WorkgroupSpan workgroup_span(std::string_view flavour) const override {
    return flavour == "cumode" ? WorkgroupSpan::OneCu : WorkgroupSpan::Wgp;
  }
  // No scope is SCOPE_CU. Temporal hints (`th:`) change no level a load reads.
  CachePath access(const Instruction& ins, WorkgroupSpan) const override {
    const int scope = level(ins.policy.scope);
    return {scope > kCu, scope > kSe, false};
  }
  // "global_inv invalidates caches whose scope is strictly smaller than the instruction's";
  // global_wb writes back, and the caches below the L2 hold nothing dirty here (stores are
  // performed in the L2, docs/simulator.md).
  CacheMaintenance maintenance(const Instruction& ins, WorkgroupSpan) const override {
    CacheMaintenance m;
    if (ins.mnemonic == "global_inv" || ins.mnemonic == "global_wbinv") {
      const int scope = level(ins.policy.scope);
      m.invalidate_l1 = scope > kCu;
      m.invalidate_gl1 = scope > kSe;
    }
    return m;
  }

 private:
  static constexpr int kCu = 0, kSe = 1, kDev = 2, kSys = 3;
  static int level(std::string_view scope) {
    if (scope == "SCOPE_SE") return kSe;
    if (scope == "SCOPE_DEV") return kDev;
    if (scope == "SCOPE_SYS") return kSys;
    return kCu;
  }
};

}  // namespace

const MemoryHierarchy& memory_hierarchy(const Target& target) {
  static const Gfx6Gfx9Hierarchy gfx6_9;
  static const Gfx90aHierarchy gfx90a;
  static const Gfx942Hierarchy gfx942;
  static const Gfx10Gfx11Hierarchy gfx10(false), gfx11(true);
  static const Gfx12Hierarchy gfx12;
  const std::string& m = target.memory_model;
  if (m == "gfx6-9") return gfx6_9;
  if (m == "gfx90a") return gfx90a;
  if (m == "gfx942") return gfx942;
  if (m == "gfx10-11") return target.generation >= 11 ? gfx11 : gfx10;
  if (m == "gfx12") return gfx12;
  throw std::runtime_error(
      fmt::format("target {} has no known memory model ('{}'; known: gfx6-9, gfx90a, gfx942, "
                  "gfx10-11, gfx12)",
                  target.name, m));
}

}  // namespace hsalit::codegen
