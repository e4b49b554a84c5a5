// The LLVM IR emitter and the llc round trip (llvm_ir.hpp, llc.hpp, docs/llvm-ir.md): the IR
// of every bundled test is valid for LLVM's verifier, real llc compiles it, and its assembly
// ties back to the litmus instructions; the comparison with a table finds the differences
// GCN-NOTES lists. A missing llc-NN or opt-NN fails with the Debian package to install
// (scripts/setup installs llvm-14, llvm-16 and llvm-19).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/llc.hpp"
#include "hsalit/codegen/llvm_ir.hpp"
#include "hsalit/codegen/process.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/support/parallel.hpp"
#include "litmus_support.hpp"

namespace hsalit::codegen {
namespace {

using test_support::parse;

namespace fs = std::filesystem;

struct Bundled {
  fs::path file;
  litmus::Test test;
};

// Every bundled test; a file that does not parse is an error of every test that reads them
// (thrown, not dropped).
const std::vector<Bundled>& bundled() {
  static const std::vector<Bundled> tests = [] {
    std::vector<Bundled> out;
    for (const fs::path& f : litmus::collect_litmus_files({fs::path(HSALIT_SOURCE_DIR) / "litmus/library"})) {
      litmus::ParseResult r = litmus::parse_litmus_file(f);
      if (!r.ok()) throw std::runtime_error(f.string() + ": a bundled test does not parse");
      out.push_back({f, *r.test});
    }
    return out;
  }();
  return tests;
}

// The llc, or a failure that says which Debian package to install.
std::optional<LlcTool> require_llc(const std::string& name) {
  try {
    return find_llc(name);
  } catch (const LlcError& e) {
    ADD_FAILURE() << e.what();
    return std::nullopt;
  }
}

bool require_tool(const std::string& name) {
  if (find_program(name)) return true;
  ADD_FAILURE() << fmt::format("{} not found: install Debian package {}", name, debian_package_for(name));
  return false;
}

// Runs `opt-19 -passes=verify` on the module; "" when it is valid, else opt's messages.
std::string verify(const std::string& ir) {
  TempDir dir("hsalit-verify");
  fs::path file = dir.path() / "test.ll";
  std::ofstream(file) << ir;
  ProcessResult r = run_process({"opt-19", "-passes=verify", "-disable-output", file.string()});
  return r.ok() ? "" : r.err + r.out;
}

// --- the emitter ---------------------------------------------------------------------------

TEST(LlvmIr, KernelsArgumentsScopesAndOrderings) {
  litmus::Test t = parse(R"(LISA shapes
{ x = 0; y = 0; z = 0; 1:r1 = -1; }
 P0                           | P1                        ;
 w[] x 1                      | r[atomic,scacq,agent] r0 y ;
 w[atomic,screl,wg] y 1       | b[] r0 Skip               ;
 f[scar,system]               | r[] r1 x                  ;
 rmw[atomic,rlx,wave] r2 (add r2 3) z | Skip:             ;
 rmw[cas,atomic,scar,agent] r3 0 5 x | barrier            ;
scopes: (agent (wg 0 1))
regions: z:group
exists (1:r0=1 /\ 1:r1=0)
)");
  LlvmModule m = emit_llvm_ir(t);
  const std::string& ir = m.text;
  ASSERT_EQ(m.kernels.size(), 2u);
  EXPECT_EQ(m.kernels[0].name, "P0");
  EXPECT_EQ(m.kernels[0].arguments, (std::vector<std::string>{"x", "y", "out"}));
  EXPECT_EQ(m.kernels[0].lds, (std::vector<std::string>{"z"}));
  EXPECT_EQ(m.kernels[0].accesses, (std::vector<int>{0, 1, 3, 4}));
  EXPECT_EQ(m.kernels[1].results, (std::vector<std::string>{"r0", "r1"}));
  EXPECT_NE(ir.find("define amdgpu_kernel void @P0(ptr addrspace(1) noundef %loc.x, ptr addrspace(1) noundef "
                    "%loc.y, ptr addrspace(1) noundef %out)"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("@lds.z = internal addrspace(3) global i32 poison, align 4"), std::string::npos) << ir;
  EXPECT_NE(ir.find("store i32 1, ptr addrspace(1) %loc.x, align 4"), std::string::npos) << ir;
  EXPECT_NE(ir.find("store atomic i32 1, ptr addrspace(1) %loc.y syncscope(\"workgroup\") release, align 4"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("fence seq_cst"), std::string::npos) << ir;  // system: no syncscope
  EXPECT_NE(ir.find("atomicrmw add ptr addrspace(3) @lds.z, i32 3 syncscope(\"wavefront\") "
                    "monotonic, align 4"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("cmpxchg ptr addrspace(1) %loc.x, i32 0, i32 5 syncscope(\"agent\") seq_cst "
                    "seq_cst, align 4"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("load atomic i32, ptr addrspace(1) %loc.y syncscope(\"agent\") acquire, align 4"),
            std::string::npos)
      << ir;
  EXPECT_NE(ir.find("call void @llvm.amdgcn.s.barrier()"), std::string::npos) << ir;
  // r1 is -1 on the branch's path and the load's value on the other: a phi at the label.
  EXPECT_NE(ir.find("phi i32 [ -1, %entry ]"), std::string::npos) << ir;
  if (require_tool("opt-19")) {
    EXPECT_EQ(verify(ir), "");
  }
}

TEST(LlvmIr, GenericVolatileAndDoubleOptions) {
  litmus::Test t = parse(R"(LISA options
{ x = 0; z = 0; }
 P0                         ;
 w[] x 1                    ;
 r[atomic,rlx,wg,double] r0 z ;
regions: z:group
exists (0:r0=0)
)");
  LlvmModule generic = emit_llvm_ir(t, {.generic = true});
  EXPECT_EQ(generic.kernels[0].arguments, (std::vector<std::string>{"x", "z", "out"}));
  EXPECT_EQ(generic.text.find("addrspace"), std::string::npos) << generic.text;
  EXPECT_NE(generic.text.find("load atomic i64, ptr %loc.z syncscope(\"workgroup\") monotonic, align 8"),
            std::string::npos)
      << generic.text;
  LlvmModule vol = emit_llvm_ir(t, {.volatile_ordinary = true});
  EXPECT_NE(vol.text.find("store volatile i32 1, ptr addrspace(1) %loc.x"), std::string::npos) << vol.text;
  EXPECT_NE(vol.text.find("@lds.z = internal addrspace(3) global i64 poison, align 8"), std::string::npos) << vol.text;
  if (require_tool("opt-19")) {
    EXPECT_EQ(verify(generic.text), "");
    EXPECT_EQ(verify(vol.text), "");
  }
}

TEST(LlvmIr, UnsupportedFormsArePreciseErrors) {
  litmus::Test t = parse(R"(LISA bad
{ x = 0; 0:r1 = x; }
 P0         ;
 r[] r0 r1  ;
exists (0:r0=0)
)");
  try {
    emit_llvm_ir(t);
    FAIL() << "expected a CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("register"), std::string::npos) << e.what();
  }
}

// Every bundled test, in every mode, is valid LLVM IR for LLVM's verifier.
TEST(LlvmIr, EveryBundledTestVerifies) {
  if (!require_tool("opt-19")) return;
  ASSERT_GT(bundled().size(), 50u);
  const std::vector<LlvmIrOptions> modes = {{}, {.generic = true}, {.volatile_ordinary = true}};
  std::vector<std::string> errors(bundled().size() * modes.size());
  // On all cores: each call runs an LLVM tool, which is the slow part.
  support::parallel_for_each(errors.size(), support::default_jobs(), [&](std::size_t i) {
    errors[i] = verify(emit_llvm_ir(bundled()[i / modes.size()].test, modes[i % modes.size()]).text);
  });
  for (std::size_t i = 0; i < errors.size(); ++i)
    EXPECT_EQ(errors[i], "") << bundled()[i / modes.size()].file << " mode " << i % modes.size();
}

// --- tools ---------------------------------------------------------------------------------

TEST(LlcTool, MissingLlcNamesTheDebianPackage) {
  try {
    find_llc("llc-99");
    FAIL() << "llc-99 should not exist";
  } catch (const LlcError& e) {
    EXPECT_STREQ(e.what(), "llc-99 not found: install Debian package llvm-99");
  }
  EXPECT_EQ(debian_package_for("opt-16"), "llvm-16");
  EXPECT_EQ(debian_package_for("/usr/bin/llc-14"), "llvm-14");
}

TEST(LlcTool, ProbesEachVersionsOptions) {
  for (const char* name : {"llc-14", "llc-16", "llc-19"}) {
    std::optional<LlcTool> llc = require_llc(name);
    if (!llc) continue;
    EXPECT_EQ(llc->version, std::stoi(std::string(name).substr(4)));
    const std::vector<std::string>& f = llc->flags;
    bool opaque = std::find(f.begin(), f.end(), "-opaque-pointers") != f.end();
    EXPECT_EQ(opaque, llc->version < 15) << name;
    std::string off =
        llc->version >= 17 ? "-amdgpu-atomic-optimizer-strategy=None" : "-amdgpu-atomic-optimizations=false";
    EXPECT_NE(std::find(f.begin(), f.end(), off), f.end()) << name;
  }
}

TEST(LlcProcess, CapturesOutputAndStatus) {
  ProcessResult r = run_process({"sh", "-c", "echo out; echo 'err it' >&2; exit 3"});
  EXPECT_EQ(r.exit_status, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err it\n");
  EXPECT_THROW(run_process({"hsalit-no-such-program"}), ProcessError);
  fs::path kept;
  {
    TempDir d("hsalit-test");
    kept = d.path();
    std::ofstream(kept / "f") << "x";
    EXPECT_TRUE(fs::exists(kept / "f"));
  }
  EXPECT_FALSE(fs::exists(kept));
}

TEST(LlcProcess, TheChildsTemporaryFolderCanBeSet) {
  TempDir d("hsalit-test");
  ProcessResult r = run_process({"sh", "-c", "echo \"$TMPDIR\"; env | grep -c '^TMPDIR='"}, {.temp_dir = d.path()});
  EXPECT_EQ(r.out, d.path().string() + "\n1\n");
  // Everything else in the environment passes through.
  ProcessResult path = run_process({"sh", "-c", "echo \"$PATH\""}, {.temp_dir = d.path()});
  EXPECT_EQ(path.out, std::string(std::getenv("PATH")) + "\n");
}

// --- counters ------------------------------------------------------------------------------

Instruction ins(const std::string& text) {
  std::string error;
  auto i = parse_instruction(text, error);
  EXPECT_TRUE(i) << text << ": " << error;
  return i ? *i : Instruction{};
}

TEST(LlcCounters, EachGenerationsWaits) {
  const TargetCatalog& cat = TargetCatalog::builtin();
  CounterModel g9 = counter_model(cat.get("gfx900"));
  EXPECT_EQ(g9.waits(ins("s_waitcnt vmcnt(0) lgkmcnt(0)")),
            (std::vector<std::pair<std::string, int>>{{"vmcnt", 0}, {"lgkmcnt", 0}}));
  EXPECT_EQ(g9.issued(ins("flat_load_dword v1, v[2:3] glc")), (std::vector<std::string>{"vmcnt", "lgkmcnt"}));
  CounterModel g10 = counter_model(cat.get("gfx1030"));
  EXPECT_EQ(g10.waits(ins("s_waitcnt_vscnt null, 0x0")), (std::vector<std::pair<std::string, int>>{{"vscnt", 0}}));
  EXPECT_EQ(g10.issued(ins("global_store_dword v0, v1, s[0:1]")), (std::vector<std::string>{"vscnt"}));
  EXPECT_EQ(g10.issued(ins("global_atomic_swap v1, v0, v2, s[0:1] glc")), (std::vector<std::string>{"vmcnt"}));
  CounterModel g12 = counter_model(cat.get("gfx1200"));
  EXPECT_EQ(g12.waits(ins("s_wait_loadcnt_dscnt 0x102")),
            (std::vector<std::pair<std::string, int>>{{"loadcnt", 1}, {"dscnt", 2}}));
  EXPECT_EQ(g12.issued(ins("ds_store_b32 v0, v1")), (std::vector<std::string>{"dscnt"}));
}

// --- tying back, on hand-written assembly ------------------------------------------------------

const char* kTwoStores = R"(LISA two
{ x = 0; y = 0; }
 P0                     ;
 w[] x 1                ;
 w[] x 2                ;
 w[atomic,screl,agent] y 1 ;
exists (x=1)
)";

std::string kernel_text(const std::string& body) {
  return "P0:\n\ts_load_dwordx4 s[0:3], s[4:5], 0x0\n\t;;#ASMSTART\n\t; hsalit begin P0 x=s[0:1] "
         "y=s[2:3] @out=s[6:7]\n"
         "\t;;#ASMEND\n" +
         body +
         "\t;;#ASMSTART\n\t; hsalit end P0\n\tv_mov_b32 v9, 0\n\t;;#ASMEND\n\tglobal_store_dword "
         "v0, v1, s[6:7]\n"
         "\ts_endpgm\n.Lfunc_end0:\n";
}

TEST(LlcTie, InOrderWithSequencesAroundAccesses) {
  litmus::Test t = parse(kTwoStores);
  LlvmModule m = emit_llvm_ir(t);
  LlcResult r = import_llc_assembly(kernel_text("\tglobal_store_dword v0, v1, s[0:1]\n"
                                                "\tglobal_store_dword v0, v2, s[0:1]\n"
                                                "\ts_waitcnt vmcnt(0) lgkmcnt(0)\n"
                                                "\tglobal_store_dword v0, v1, s[2:3]\n"),
                                    t, m, TargetCatalog::builtin().get("gfx900"));
  ASSERT_EQ(r.threads.size(), 1u);
  const LlcThread& th = r.threads[0];
  EXPECT_TRUE(th.complete()) << fmt::format("{}", fmt::join(th.problems, "\n"));
  ASSERT_EQ(th.code.size(), 4u);
  EXPECT_EQ(th.code[0].origin.instruction, 0);
  EXPECT_EQ(th.code[1].origin.instruction, 1);
  EXPECT_EQ(th.code[2].origin.instruction, 2);
  EXPECT_EQ(th.code[2].origin.role, "before");
  EXPECT_EQ(th.code[3].origin.role, "access");
}

TEST(LlcTie, RemovedStoreIsReportedNotGuessed) {
  litmus::Test t = parse(kTwoStores);
  LlvmModule m = emit_llvm_ir(t);
  LlcResult r = import_llc_assembly(kernel_text("\tglobal_store_dword v0, v2, s[0:1]\n"
                                                "\ts_waitcnt vmcnt(0) lgkmcnt(0)\n"
                                                "\tglobal_store_dword v0, v1, s[2:3]\n"),
                                    t, m, TargetCatalog::builtin().get("gfx900"));
  const LlcThread& th = r.threads[0];
  EXPECT_EQ(th.tied, (std::vector<int>{-1, -1, 2})) << "the release store is certain, the x stores are not";
  ASSERT_EQ(th.problems.size(), 1u);
  EXPECT_NE(th.problems[0].find("llc emitted 2 memory instructions for 3 litmus accesses"), std::string::npos)
      << th.problems[0];
  EXPECT_NE(th.problems[0].find("could implement any of P0:0, P0:1"), std::string::npos) << th.problems[0];
}

TEST(LlcTie, ReorderedAndChangedKindsAreReported) {
  litmus::Test t = parse(kTwoStores);
  LlvmModule m = emit_llvm_ir(t);
  // The release store first: its location tells it apart, so it is tied; the x stores are too.
  LlcResult r = import_llc_assembly(kernel_text("\tglobal_store_dword v0, v1, s[2:3]\n"
                                                "\tglobal_store_dword v0, v2, s[0:1]\n"
                                                "\tglobal_store_dword v0, v2, s[0:1]\n"),
                                    t, m, TargetCatalog::builtin().get("gfx900"));
  EXPECT_FALSE(r.threads[0].problems.empty());
  EXPECT_EQ(r.threads[0].tied[2], -1);
  litmus::Test rmw = parse(R"(LISA rmw
{ y = 0; }
 P0                                  ;
 rmw[atomic,scacq,agent] r0 (add r0 0) y ;
exists (0:r0=0)
)");
  LlvmModule m2 = emit_llvm_ir(rmw);
  std::string text =
      "P0:\n\t; hsalit begin P0 y=s[2:3] @out=s[0:1]\n\tglobal_load_dword v1, v0, s[2:3] glc\n"
      "\t; hsalit end P0\n\ts_endpgm\n";
  LlcResult r2 = import_llc_assembly(text, rmw, m2, TargetCatalog::builtin().get("gfx900"));
  ASSERT_EQ(r2.threads[0].problems.size(), 1u);
  EXPECT_NE(r2.threads[0].problems[0].find("P0:0 (rmw y) looks implemented by global_load_dword"), std::string::npos)
      << r2.threads[0].problems[0];
}

// --- the real llc, on every bundled test ------------------------------------------------------

struct RoundTrip {
  const char* target;
  const char* llc;
};
void PrintTo(const RoundTrip& r, std::ostream* os) { *os << r.target << " with " << r.llc; }

class LlcRoundTrip : public testing::TestWithParam<RoundTrip> {};

struct LlcRun {
  LlvmModule module;
  LlcResult result;
};

// Every bundled test through llc, in parallel.
std::vector<LlcRun> run_all(const LlcTool& llc, const Target& target, const LlvmIrOptions& options) {
  std::vector<LlcRun> runs(bundled().size());
  support::parallel_for_each(runs.size(), support::default_jobs(), [&](std::size_t i) {
    const litmus::Test& t = bundled()[i].test;
    runs[i].module = emit_llvm_ir(t, options);
    runs[i].result = import_llc_assembly(run_llc(llc, runs[i].module.text, target), t, runs[i].module, target);
  });
  return runs;
}

// Checks the ties of one test: each tied access has one memory instruction of its kind, no
// instruction serves two accesses; returns the untied accesses and adds the tied ones to `tied`.
std::vector<int> check_ties(const Bundled& b, const LlcResult& r, const LlvmModule& m, std::size_t& tied) {
  std::vector<int> untied;
  for (const LlcThread& th : r.threads) {
    const LlvmKernel& k = m.kernels[static_cast<std::size_t>(th.thread)];
    const litmus::Thread& lt = b.test.threads[static_cast<std::size_t>(th.thread)];
    std::set<int> seen;
    std::size_t a = 0;
    for (int lit : k.accesses) {
      if (std::count(k.unreachable.begin(), k.unreachable.end(), lit)) continue;
      int at = th.tied[a++];
      if (at < 0) {
        untied.push_back(th.thread * 1000 + lit);
        continue;
      }
      ++tied;
      EXPECT_TRUE(seen.insert(at).second) << b.file << " P" << th.thread << ": one instruction for two accesses";
      const Instruction& ins = th.code[static_cast<std::size_t>(at)];
      InstrClass c = ins.kind();
      bool right = false;
      switch (lt.code[static_cast<std::size_t>(lit)].kind) {
        case litmus::OpKind::Load: right = c == InstrClass::VectorLoad || c == InstrClass::LdsLoad; break;
        case litmus::OpKind::Store: right = c == InstrClass::VectorStore || c == InstrClass::LdsStore; break;
        default: right = ins.is_atomic(); break;
      }
      EXPECT_TRUE(right) << b.file << " P" << th.thread << ":" << lit << ": " << ins.mnemonic;
      EXPECT_EQ(ins.origin.instruction, lit);
      EXPECT_EQ(ins.origin.role, "access");
    }
  }
  return untied;
}

// llc >= 19 turns an idempotent atomicrmw (add 0, or 0, ...) that is monotonic or acquire into
// an atomic load (AtomicExpand, lowerIdempotentRMWIntoFencedLoad): the one bundled test with
// such an rmw cannot tie it to an atomic.
bool idempotent_rmw(const litmus::Instruction& i) {
  return i.kind == litmus::OpKind::Rmw && !i.annots.cas && i.value.kind == litmus::Expr::Kind::Binary &&
         i.value.operands[1].is_constant() && i.value.operands[1].value == 0 &&
         (i.annots.order == litmus::MemoryOrder::Relaxed || i.annots.order == litmus::MemoryOrder::Acquire);
}

// With ordinary accesses volatile, llc may not remove or merge them: every access of every
// bundled test is tied to exactly one llc memory instruction of its kind.
TEST_P(LlcRoundTrip, VolatileTiesEveryAccess) {
  const Target& target = TargetCatalog::builtin().get(GetParam().target);
  std::optional<LlcTool> llc = require_llc(GetParam().llc);
  if (!llc) return;
  std::vector<LlcRun> runs = run_all(*llc, target, {.volatile_ordinary = true});
  ASSERT_GT(runs.size(), 50u);  // the library, not an empty folder
  std::size_t tied = 0;
  for (std::size_t n = 0; n < runs.size(); ++n) {
    const Bundled& b = bundled()[n];
    const LlvmModule& m = runs[n].module;
    const LlcResult& r = runs[n].result;
    for (int u : check_ties(b, r, m, tied)) {
      const litmus::Instruction& i =
          b.test.threads[static_cast<std::size_t>(u / 1000)].code[static_cast<std::size_t>(u % 1000)];
      EXPECT_TRUE(llc->version >= 19 && idempotent_rmw(i))
          << b.file << ": P" << u / 1000 << ":" << u % 1000
          << " untied: " << fmt::format("{}", fmt::join(r.threads[static_cast<std::size_t>(u / 1000)].problems, "; "));
    }
  }
  EXPECT_GT(tied, 500u);  // 540 or 541 accesses of the library tie
}

// Without volatile, llc removes or merges non-atomic accesses (dead stores, repeated loads):
// every atomic is still tied, and every untied access is ordinary and reported.
void atomics_tie(const RoundTrip& param) {
  const Target& target = TargetCatalog::builtin().get(param.target);
  std::optional<LlcTool> llc = require_llc(param.llc);
  if (!llc) return;
  int untied_ordinary = 0;
  std::vector<LlcRun> runs = run_all(*llc, target, {});
  ASSERT_GT(runs.size(), 50u);  // the library, not an empty folder
  std::size_t tied = 0;
  for (std::size_t n = 0; n < runs.size(); ++n) {
    const Bundled& b = bundled()[n];
    const LlvmModule& m = runs[n].module;
    const LlcResult& r = runs[n].result;
    for (int u : check_ties(b, r, m, tied)) {
      const LlcThread& th = r.threads[static_cast<std::size_t>(u / 1000)];
      const litmus::Instruction& i =
          b.test.threads[static_cast<std::size_t>(u / 1000)].code[static_cast<std::size_t>(u % 1000)];
      std::string needle = fmt::format("P{}:{} {}", u / 1000, u % 1000, litmus::print_instruction(i));
      bool reported = std::any_of(th.problems.begin(), th.problems.end(),
                                  [&](const std::string& p) { return p.find(needle) != std::string::npos; });
      EXPECT_TRUE(reported) << b.file << ": " << needle << " untied without a problem";
      EXPECT_TRUE(!i.annots.atomic || (llc->version >= 19 && idempotent_rmw(i)))
          << b.file << ": atomic " << needle << " untied";
      untied_ordinary += !i.annots.atomic;
    }
    for (const LlcThread& th : r.threads)
      for (const std::string& p : th.problems)
        EXPECT_EQ(p.find("cannot read"), std::string::npos) << b.file << ": " << p;
  }
  // CoWW+ordinary, CoRR+ordinary and the two MP+2W tests lose an ordinary access each way.
  EXPECT_GT(untied_ordinary, 0) << "llc stopped removing dead stores and repeated loads: update docs/llvm-ir.md";
  EXPECT_GT(tied, 500u);  // 532 or 533 accesses of the library tie
}

TEST_P(LlcRoundTrip, AtomicsAlwaysTieAndDroppedOrdinaryAccessesAreReported) { atomics_tie(GetParam()); }

// The newer generations: llc's assembly parses and the atomics tie.
class LlcRoundTripNewer : public testing::TestWithParam<RoundTrip> {};
TEST_P(LlcRoundTripNewer, AtomicsAlwaysTieAndDroppedOrdinaryAccessesAreReported) { atomics_tie(GetParam()); }

std::string round_trip_name(const testing::TestParamInfo<RoundTrip>& i) {
  std::string llc = i.param.llc;
  std::replace(llc.begin(), llc.end(), '-', '_');
  return fmt::format("{}_{}", i.param.target, llc);
}

INSTANTIATE_TEST_SUITE_P(Targets, LlcRoundTrip,
                         testing::Values(RoundTrip{"gfx900", "llc-14"}, RoundTrip{"gfx90a", "llc-14"},
                                         RoundTrip{"gfx942", "llc-19"}),
                         round_trip_name);
INSTANTIATE_TEST_SUITE_P(Targets, LlcRoundTripNewer,
                         testing::Values(RoundTrip{"gfx1030", "llc-19"}, RoundTrip{"gfx1100", "llc-19"},
                                         RoundTrip{"gfx1200", "llc-19"}),
                         round_trip_name);

// --- comparison with the table ----------------------------------------------------------------

Comparison compare(const std::string& text, const std::string& target_name, const std::string& llc_name,
                   const MappingTable* table = nullptr) {
  litmus::Test t = parse(text);
  const Target& target = TargetCatalog::builtin().get(target_name);
  std::optional<LlcTool> llc = require_llc(llc_name);
  if (!llc) return {};
  MappingTable builtin = MappingTable::builtin(target.mapping);
  CompiledTest c = compile(t, target, TargetCatalog::builtin(), table ? *table : builtin);
  LlcResult r = compile_via_llc(t, target, *llc);
  return compare_with_table(t, c, r, target);
}

const OperationComparison* operation(const Comparison& c, int thread, int instruction) {
  for (const ThreadComparison& t : c.threads)
    for (const OperationComparison& o : t.operations)
      if (t.thread == thread && o.instruction == instruction) return &o;
  return nullptr;
}

// GCN-NOTES point 1: llc waits for lgkmcnt(0) before an LDS release store, where the GFX6-9
// table has the bare ds_write. The LDS store before it keeps lgkmcnt busy, so that llc 19,
// which drops waits with nothing outstanding, still shows it.
TEST(LlcCompare, LdsReleaseLeadingLgkmcntIsDetected) {
  const char* text = R"(LISA lds-release
{ a = 0; z = 0; }
 P0                        ;
 w[] a 1                   ;
 w[atomic,screl,wg] z 1    ;
regions: a:group, z:group
exists (z=1)
)";
  for (const char* llc : {"llc-14", "llc-19"}) {
    Comparison c = compare(text, "gfx900", llc);
    const OperationComparison* o = operation(c, 0, 1);
    ASSERT_TRUE(o) << llc;
    EXPECT_EQ(o->row, "store.atomic.release.wg.local");
    ASSERT_EQ(o->differences.size(), 1u) << render_comparison(c);
    EXPECT_EQ(o->differences[0], "extra wait before P0:1: llc waits for lgkmcnt to reach 0, the table does not")
        << render_comparison(c);
    EXPECT_EQ(c.problem_count(), 0) << render_comparison(c);
  }
}

// The same acquire the table has: no difference; and merged or dropped waits do not count.
TEST(LlcCompare, MatchingSequencesAreSame) {
  const char* text = R"(LISA acquire
{ x = 0; y = 0; }
 P0                         ;
 w[] x 1                    ;
 r[atomic,scacq,agent] r0 y ;
 w[atomic,screl,agent] x 2  ;
exists (0:r0=0)
)";
  for (const char* llc : {"llc-14", "llc-16", "llc-19"}) {
    Comparison c = compare(text, "gfx900", llc);
    EXPECT_EQ(c.difference_count(), 0) << llc << "\n" << render_comparison(c);
    EXPECT_EQ(c.problem_count(), 0) << llc << "\n" << render_comparison(c);
  }
}

// A table without the acquire's invalidate, and with a wrong cache bit: both reported.
TEST(LlcCompare, MissingInvalidateAndCacheBitsAreDetected) {
  nlohmann::json doc = {{"schema", "hsalit-mapping/1"},
                        {"name", "weak"},
                        {"targets", {"gfx900"}},
                        {"rows",
                         {{{"id", "load.acquire.agent"},
                           {"operation", "load"},
                           {"atomic", true},
                           {"orderings", {"acquire"}},
                           {"scopes", {"agent"}},
                           {"spaces", {"global"}},
                           {"sequence", {{{"op", "access"}, {"slc", true}}, {{"op", "s_waitcnt"}, {"vmcnt", 0}}}},
                           {"source", {{"document", "test"}, {"table", "test"}, {"row", "test"}}}}}}};
  MappingTable weak = MappingTable::from_json(doc, "weak.json");
  Comparison c = compare(R"(LISA weak
{ y = 0; }
 P0                         ;
 r[atomic,scacq,agent] r0 y ;
exists (0:r0=0)
)",
                         "gfx900", "llc-19", &weak);
  const OperationComparison* o = operation(c, 0, 0);
  ASSERT_TRUE(o);
  std::string all = fmt::format("{}", fmt::join(o->differences, "\n"));
  EXPECT_NE(all.find("different cache bits on the access: table slc, llc glc"), std::string::npos) << all;
  EXPECT_NE(all.find("extra cache instruction after P0:0: llc has `buffer_wbinvl1_vol`, the table none"),
            std::string::npos)
      << all;
}

TEST(LlcCompare, CliShowsTheTableBesideLlc) {
  std::optional<LlcTool> llc = require_llc("llc-19");
  if (!llc) return;
  TempDir dir("hsalit-cli");
  fs::path file = dir.path() / "t.litmus";
  std::ofstream(file) << R"(LISA lds
{ a = 0; z = 0; }
 P0                     ;
 w[] a 1                ;
 w[atomic,screl,wg] z 1 ;
regions: a:group, z:group
exists (z=1)
)";
  ProcessResult r = run_process({HSALIT_CLI, "compile", "--target", "gfx900", "--via-llc", "llc-19", file.string()});
  EXPECT_EQ(r.exit_status, 1) << r.err;
  EXPECT_NE(r.out.find("P0:1 w[atomic,screl,wg] z 1  [store atomic release workgroup local, row "
                       "store.atomic.release.wg.local]  DIFF"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("DIFF extra wait before P0:1"), std::string::npos) << r.out;
  ProcessResult missing = run_process({HSALIT_CLI, "compile", "--via-llc", "llc-99", file.string()});
  EXPECT_EQ(missing.exit_status, 2);
  EXPECT_NE(missing.err.find("llc-99 not found: install Debian package llvm-99"), std::string::npos) << missing.err;
  ProcessResult ir = run_process({HSALIT_CLI, "compile", "--emit", "llvm-ir", file.string()});
  EXPECT_EQ(ir.exit_status, 0);
  EXPECT_NE(ir.out.find("define amdgpu_kernel void @P0("), std::string::npos) << ir.out;
}

}  // namespace
}  // namespace hsalit::codegen
