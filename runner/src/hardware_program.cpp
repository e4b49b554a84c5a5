// The harness program generator (docs/hardware.md): one source that builds as HIP, as CUDA,
// and as plain C++ under HSALIT_HOST_EMULATION. The harness (layout, start barrier, stress,
// outcome counting, host loop) is the same text for every backend; only the memory
// operations of the test threads differ per dialect.
#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <limits>

#include "hardware_internal.hpp"
#include "hsalit/codegen/target.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/runner/hardware.hpp"
#include "hsalit/support/file_names.hpp"

namespace hsalit::runner {

using litmus::Expr;
using litmus::MemoryOrder;
using litmus::OpKind;
using litmus::Scope;

namespace {

// Emulation: std::atomic_ref (C++20, the host-emulated harness). Host: the host threads of a
// GPU build, GCC's __atomic builtins (the C++ orders; nvcc and hipcc build C++17).
enum class Dialect : std::uint8_t { Emulation, Host, HipBuiltins, Cuda };

std::string literal(std::int64_t v) {
  if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807LL - 1)";
  return fmt::format("{}LL", v);
}

std::string expr(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Constant: return literal(e.value);
    case Expr::Kind::Register: return detail::register_variable(e.name);
    case Expr::Kind::Location: throw HardwareUnsupported("a location's address used as a value");
    case Expr::Kind::Binary: break;
  }
  std::string a = expr(e.operands[0]), b = expr(e.operands[1]);
  auto wrap = [&](std::string_view op) {
    return fmt::format("(long long)((unsigned long long)({}) {} (unsigned long long)({}))", a, op, b);
  };
  switch (e.op) {
    case litmus::BinaryOp::Add: return wrap("+");
    case litmus::BinaryOp::Sub: return wrap("-");
    case litmus::BinaryOp::Xor: return fmt::format("({} ^ {})", a, b);
    case litmus::BinaryOp::And: return fmt::format("({} & {})", a, b);
    case litmus::BinaryOp::Or: return fmt::format("({} | {})", a, b);
    case litmus::BinaryOp::Eq: return fmt::format("(long long)({} == {})", a, b);
    case litmus::BinaryOp::Ne: return fmt::format("(long long)({} != {})", a, b);
  }
  return "0";
}

// ---- Host emulation: std::atomic_ref; ordinary accesses are relaxed atomics (a plain access
// racing with another thread is undefined behaviour in C++).
std::string_view cpp_order(MemoryOrder o) {
  switch (o) {
    case MemoryOrder::Relaxed: return "std::memory_order_relaxed";
    case MemoryOrder::Acquire: return "std::memory_order_acquire";
    case MemoryOrder::Release: return "std::memory_order_release";
    case MemoryOrder::AcquireRelease: return "std::memory_order_seq_cst";
  }
  return "";
}
std::string_view cpp_fail_order(MemoryOrder o) {
  return o == MemoryOrder::Release ? "std::memory_order_relaxed" : cpp_order(o);
}

// ---- HIP builtins (clang's __hip_atomic_*): orders and scopes as codegen::llvm_ordering and
// llvm_sync_scope read them. The orders are GCC's __atomic ones, which the host threads' code
// takes too (Dialect::Host).
std::string_view hip_order(MemoryOrder o) {
  switch (o) {
    case MemoryOrder::Relaxed: return "__ATOMIC_RELAXED";
    case MemoryOrder::Acquire: return "__ATOMIC_ACQUIRE";
    case MemoryOrder::Release: return "__ATOMIC_RELEASE";
    case MemoryOrder::AcquireRelease: return "__ATOMIC_SEQ_CST";
  }
  return "";
}
std::string_view hip_fail_order(MemoryOrder o) {
  return o == MemoryOrder::Release          ? "__ATOMIC_RELAXED"
         : o == MemoryOrder::AcquireRelease ? "__ATOMIC_ACQUIRE"
                                            : hip_order(o);
}
std::string_view hip_scope(Scope s) {
  switch (s) {
    case Scope::WorkItem: return "__HIP_MEMORY_SCOPE_SINGLETHREAD";
    case Scope::Wavefront: return "__HIP_MEMORY_SCOPE_WAVEFRONT";
    case Scope::WorkGroup: return "__HIP_MEMORY_SCOPE_WORKGROUP";
    case Scope::Agent: return "__HIP_MEMORY_SCOPE_AGENT";
    case Scope::System: return "__HIP_MEMORY_SCOPE_SYSTEM";
  }
  return "";
}
// __builtin_amdgcn_fence's synchronisation scope names ("" is system).
std::string_view hip_fence_scope(Scope s) {
  switch (s) {
    case Scope::WorkItem: return "singlethread";
    case Scope::Wavefront: return "wavefront";
    case Scope::WorkGroup: return "workgroup";
    case Scope::Agent: return "agent";
    case Scope::System: return "";
  }
  return "";
}

// ---- CUDA: PTX ISA 8.x, section 8 (memory consistency model) and 9.7.9.8 ld, 9.7.9.9 st,
// 9.7.13.5 atom, 9.7.13.4 fence. There is no warp scope: wave and wg are .cta.
std::string_view ptx_scope(Scope s) {
  switch (s) {
    case Scope::WorkItem:
    case Scope::Wavefront:
    case Scope::WorkGroup: return "cta";
    case Scope::Agent: return "gpu";
    case Scope::System: return "sys";
  }
  return "";
}

struct Access {
  std::string pointer;  // `(int*)(e.loc[0])` or `(long long*)(...)`
  std::string type;     // int or long long
  bool wide = false;
};

std::string ptx_atom_op(detail::RmwShape::Kind k, bool wide) {
  using K = detail::RmwShape::Kind;
  switch (k) {
    case K::Exchange: return wide ? "exch.b64" : "exch.b32";
    case K::Add:
    case K::Sub: return wide ? "add.u64" : "add.u32";
    case K::And: return wide ? "and.b64" : "and.b32";
    case K::Or: return wide ? "or.b64" : "or.b32";
    case K::Xor: return wide ? "xor.b64" : "xor.b32";
    case K::Cas: return wide ? "cas.b64" : "cas.b32";
  }
  return "";
}

// One memory operation (or fence) as a C++ statement in a dialect.
std::string memory_statement(const litmus::Instruction& ins, const Access& a, Dialect dialect) {
  const litmus::Annotations& an = ins.annots;
  const std::string reg = ins.reg.empty() ? "" : detail::register_variable(ins.reg);
  const char* c = a.wide ? "l" : "r";  // PTX operand constraint
  const char* bits = a.wide ? "b64" : "b32";
  std::string sc = fmt::format("fence.sc.{};", ptx_scope(an.scope));
  if (ins.kind == OpKind::Fence) {
    switch (dialect) {
      case Dialect::Emulation: return fmt::format("std::atomic_thread_fence({});", cpp_order(an.order));
      case Dialect::Host: return fmt::format("__atomic_thread_fence({});", hip_order(an.order));
      case Dialect::HipBuiltins:
        return fmt::format("__builtin_amdgcn_fence({}, \"{}\");", hip_order(an.order), hip_fence_scope(an.scope));
      case Dialect::Cuda:
        return fmt::format("asm volatile(\"fence.{}.{};\" ::: \"memory\");",
                           an.order == MemoryOrder::AcquireRelease ? "sc" : "acq_rel", ptx_scope(an.scope));
    }
  }
  if (ins.kind == OpKind::Load) {
    if (dialect == Dialect::Emulation)
      return fmt::format("{} = (long long)std::atomic_ref<{}>(*{}).load({});", reg, a.type, a.pointer,
                         an.atomic ? cpp_order(an.order) : "std::memory_order_relaxed");
    if (dialect == Dialect::Host)
      return fmt::format("{} = (long long)__atomic_load_n({}, {});", reg, a.pointer,
                         an.atomic ? hip_order(an.order) : "__ATOMIC_RELAXED");
    if (!an.atomic) return fmt::format("{} = (long long)*{};", reg, a.pointer);
    if (dialect == Dialect::HipBuiltins)
      return fmt::format("{} = (long long)__hip_atomic_load({}, {}, {});", reg, a.pointer, hip_order(an.order),
                         hip_scope(an.scope));
    std::string sem = an.order == MemoryOrder::Relaxed ? "relaxed" : "acquire";
    return fmt::format(
        "{{ {} v; asm volatile(\"{}ld.{}.{}.{} %0, [%1];\" : \"={}\"(v) : \"l\"({}) : \"memory\"); {} = (long "
        "long)v; }}",
        a.type, an.order == MemoryOrder::AcquireRelease ? sc + " " : "", sem, ptx_scope(an.scope), bits, c, a.pointer,
        reg);
  }
  if (ins.kind == OpKind::Store) {
    std::string value = fmt::format("({})({})", a.type, expr(ins.value));
    if (dialect == Dialect::Emulation)
      return fmt::format("std::atomic_ref<{}>(*{}).store({}, {});", a.type, a.pointer, value,
                         an.atomic ? cpp_order(an.order) : "std::memory_order_relaxed");
    if (dialect == Dialect::Host)
      return fmt::format("__atomic_store_n({}, {}, {});", a.pointer, value,
                         an.atomic ? hip_order(an.order) : "__ATOMIC_RELAXED");
    if (!an.atomic) return fmt::format("*{} = {};", a.pointer, value);
    if (dialect == Dialect::HipBuiltins)
      return fmt::format("__hip_atomic_store({}, {}, {}, {});", a.pointer, value, hip_order(an.order),
                         hip_scope(an.scope));
    std::string sem = an.order == MemoryOrder::Relaxed   ? "relaxed"
                      : an.order == MemoryOrder::Release ? "release"
                                                         : "relaxed";
    return fmt::format("asm volatile(\"{}st.{}.{}.{} [%0], %1;\" :: \"l\"({}), \"{}\"({}) : \"memory\");",
                       an.order == MemoryOrder::AcquireRelease ? sc + " " : "", sem, ptx_scope(an.scope), bits,
                       a.pointer, c, value);
  }
  // Read-modify-write.
  detail::RmwShape shape = *detail::rmw_shape(ins);
  using K = detail::RmwShape::Kind;
  std::string operand = fmt::format("({})({})", a.type, expr(shape.operand));
  if (shape.kind == K::Cas) {
    std::string expected = fmt::format("({})({})", a.type, expr(*ins.expected));
    switch (dialect) {
      case Dialect::Emulation:
        return fmt::format(
            "{{ {} old = {}; std::atomic_ref<{}>(*{}).compare_exchange_strong(old, {}, {}, {}); {} = (long long)old; "
            "}}",
            a.type, expected, a.type, a.pointer, operand, cpp_order(an.order), cpp_fail_order(an.order), reg);
      case Dialect::Host:
        return fmt::format(
            "{{ {} old = {}; __atomic_compare_exchange_n({}, &old, {}, false, {}, {}); {} = (long long)old; }}", a.type,
            expected, a.pointer, operand, hip_order(an.order), hip_fail_order(an.order), reg);
      case Dialect::HipBuiltins:
        return fmt::format(
            "{{ {} old = {}; __hip_atomic_compare_exchange_strong({}, &old, {}, {}, {}, {}); {} = (long long)old; }}",
            a.type, expected, a.pointer, operand, hip_order(an.order), hip_fail_order(an.order), hip_scope(an.scope),
            reg);
      case Dialect::Cuda: break;
    }
  }
  // C++'s name of the operation: std::atomic_ref's member, and after `__atomic_` GCC's builtin
  // (whose exchange is `__atomic_exchange_n`).
  const std::string_view cpp_fn = shape.kind == K::Exchange ? "exchange"
                                  : shape.kind == K::Add    ? "fetch_add"
                                  : shape.kind == K::Sub    ? "fetch_sub"
                                  : shape.kind == K::And    ? "fetch_and"
                                  : shape.kind == K::Or     ? "fetch_or"
                                                            : "fetch_xor";
  if (dialect == Dialect::Emulation)
    return fmt::format("{} = (long long)std::atomic_ref<{}>(*{}).{}({}, {});", reg, a.type, a.pointer, cpp_fn, operand,
                       cpp_order(an.order));
  if (dialect == Dialect::Host)
    return fmt::format("{} = (long long)__atomic_{}{}({}, {}, {});", reg, cpp_fn, shape.kind == K::Exchange ? "_n" : "",
                       a.pointer, operand, hip_order(an.order));
  if (dialect == Dialect::HipBuiltins) {
    std::string_view fn = shape.kind == K::Exchange ? "__hip_atomic_exchange"
                          : shape.kind == K::And    ? "__hip_atomic_fetch_and"
                          : shape.kind == K::Or     ? "__hip_atomic_fetch_or"
                          : shape.kind == K::Xor    ? "__hip_atomic_fetch_xor"
                                                    : "__hip_atomic_fetch_add";
    if (shape.kind == K::Sub) operand = fmt::format("({})(0 - {})", a.type, operand);
    return fmt::format("{} = (long long){}({}, {}, {}, {});", reg, fn, a.pointer, operand, hip_order(an.order),
                       hip_scope(an.scope));
  }
  // PTX atom: scar is fence.sc then atom.acq_rel (the seq_cst read-modify-write of the PTX
  // memory model's C++ mapping is fence.sc followed by an acq_rel or stronger atom).
  std::string_view sem = an.order == MemoryOrder::Relaxed   ? "relaxed"
                         : an.order == MemoryOrder::Acquire ? "acquire"
                         : an.order == MemoryOrder::Release ? "release"
                                                            : "acq_rel";
  std::string prefix = an.order == MemoryOrder::AcquireRelease ? sc + " " : "";
  if (shape.kind == K::Sub) operand = fmt::format("({})(0 - {})", a.type, operand);
  if (shape.kind == K::Cas) {
    std::string expected = fmt::format("({})({})", a.type, expr(*ins.expected));
    return fmt::format(
        "{{ {} old; asm volatile(\"{}atom.{}.{}.{} %0, [%1], %2, %3;\" : \"={}\"(old) : \"l\"({}), \"{}\"({}), "
        "\"{}\"({}) : \"memory\"); {} = (long long)old; }}",
        a.type, prefix, sem, ptx_scope(an.scope), ptx_atom_op(shape.kind, a.wide), c, a.pointer, c, expected, c,
        operand, reg);
  }
  return fmt::format(
      "{{ {} old; asm volatile(\"{}atom.{}.{}.{} %0, [%1], %2;\" : \"={}\"(old) : \"l\"({}), \"{}\"({}) : "
      "\"memory\"); {} = (long long)old; }}",
      a.type, prefix, sem, ptx_scope(an.scope), ptx_atom_op(shape.kind, a.wide), c, a.pointer, c, operand, reg);
}

std::string label_name(const std::string& label) { return "L_" + detail::register_variable(label).substr(2); }

// Declarations of the thread's registers with their initial values.
std::string register_declarations(const litmus::Test& test, const detail::TestFacts& facts, int thread) {
  std::string out;
  for (const std::string& r : facts.registers[static_cast<std::size_t>(thread)]) {
    std::int64_t initial = 0;
    for (const litmus::InitEntry& e : test.init)
      if (e.thread == thread && e.name == r) initial = e.value.value;
    out += fmt::format("  long long {} = {};\n", detail::register_variable(r), literal(initial));
  }
  return out;
}

// The observed registers of the thread, written to the instance's result slots.
std::string store_results(const OutcomeEncoding& enc, int thread) {
  std::string out;
  for (std::size_t i = 0; i < enc.observed.size(); ++i)
    if (enc.observed[i].thread == thread)
      out += fmt::format("  e.results[{}] = {};\n", i, detail::register_variable(enc.observed[i].name));
  return out;
}

std::string cpp_thread_body(const litmus::Test& test, const detail::TestFacts& facts, const OutcomeEncoding& enc,
                            int thread, Dialect dialect) {
  const litmus::Thread& t = test.threads[static_cast<std::size_t>(thread)];
  std::string out = register_declarations(test, facts, thread);
  for (std::size_t i = 0; i < t.code.size(); ++i) {
    const litmus::Instruction& ins = t.code[i];
    if (ins.kind != OpKind::Label) out += fmt::format("  // P{}:{} {}\n", t.id, i, litmus::print_instruction(ins));
    switch (ins.kind) {
      case OpKind::Load:
      case OpKind::Store:
      case OpKind::Rmw: {
        int loc = detail::location_index(facts, ins.addr.base.name);
        Access a;
        a.wide = ins.annots.size == litmus::AccessSize::Double;
        a.type = a.wide ? "long long" : "int";
        std::string base = fmt::format("e.loc[{}]", loc);
        if (ins.addr.offset && ins.addr.offset->is_register())
          base = fmt::format("({} + {})", base, detail::register_variable(ins.addr.offset->name));
        a.pointer = fmt::format("(({}*){})", a.type, base);
        out += "  " + memory_statement(ins, a, dialect) + "\n";
        break;
      }
      case OpKind::Fence: out += "  " + memory_statement(ins, {}, dialect) + "\n"; break;
      case OpKind::Mov: out += fmt::format("  {} = {};\n", detail::register_variable(ins.reg), expr(ins.value)); break;
      case OpKind::Branch:
        if (ins.condition)
          out += fmt::format("  if ({} != 0) goto {};\n", expr(*ins.condition), label_name(ins.label));
        else
          out += fmt::format("  goto {};\n", label_name(ins.label));
        break;
      case OpKind::Label: out += fmt::format("{}:;\n", label_name(ins.label)); break;
      // An execution barrier of the test's work-group, which the instance has to itself
      // (docs/hardware.md, "Work-group barriers"); the idle threads of the work-group join it.
      case OpKind::Barrier: out += "  hsalit_block_barrier();\n"; break;
    }
  }
  out += store_results(enc, thread);
  return out;
}

std::string c_string(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\')
      out += fmt::format("\\{}", ch);
    else if (u < 0x20 || u >= 0x7f)
      out += fmt::format("\\{:03o}", u);
    else
      out += ch;
  }
  return out + "\"";
}

// The harness text shared by every backend. Placeholders are filled by generate().
constexpr std::string_view kPrelude = R"HSALIT(#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <system_error>
#include <thread>
#include <vector>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#if defined(HSALIT_HOST_EMULATION)
#include <barrier>
#include <memory>
#define HSALIT_DEVICE static inline
#define HSALIT_BOTH static inline
#define HSALIT_KERNEL static
#elif defined(__CUDACC__)
#define HSALIT_DEVICE static __device__ inline
#define HSALIT_BOTH static __host__ __device__ inline
#define HSALIT_KERNEL __global__
#else
#include <hip/hip_runtime.h>
#define HSALIT_DEVICE static __device__ inline
#define HSALIT_BOTH static __host__ __device__ inline
#define HSALIT_KERNEL __global__
#endif
)HSALIT";

constexpr std::string_view kHarnessDevice = R"HSALIT(
// ---- Device side: control atomics, stress, start barrier, outcome counting.
struct Params {
  long long* mem;                  // global locations of every instance (8-byte slots)
  long long* results;              // [instance][kObservedSlots]: observed registers
  int* assign;                     // per hardware thread: instance * kThreads + test thread, or -1
  int* slot;                       // per hardware thread: its instance's slot in the work-group
  unsigned* control;               // [0] arrivals [1] finished [2] barrier time-outs [3] logged
  unsigned* scratch;               // the stress region
  unsigned long long* histogram;   // [kOutcomes]
  long long* log;                  // [kLogCapacity][kObservedSlots]: outcomes outside the domains
  int instances;
  int participants;                // test threads per launch
  int spacing;                     // 1: every location of every instance on its own line
  int stress_rounds;               // accesses per stressing thread (0: idle threads stay idle)
  int prestress_rounds;            // accesses per test thread before the barrier
  int delay_rounds;                // `delay`: at most this many idle spins after the start
  long long spin_limit;            // start-barrier spins before giving up
  unsigned seed;
  int* idle_barriers;              // per hardware thread: the work-group barriers an idle thread joins
  unsigned* ready;                 // per instance: its threads arrived (host threads only)
  unsigned* done;                  // per instance: its threads finished (host threads only)
  unsigned* late;                  // per instance: threads that started after one had finished
};

// What a test thread sees: where its instance's locations are, and where its results go.
struct Env {
  long long* loc[kLocationSlots];
  long long* results;
  long long* global_base[kLocationSlots];  // inline assembly: uniform base per location
  unsigned offset_bytes;                   // inline assembly: the instance's byte offset
  unsigned lds_address[kLocationSlots];    // inline assembly: LDS byte address (group locations)
};

// The test's work-group barrier. CUDA (sm_70 and later) and the emulation count threads, so
// every idle thread of the work-group joins it; AMD hardware counts waves, so only the idle
// threads of waves without a test thread do (a wave runs both sides of a branch).
#if defined(HSALIT_HOST_EMULATION)
static thread_local std::barrier<>* hsalit_current_barrier = nullptr;
HSALIT_DEVICE void hsalit_block_barrier() { hsalit_current_barrier->arrive_and_wait(); }
constexpr bool kIdleLanesJoinBarriers = true;
#else
HSALIT_DEVICE void hsalit_block_barrier() { __syncthreads(); }
#if defined(__CUDACC__)
constexpr bool kIdleLanesJoinBarriers = true;
#else
constexpr bool kIdleLanesJoinBarriers = false;
#endif
#endif

#if defined(HSALIT_HOST_EMULATION)
HSALIT_DEVICE unsigned hsalit_add(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
HSALIT_DEVICE unsigned long long hsalit_add64(unsigned long long* p, unsigned long long v) {
  return std::atomic_ref<unsigned long long>(*p).fetch_add(v);
}
HSALIT_DEVICE unsigned hsalit_load(unsigned* p) { return std::atomic_ref<unsigned>(*p).load(std::memory_order_acquire); }
HSALIT_DEVICE void hsalit_pause() { std::this_thread::yield(); }
HSALIT_DEVICE void hsalit_touch(unsigned* p, unsigned v) {
  std::atomic_ref<unsigned> w(*p);
  w.store(w.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}
#elif defined(__CUDACC__)
// The control words at system scope where host threads take part (they live in host memory).
HSALIT_DEVICE unsigned hsalit_add(unsigned* p, unsigned v) {
  if (kHostThreads > 0) return atomicAdd_system(p, v);
  return atomicAdd(p, v);
}
HSALIT_DEVICE unsigned long long hsalit_add64(unsigned long long* p, unsigned long long v) { return atomicAdd(p, v); }
HSALIT_DEVICE unsigned hsalit_load(unsigned* p) {
  unsigned v;
  if (kHostThreads > 0)
    asm volatile("ld.acquire.sys.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  else
    asm volatile("ld.acquire.gpu.b32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}
HSALIT_DEVICE void hsalit_pause() { __nanosleep(32); }
HSALIT_DEVICE void hsalit_touch(unsigned* p, unsigned v) {
  volatile unsigned* w = p;
  *w = *w + v;
}
#else
constexpr int kControlScope = kHostThreads > 0 ? __HIP_MEMORY_SCOPE_SYSTEM : __HIP_MEMORY_SCOPE_AGENT;
HSALIT_DEVICE unsigned hsalit_add(unsigned* p, unsigned v) {
  return __hip_atomic_fetch_add(p, v, __ATOMIC_RELAXED, kControlScope);
}
HSALIT_DEVICE unsigned long long hsalit_add64(unsigned long long* p, unsigned long long v) { return atomicAdd(p, v); }
HSALIT_DEVICE unsigned hsalit_load(unsigned* p) { return __hip_atomic_load(p, __ATOMIC_ACQUIRE, kControlScope); }
HSALIT_DEVICE void hsalit_pause() { __builtin_amdgcn_s_sleep(1); }
HSALIT_DEVICE void hsalit_touch(unsigned* p, unsigned v) {
  volatile unsigned* w = p;
  *w = *w + v;
}
#endif

// `delay`: a random number of idle spins below `rounds`, drawn from the seed and `who`.
HSALIT_BOTH void hsalit_delay(unsigned seed, unsigned who, int rounds) {
  if (rounds <= 0) return;
  unsigned x = (seed ^ (who * 2654435761u)) * 1664525u + 1013904223u;
  int n = (int)((x >> 8) % (unsigned)rounds);
  for (volatile int k = 0; k < n; k = k + 1) {
  }
}

HSALIT_BOTH long long* hsalit_global(const Params& p, int loc, int inst) {
  return p.spacing ? p.mem + ((long long)loc * p.instances + inst) * kSpacingSlots
                   : p.mem + (long long)inst * kLocations + loc;
}

// Random accesses to the scratch region; stressing threads stop once the test threads are done.
HSALIT_DEVICE void hsalit_stress(const Params& p, int gid, int rounds, bool until_done) {
  unsigned x = p.seed ^ ((unsigned)gid * 2654435761u);
  for (int r = 0; r < rounds; ++r) {
    x = x * 1664525u + 1013904223u;
    hsalit_touch(p.scratch + ((x >> 7) % kScratchWords), x);
    if (until_done && (r & 63) == 63 && hsalit_load(&p.control[1]) >= (unsigned)p.participants) break;
  }
}

HSALIT_DEVICE void hsalit_env(const Params& p, int inst, int slot, long long* lds, Env& e) {
  for (int l = 0; l < kLocations; ++l) {
    if (hsalit_group_location(l)) {
      e.loc[l] = lds + slot * kLocations + l;
      e.global_base[l] = nullptr;
#if !defined(HSALIT_HOST_EMULATION) && !defined(__CUDACC__)
      e.lds_address[l] = (unsigned)(size_t)(__attribute__((address_space(3))) long long*)(e.loc[l]);
#else
      e.lds_address[l] = 0;
#endif
    } else {
      e.loc[l] = hsalit_global(p, l, inst);
      e.global_base[l] = p.spacing ? p.mem + (long long)l * p.instances * kSpacingSlots : p.mem + l;
      e.lds_address[l] = 0;
    }
  }
  e.offset_bytes = (unsigned)(p.spacing ? (long long)inst * kSpacingSlots * 8 : (long long)inst * kLocations * 8);
  e.results = p.results + (long long)inst * kObservedSlots;
}

// Before the work-group barrier: each test thread writes the initial values of its instance's
// group locations (the same values, so the writes agree).
HSALIT_DEVICE void hsalit_prepare(const Params& p, int gid, long long* lds) {
  int a = p.assign[gid];
  if (a < 0 || !kHasGroupLocations) return;
  int slot = p.slot[gid];
  for (int l = 0; l < kLocations; ++l)
    if (hsalit_group_location(l)) {
#if defined(HSALIT_HOST_EMULATION)
      std::atomic_ref<long long>(lds[slot * kLocations + l]).store(hsalit_initial_value(l), std::memory_order_relaxed);
#else
      lds[slot * kLocations + l] = hsalit_initial_value(l);
#endif
    }
}

HSALIT_DEVICE void hsalit_dispatch(int thread, const Env& e);

// Adds one to `word` and waits until it reaches `count`. A bounded spin: work-groups that are
// not resident would otherwise hang the GPU; past the limit it counts a time-out and goes on.
HSALIT_DEVICE void hsalit_arrive_and_wait(const Params& p, unsigned* word, unsigned count) {
  hsalit_add(word, 1u);
  long long spins = 0;
  while (hsalit_load(word) < count) {
    if (++spins > p.spin_limit) {
      hsalit_add(&p.control[2], 1u);
      break;
    }
    hsalit_pause();
  }
}

// An instance's start with host threads. On a GPU its threads spin on the instance's word. In
// the emulation, whose GPU threads outnumber the cores, they sleep until the instance's host
// threads have arrived and only then arrive themselves: the threads spinning are those of the
// instance about to start, so its two sides run at the same time (docs/hardware.md, "Overlap").
HSALIT_DEVICE void hsalit_instance_start(const Params& p, int inst) {
#if defined(HSALIT_HOST_EMULATION)
  std::atomic_ref<unsigned> arrived(p.ready[inst]);
  for (unsigned v = arrived.load(std::memory_order_acquire); v < (unsigned)kHostThreads;
       v = arrived.load(std::memory_order_acquire))
    arrived.wait(v, std::memory_order_acquire);
#endif
  hsalit_arrive_and_wait(p, &p.ready[inst], (unsigned)kThreads);
}

HSALIT_DEVICE void hsalit_run(const Params& p, int gid, long long* lds) {
  int a = p.assign[gid];
  if (a < 0) {
    for (int b = 0; b < p.idle_barriers[gid]; ++b) hsalit_block_barrier();
    if (p.stress_rounds > 0) hsalit_stress(p, gid, p.stress_rounds, true);
    return;
  }
  int inst = a / kThreads, thread = a % kThreads;
  Env e;
  hsalit_env(p, inst, p.slot[gid], lds, e);
  if (p.prestress_rounds > 0) hsalit_stress(p, gid, p.prestress_rounds, false);
  // The start barrier: every test thread of the launch arrives, then all go together.
  hsalit_arrive_and_wait(p, &p.control[0], (unsigned)p.participants);
  // With host threads, each instance starts on its own: a host worker runs its instances one
  // after the other, so the GPU threads of an instance wait for it.
  if (kHostThreads > 0) hsalit_instance_start(p, inst);
  hsalit_delay(p.seed, (unsigned)gid, p.delay_rounds);
  if (kHostThreads > 0 && hsalit_load(&p.done[inst]) != 0) hsalit_add(&p.late[inst], 1u);
  hsalit_dispatch(thread, e);
  if (kHostThreads > 0) hsalit_add(&p.done[inst], 1u);
  hsalit_add(&p.control[1], 1u);
}

HSALIT_DEVICE void hsalit_count(const Params& p, int inst);

#if defined(HSALIT_HOST_EMULATION)
static void hsalit_launch_count(const Params& p) {
  for (int i = 0; i < p.instances; ++i) hsalit_count(p, i);
}
#else
HSALIT_KERNEL void hsalit_test_kernel(Params p) {
  __shared__ long long lds[kLdsSlots];
  int gid = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  hsalit_prepare(p, gid, lds);
  __syncthreads();
  hsalit_run(p, gid, lds);
}
HSALIT_KERNEL void hsalit_count_kernel(Params p) {
  int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < p.instances) hsalit_count(p, i);
}
#endif
)HSALIT";

constexpr std::string_view kHarnessHost = R"HSALIT(
// ---- Host side: device query, layout, launches, watchdog, JSON histogram on stdout.
static void hsalit_fail(const char* what, const char* message) {
  std::printf("{\"schema\": \"hsalit-harness/1\", \"error\": \"runtime\", \"message\": \"%s: %s\"}\n", what, message);
  std::exit(4);
}
#if defined(HSALIT_HOST_EMULATION)
template <typename T>
static T* hsalit_alloc(size_t n) { return new T[n](); }
template <typename T>
static void hsalit_free(T* p) { delete[] p; }
template <typename T>
static void hsalit_put(T* dst, const T* src, size_t n) { std::memcpy(dst, src, n * sizeof(T)); }
template <typename T>
static void hsalit_get(T* dst, const T* src, size_t n) { std::memcpy(dst, src, n * sizeof(T)); }
template <typename T>
static void hsalit_zero(T* p, size_t n) { std::memset(p, 0, n * sizeof(T)); }
static bool hsalit_sync(std::string&) { return true; }
#else
#if defined(__CUDACC__)
#define HSALIT_API(name) cuda##name
#define HSALIT_SUCCESS cudaSuccess
#define HSALIT_ERROR_STRING cudaGetErrorString
typedef cudaDeviceProp hsalit_props;
#else
#define HSALIT_API(name) hip##name
#define HSALIT_SUCCESS hipSuccess
#define HSALIT_ERROR_STRING hipGetErrorString
typedef hipDeviceProp_t hsalit_props;
#endif
template <typename T>
static T* hsalit_alloc(size_t n) {
  void* p = nullptr;
  if (HSALIT_API(Malloc)(&p, n * sizeof(T)) != HSALIT_SUCCESS) hsalit_fail("malloc", "out of device memory");
  if (HSALIT_API(Memset)(p, 0, n * sizeof(T)) != HSALIT_SUCCESS) hsalit_fail("memset", "failed");
  return static_cast<T*>(p);
}
template <typename T>
static void hsalit_free(T* p) { (void)HSALIT_API(Free)(p); }
template <typename T>
static void hsalit_put(T* dst, const T* src, size_t n) {
  if (HSALIT_API(Memcpy)(dst, src, n * sizeof(T), HSALIT_API(MemcpyHostToDevice)) != HSALIT_SUCCESS)
    hsalit_fail("memcpy", "to device");
}
template <typename T>
static void hsalit_get(T* dst, const T* src, size_t n) {
  if (HSALIT_API(Memcpy)(dst, src, n * sizeof(T), HSALIT_API(MemcpyDeviceToHost)) != HSALIT_SUCCESS)
    hsalit_fail("memcpy", "from device");
}
template <typename T>
static void hsalit_zero(T* p, size_t n) {
  if (HSALIT_API(Memset)(p, 0, n * sizeof(T)) != HSALIT_SUCCESS) hsalit_fail("memset", "failed");
}
static bool hsalit_sync(std::string& error) {
  auto status = HSALIT_API(DeviceSynchronize)();
  if (status == HSALIT_SUCCESS) status = HSALIT_API(GetLastError)();
  if (status != HSALIT_SUCCESS) error = HSALIT_ERROR_STRING(status);
  return status == HSALIT_SUCCESS;
}
#endif

// Memory that host threads read and write as well: mapped, coherent host memory on a GPU (the
// device's pointer returned, the host's in *host), plain memory in the emulation.
#if defined(HSALIT_HOST_EMULATION)
template <typename T>
static T* hsalit_alloc_shared(size_t n, T** host) {
  *host = hsalit_alloc<T>(n);
  return *host;
}
template <typename T>
static void hsalit_free_shared(T* host) { hsalit_free(host); }
#else
#if defined(__CUDACC__)
#define HSALIT_HOST_ALLOC(p, n) cudaHostAlloc(p, n, cudaHostAllocMapped | cudaHostAllocPortable)
#define HSALIT_HOST_FREE cudaFreeHost
#else
#define HSALIT_HOST_ALLOC(p, n) hipHostMalloc(p, n, hipHostMallocMapped | hipHostMallocCoherent)
#define HSALIT_HOST_FREE hipHostFree
#endif
template <typename T>
static T* hsalit_alloc_shared(size_t n, T** host) {
  void* h = nullptr;
  if (HSALIT_HOST_ALLOC(&h, n * sizeof(T)) != HSALIT_SUCCESS) hsalit_fail("host alloc", "out of pinned host memory");
  std::memset(h, 0, n * sizeof(T));
  void* d = nullptr;
  if (HSALIT_API(HostGetDevicePointer)(&d, h, 0) != HSALIT_SUCCESS) hsalit_fail("host alloc", "no device pointer");
  *host = static_cast<T*>(h);
  return static_cast<T*>(d);
}
template <typename T>
static void hsalit_free_shared(T* host) { (void)HSALIT_HOST_FREE(host); }
#endif

struct HsalitConfig {
  int instances = kDefaultInstances;
  long long iterations = kDefaultIterations;
  double time_limit = kDefaultTimeLimit;
  unsigned seed = kDefaultSeed;
  int stress = kDefaultStress, shuffle = kDefaultShuffle, prestress = kDefaultPrestress, spacing = kDefaultSpacing;
  int delay = kDefaultDelay, delay_rounds = 256;
  int stress_workgroups = kDefaultStressWorkgroups;
  int stress_rounds = 4096, prestress_rounds = 64;
  long long spin_limit = kDefaultSpinLimit;
  int host_replicas = 0;  // CPU threads per host test thread (0: from the machine's cores)
  int host_stress = 1;    // with `stress` and host threads: CPU threads hammering a host region
  long long resident_workgroups = 0;  // at most this many work-groups at once (0: what the device holds)
};

// The assignment of hardware threads to (instance, test thread) for one launch. Work-group
// class c (test threads sharing a work-group) gets its own work-groups; inside, wave class j
// (threads sharing a wave) gets a band of whole waves, each wave holding warp / |class|
// instances in consecutive lanes. With `shuffle`, instances go to random work-groups and slots.
struct HsalitLayout {
  int warp = 0, per_wg = 0, wgs_per_class = 0, test_wgs = 0, blocks = 0;
  std::vector<int> assign, slot, idle_barriers;
};

static bool hsalit_layout(const HsalitConfig& c, int warp, std::mt19937& rng, HsalitLayout& out, std::string& error) {
  out.warp = warp;
  int waves = kBlockSize / warp;
  int per_wg = 1 << 30;
  for (int k = 0; k < kWgClasses; ++k) {
    int bands = kBands[k];
    if (waves < bands) {
      error = "work-groups are too small for the test's waves";
      return false;
    }
    for (int j = 0; j < bands; ++j) {
      int waves_in_band = waves / bands;
      int per_band = waves_in_band * (warp / kBandSize[k][j]);
      if (per_band == 0) {
        error = "a wave is too small for the test's wave class";
        return false;
      }
      per_wg = std::min(per_wg, per_band);
    }
  }
  // A test with a work-group barrier: one instance per work-group, whose barrier is the test's.
  if (kOneInstancePerWorkgroup) per_wg = 1;
  out.per_wg = per_wg;
  out.wgs_per_class = (c.instances + per_wg - 1) / per_wg;
  out.test_wgs = out.wgs_per_class * kWgClasses;
  out.blocks = out.test_wgs + (c.stress ? c.stress_workgroups : 0);
  out.assign.assign((size_t)out.blocks * kBlockSize, -1);
  out.slot.assign((size_t)out.blocks * kBlockSize, 0);
  out.idle_barriers.assign((size_t)out.blocks * kBlockSize, 0);
  std::vector<int> block_of(out.test_wgs);
  for (int b = 0; b < out.test_wgs; ++b) block_of[(size_t)b] = b;
  if (c.shuffle) std::shuffle(block_of.begin(), block_of.end(), rng);
  for (int k = 0; k < kWgClasses; ++k) {
    std::vector<int> instance_at((size_t)out.wgs_per_class * per_wg);
    for (size_t i = 0; i < instance_at.size(); ++i) instance_at[i] = (int)i < c.instances ? (int)i : -1;
    if (c.shuffle) std::shuffle(instance_at.begin(), instance_at.end(), rng);
    for (int w = 0; w < out.wgs_per_class; ++w) {
      int block = block_of[(size_t)(k * out.wgs_per_class + w)];
      for (int j = 0; j < kBands[k]; ++j) {
        int size = kBandSize[k][j];
        int waves_in_band = waves / kBands[k];
        int per_wave = warp / size;
        std::vector<int> position((size_t)waves_in_band * per_wave);
        for (size_t s = 0; s < position.size(); ++s) position[s] = (int)s;
        if (c.shuffle) std::shuffle(position.begin(), position.end(), rng);
        for (int s = 0; s < per_wg; ++s) {
          int inst = instance_at[(size_t)(w * per_wg + s)];
          if (inst < 0) continue;
          int pos = position[(size_t)s];
          int wave = j * waves_in_band + pos / per_wave;
          int first_lane = (pos % per_wave) * size;
          for (int m = 0; m < size; ++m) {
            size_t hw = (size_t)block * kBlockSize + (size_t)wave * warp + first_lane + m;
            out.assign[hw] = inst * kThreads + kBandThread[k][j][m];
            out.slot[hw] = s;
          }
        }
      }
    }
  }
  // The idle threads of a test work-group join its barriers (kIdleLanesJoinBarriers: every
  // idle thread, else those of waves without a test thread).
  for (int k = 0; k < kWgClasses; ++k) {
    if (kClassBarriers[k] == 0) continue;
    for (int w = 0; w < out.wgs_per_class; ++w) {
      size_t first = (size_t)block_of[(size_t)(k * out.wgs_per_class + w)] * kBlockSize;
      for (int t = 0; t < kBlockSize; ++t) {
        if (out.assign[first + t] >= 0) continue;
        bool joins = kIdleLanesJoinBarriers;
        if (!joins) {
          joins = true;
          size_t wave = first + (size_t)(t / warp) * warp;
          for (int l = 0; l < warp && wave + l < first + kBlockSize; ++l) joins = joins && out.assign[wave + l] < 0;
        }
        if (joins) out.idle_barriers[first + t] = kClassBarriers[k];
      }
    }
  }
  return true;
}

static void hsalit_parse_args(int argc, char** argv, HsalitConfig& c) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    size_t eq = a.find('=');
    if (eq == std::string::npos) continue;
    std::string k = a.substr(0, eq);
    const char* v = argv[i] + eq + 1;
    if (k == "instances") c.instances = std::max(1, std::atoi(v));
    else if (k == "iterations") c.iterations = std::max(0LL, std::atoll(v));
    else if (k == "time-limit") c.time_limit = std::atof(v);
    else if (k == "seed") c.seed = (unsigned)std::strtoul(v, nullptr, 10);
    else if (k == "stress") c.stress = std::atoi(v);
    else if (k == "shuffle") c.shuffle = std::atoi(v);
    else if (k == "prestress") c.prestress = std::atoi(v);
    else if (k == "spacing") c.spacing = std::atoi(v);
    else if (k == "delay") c.delay = std::atoi(v);
    else if (k == "stress-workgroups") c.stress_workgroups = std::max(0, std::atoi(v));
    else if (k == "spin-limit") c.spin_limit = std::atoll(v);
    else if (k == "host-replicas") c.host_replicas = std::max(0, std::atoi(v));
    else if (k == "host-stress") c.host_stress = std::max(0, std::atoi(v));
    else if (k == "resident-workgroups") c.resident_workgroups = std::max(0LL, std::atoll(v));
  }
}

// ---- The host as an agent (docs/hardware.md): the test threads of other agents than P0's run
// on CPU threads, `replicas` per host test thread, each running its share of the instances one
// after the other. A worker arrives once at the start barrier, like a GPU test thread.
static unsigned hsalit_host_add(unsigned* p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static unsigned hsalit_host_load(unsigned* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
// hsalit_arrive_and_wait on the host. A spinning worker gives way now and then: more threads
// than cores must still progress.
static void hsalit_host_arrive_and_wait(const Params& p, unsigned* word, unsigned count) {
  hsalit_host_add(word, 1u);
#if defined(HSALIT_HOST_EMULATION)
  std::atomic_ref<unsigned>(*word).notify_all();  // the emulated GPU threads sleeping on it
#endif
  long long spins = 0;
  while (hsalit_host_load(word) < count) {
    if (++spins > p.spin_limit) {
      hsalit_host_add(&p.control[2], 1u);
      break;
    }
    if ((spins & 255) == 0) std::this_thread::yield();
  }
}

static void hsalit_host_env(const Params& p, int inst, Env& e) {
  for (int l = 0; l < kLocations; ++l) {
    e.loc[l] = hsalit_global(p, l, inst);  // a host thread's locations are global (checked by hsalit)
    e.global_base[l] = nullptr;
    e.lds_address[l] = 0;
  }
  e.offset_bytes = 0;
  e.results = p.results + (long long)inst * kObservedSlots;
}

static void hsalit_host_dispatch(int thread, const Env& e);

// The cores this process may run on, in order (none known off Linux: nothing is pinned).
static std::vector<int> hsalit_allowed_cores() {
  std::vector<int> cores;
#if defined(__linux__)
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cores.push_back(c);
#endif
  return cores;
}

// Runs the calling thread on `count` allowed cores from the `first`-th (modulo their number).
static void hsalit_pin_self(const std::vector<int>& allowed, size_t first, size_t count) {
#if defined(__linux__)
  if (allowed.size() < 2) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  for (size_t k = 0; k < count; ++k) CPU_SET(allowed[(first + k) % allowed.size()], &set);
  (void)pthread_setaffinity_np(pthread_self(), sizeof set, &set);
#else
  (void)allowed;
  (void)first;
  (void)count;
#endif
}

// Where the host workers run: worker `k` (from 1) on the `k`-th allowed core, modulo the
// `host_cores` cores from the first; the first (core 0 mostly) is left to the launching thread
// with a GPU. In the emulation the workers take at most half the cores and the emulated GPU's
// threads the others, the first among them: an instance's two sides then run on different
// cores, as they do on a machine with a GPU, instead of taking turns on one.
struct HsalitCores {
  std::vector<int> allowed = hsalit_allowed_cores();
  size_t host_cores = 0;
  explicit HsalitCores(int host_workers) {
    size_t n = allowed.size(), workers = (size_t)std::max(1, host_workers);
#if defined(HSALIT_HOST_EMULATION)
    host_cores = std::max<size_t>(1, std::min(workers, n / 2));
#else
    host_cores = n > 1 ? std::min(workers, n - 1) : n;
#endif
  }
  void pin_worker(int k) const { hsalit_pin_self(allowed, 1 + (size_t)(k - 1) % std::max<size_t>(1, host_cores), 1); }
  // The emulated GPU: the cores the workers leave (threads it starts inherit them).
  void pin_emulated_gpu() const {
    if (allowed.size() > host_cores) hsalit_pin_self(allowed, 1 + host_cores, allowed.size() - host_cores);
  }
};

#if defined(HSALIT_HOST_EMULATION)
// The emulated GPU: a CPU thread per hardware thread, started once and reused by every launch
// (starting thousands of threads per launch cost more than the launch itself). A launch
// releases them all through `start_`; `finish_` waits for them; a std::barrier per work-group
// is its __syncthreads. With host threads they run on the cores the host workers leave.
class HsalitEmulatedGpu {
 public:
  HsalitEmulatedGpu(const Params& p, int blocks, const HsalitCores& cores)
      : p_(p), cores_(cores), lds_((size_t)blocks, std::vector<long long>(kLdsSlots, 0)),
        start_((std::ptrdiff_t)blocks * kBlockSize + 1), finish_((std::ptrdiff_t)blocks * kBlockSize + 1) {
    for (int b = 0; b < blocks; ++b) workgroups_.push_back(std::make_unique<std::barrier<>>(kBlockSize));
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < kBlockSize; ++t) try {
          threads_.emplace_back([this, b, t] { serve(b, t); });
        } catch (const std::system_error& e) {
          // The threads started wait for the others: report and leave without them.
          std::printf("{\"schema\": \"hsalit-harness/1\", \"error\": \"emulation\", \"message\": \"cannot "
                      "start thread %d of %d: %s\"}\n", b * kBlockSize + t + 1, blocks * kBlockSize, e.what());
          std::fflush(stdout);
          std::_Exit(4);
        }
  }
  HsalitEmulatedGpu(const HsalitEmulatedGpu&) = delete;
  HsalitEmulatedGpu& operator=(const HsalitEmulatedGpu&) = delete;
  ~HsalitEmulatedGpu() {
    stop_.store(true, std::memory_order_relaxed);  // read after the barrier below
    start_.arrive_and_wait();
    for (std::thread& t : threads_) t.join();
  }
  // Starts a launch of the test kernel with the parameters as they are now; returns at once.
  void launch() { start_.arrive_and_wait(); }
  // Waits until every thread of the launch has finished.
  void wait() { finish_.arrive_and_wait(); }

 private:
  void serve(int b, int t) {
    if (kHostThreads > 0) cores_.pin_emulated_gpu();
    hsalit_current_barrier = workgroups_[(size_t)b].get();
    const int gid = b * kBlockSize + t;
    long long* lds = lds_[(size_t)b].data();
    for (;;) {
      start_.arrive_and_wait();
      if (stop_.load(std::memory_order_relaxed)) return;
      hsalit_prepare(p_, gid, lds);
      hsalit_current_barrier->arrive_and_wait();
      hsalit_run(p_, gid, lds);
      finish_.arrive_and_wait();
    }
  }
  const Params& p_;
  const HsalitCores& cores_;
  std::vector<std::vector<long long>> lds_;
  std::vector<std::unique_ptr<std::barrier<>>> workgroups_;
  std::barrier<> start_, finish_;
  std::atomic<bool> stop_{false};
  std::vector<std::thread> threads_;
};
#endif

// Whether each instance's threads overlapped: at its start a participant reads how many of
// the instance's participants have finished; a non-zero count means it started late.
// `p`: the host's view (host pointers).
static void hsalit_host_worker(const Params& p, int host_thread, int replica, int replicas) {
  if (p.prestress_rounds > 0) {
    unsigned x = p.seed ^ (unsigned)(host_thread * 7919 + replica);
    for (int r = 0; r < p.prestress_rounds; ++r) {
      x = x * 1664525u + 1013904223u;
      unsigned* w = p.scratch + ((x >> 7) % kScratchWords);
      __atomic_store_n(w, __atomic_load_n(w, __ATOMIC_RELAXED) + x, __ATOMIC_RELAXED);
    }
  }
  hsalit_host_arrive_and_wait(p, &p.control[0], (unsigned)p.participants);
  for (int inst = replica; inst < p.instances; inst += replicas) {
    hsalit_host_arrive_and_wait(p, &p.ready[inst], (unsigned)kThreads);
    hsalit_delay(p.seed, 0x80000000u ^ (unsigned)(inst * kThreads + kHostThread[host_thread]), p.delay_rounds);
    if (hsalit_host_load(&p.done[inst]) != 0) hsalit_host_add(&p.late[inst], 1u);
    Env e;
    hsalit_host_env(p, inst, e);
    hsalit_host_dispatch(kHostThread[host_thread], e);
    hsalit_host_add(&p.done[inst], 1u);
  }
  hsalit_host_add(&p.control[1], 1u);
}

constexpr int kEmulatedThreads = 8192;  // the host emulation's hardware threads at once

int main(int argc, char** argv) {
  HsalitConfig c;
  hsalit_parse_args(argc, argv, c);
  std::string device = "host emulation";
  int warp = kEmulatedWarp;
  // The emulation's "device" holds as many work-groups as 8192 CPU threads make: it runs a CPU
  // thread per hardware thread, and a process cannot start a work-group of 256 per instance
  // for a thousand instances.
  long long resident_blocks = std::max(1, kEmulatedThreads / kBlockSize);
#if !defined(HSALIT_HOST_EMULATION)
  int count = 0;
  auto status = HSALIT_API(GetDeviceCount)(&count);
  if (status != HSALIT_SUCCESS || count == 0) {
    std::printf("{\"schema\": \"hsalit-harness/1\", \"error\": \"no-device\", \"message\": \"%s\"}\n",
                status != HSALIT_SUCCESS ? HSALIT_ERROR_STRING(status) : "no device");
    return 3;
  }
  hsalit_props props;
  if (HSALIT_API(GetDeviceProperties)(&props, 0) != HSALIT_SUCCESS) hsalit_fail("device properties", "failed");
  device = props.name;
#if !defined(__CUDACC__)
  device += std::string(" (") + props.gcnArchName + ")";
#endif
  warp = props.warpSize;
  resident_blocks = (long long)props.multiProcessorCount * std::max(1, props.maxThreadsPerMultiProcessor / kBlockSize);
#endif
  std::mt19937 rng(c.seed);
  HsalitLayout layout;
  std::string error;
  if (!hsalit_layout(c, warp, rng, layout, error)) {
    std::printf("{\"schema\": \"hsalit-harness/1\", \"error\": \"layout\", \"message\": \"%s\"}\n", error.c_str());
    return 4;
  }
  if (c.resident_workgroups > 0) resident_blocks = std::min(resident_blocks, c.resident_workgroups);
  // With a work-group per instance, as many instances as the device holds at once, in more
  // launches: as many runs as asked.
  if (kOneInstancePerWorkgroup && layout.blocks > resident_blocks) {
    long long fit = (resident_blocks - (c.stress ? c.stress_workgroups : 0)) / kWgClasses;
    if (fit >= 1 && fit < c.instances) {
      c.iterations = (c.iterations * c.instances + fit - 1) / fit;
      c.instances = (int)fit;
      if (!hsalit_layout(c, warp, rng, layout, error)) {
        std::printf("{\"schema\": \"hsalit-harness/1\", \"error\": \"layout\", \"message\": \"%s\"}\n", error.c_str());
        return 4;
      }
    }
  }
  if (layout.blocks > resident_blocks) {
    std::printf("{\"schema\": \"hsalit-harness/1\", \"error\": \"layout\", \"message\": \"%d work-groups cannot all "
                "be resident (at most %lld): lower the instances\"}\n", layout.blocks, resident_blocks);
    return 4;
  }

  const size_t mem_slots = c.spacing ? (size_t)kLocations * c.instances * kSpacingSlots : (size_t)kLocations * c.instances;
  std::vector<long long> mem_init(mem_slots, 0);
  for (int i = 0; i < c.instances; ++i)
    for (int l = 0; l < kLocations; ++l) {
      if (hsalit_group_location(l)) continue;
      size_t at = c.spacing ? ((size_t)l * c.instances + i) * kSpacingSlots : (size_t)i * kLocations + l;
      mem_init[at] = hsalit_wide_location(l) ? hsalit_initial_value(l) : (long long)(unsigned)(int)hsalit_initial_value(l);
    }
  // With host threads: replicas per host test thread, and what they share with the GPU in
  // host memory (`hp`: the host's view of the same parameters).
  int replicas = c.host_replicas;
  if (replicas == 0) replicas = std::max(1, std::min(8, ((int)std::thread::hardware_concurrency() - 1) / std::max(1, kHostThreads)));
  replicas = std::min(replicas, c.instances);
  const int host_workers = kHostThreads > 0 ? kHostThreads * replicas : 0;
  Params p{};
  Params hp{};
  if (kHostThreads > 0) {
    p.mem = hsalit_alloc_shared<long long>(mem_slots, &hp.mem);
    p.results = hsalit_alloc_shared<long long>((size_t)c.instances * kObservedSlots, &hp.results);
    p.control = hsalit_alloc_shared<unsigned>(4, &hp.control);
    p.ready = hsalit_alloc_shared<unsigned>((size_t)c.instances, &hp.ready);
    p.done = hsalit_alloc_shared<unsigned>((size_t)c.instances, &hp.done);
    p.late = hsalit_alloc_shared<unsigned>((size_t)c.instances, &hp.late);
  } else {
    p.mem = hsalit_alloc<long long>(mem_slots);
    p.results = hsalit_alloc<long long>((size_t)c.instances * kObservedSlots);
    p.control = hsalit_alloc<unsigned>(4);
  }
  std::vector<unsigned> host_scratch(kScratchWords, 0);
  p.assign = hsalit_alloc<int>(layout.assign.size());
  p.slot = hsalit_alloc<int>(layout.slot.size());
  p.idle_barriers = hsalit_alloc<int>(layout.idle_barriers.size());
  p.scratch = hsalit_alloc<unsigned>(kScratchWords);
  p.histogram = hsalit_alloc<unsigned long long>(kOutcomes);
  p.log = hsalit_alloc<long long>((size_t)kLogCapacity * kObservedSlots);
  p.instances = c.instances;
  p.participants = c.instances * kDeviceThreads + host_workers;
  p.spacing = c.spacing;
  p.stress_rounds = c.stress ? c.stress_rounds : 0;
  p.prestress_rounds = c.prestress ? c.prestress_rounds : 0;
  p.delay_rounds = c.delay ? c.delay_rounds : 0;
  p.spin_limit = c.spin_limit;
  p.seed = c.seed;
  hsalit_put(p.assign, layout.assign.data(), layout.assign.size());
  hsalit_put(p.slot, layout.slot.data(), layout.slot.size());
  hsalit_put(p.idle_barriers, layout.idle_barriers.data(), layout.idle_barriers.size());
  if (kHostThreads > 0) {
    Params shared = hp;
    hp = p;
    hp.mem = shared.mem;
    hp.results = shared.results;
    hp.control = shared.control;
    hp.ready = shared.ready;
    hp.done = shared.done;
    hp.late = shared.late;
    hp.scratch = host_scratch.data();
  }
  unsigned long long overlapped = 0;
  const HsalitCores cores(host_workers);
#if defined(HSALIT_HOST_EMULATION)
  HsalitEmulatedGpu gpu(p, layout.blocks, cores);
#endif

  auto start = std::chrono::steady_clock::now();
  long long done = 0;
  bool time_limit_hit = false, barrier_timeout = false;
  unsigned control[4] = {0, 0, 0, 0};
  // The control words: in host memory with host threads (the workers use them), else on the
  // device.
  auto read_control = [&] {
    if (kHostThreads > 0)
      std::memcpy(control, hp.control, sizeof control);
    else
      hsalit_get(control, p.control, 4);
  };
  auto write_control = [&] {
    if (kHostThreads > 0)
      std::memcpy(hp.control, control, sizeof control);
    else
      hsalit_put(p.control, control, 4);
  };
  for (long long it = 0; it < c.iterations; ++it) {
    double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed > c.time_limit) {
      time_limit_hit = true;
      break;
    }
    if (c.shuffle && it > 0) {
      // A shuffle moves instances, never the launch's size: the buffers, and the emulated GPU's
      // threads, are sized for the first layout.
      const int blocks = layout.blocks;
      hsalit_layout(c, warp, rng, layout, error);
      if (layout.blocks != blocks) hsalit_fail("layout", "a shuffle changed the number of work-groups");
      hsalit_put(p.assign, layout.assign.data(), layout.assign.size());
      hsalit_put(p.slot, layout.slot.data(), layout.slot.size());
      hsalit_put(p.idle_barriers, layout.idle_barriers.data(), layout.idle_barriers.size());
    }
    p.seed = c.seed + (unsigned)it * 7919u;
    hp.seed = p.seed;
    if (kHostThreads > 0) {
      std::memcpy(hp.mem, mem_init.data(), mem_slots * sizeof(long long));
      std::memset(hp.ready, 0, (size_t)c.instances * sizeof(unsigned));
      std::memset(hp.done, 0, (size_t)c.instances * sizeof(unsigned));
      std::memset(hp.late, 0, (size_t)c.instances * sizeof(unsigned));
    } else {
      hsalit_put(p.mem, mem_init.data(), mem_slots);
    }
    read_control();
    control[0] = control[1] = control[2] = 0;  // control[3], the outcomes logged, carries on
    write_control();
    // The GPU side starts first (a launch returns at once; the emulation's runs on threads of
    // its own), then the host workers, which meet it at the start barrier.
    std::vector<std::thread> workers;
#if defined(HSALIT_HOST_EMULATION)
    gpu.launch();
#else
    hsalit_test_kernel<<<layout.blocks, kBlockSize>>>(p);
#endif
    // `stress` on the host side: CPU threads writing a host region while the workers run.
    std::atomic<bool> workers_done{false};
    std::vector<std::thread> stressers;
    if (kHostThreads > 0 && c.stress)
      for (int s = 0; s < c.host_stress; ++s)
        stressers.emplace_back([&, s] {
          unsigned x = p.seed ^ (0x9e3779b9u * (unsigned)(s + 1));
          while (!workers_done.load(std::memory_order_relaxed))
            for (int k = 0; k < 4096; ++k) {
              x = x * 1664525u + 1013904223u;
              __atomic_fetch_add(&hp.scratch[(x >> 7) % kScratchWords], 1u, __ATOMIC_RELAXED);
            }
        });
    for (int h = 0; h < kHostThreads; ++h)
      for (int r = 0; r < replicas; ++r) {
        int k = (int)workers.size() + 1;
        workers.emplace_back([&, h, r, k] {
          cores.pin_worker(k);
          hsalit_host_worker(hp, h, r, replicas);
        });
      }
    for (std::thread& w : workers) w.join();
    workers_done.store(true, std::memory_order_relaxed);
    for (std::thread& t : stressers) t.join();
#if defined(HSALIT_HOST_EMULATION)
    gpu.wait();
#endif
    if (!hsalit_sync(error)) hsalit_fail("test kernel", error.c_str());
    read_control();
    if (kHostThreads > 0)
      for (int i = 0; i < c.instances; ++i) overlapped += hp.late[i] == 0 ? 1 : 0;
    if (control[2] != 0) {
      barrier_timeout = true;
      break;
    }
#if defined(HSALIT_HOST_EMULATION)
    hsalit_launch_count(p);
#else
    hsalit_count_kernel<<<(c.instances + 255) / 256, 256>>>(p);
#endif
    if (!hsalit_sync(error)) hsalit_fail("count kernel", error.c_str());
    ++done;
  }
  std::vector<unsigned long long> histogram(kOutcomes);
  hsalit_get(histogram.data(), p.histogram, kOutcomes);
  read_control();
  unsigned logged = std::min<unsigned>(control[3], kLogCapacity);
  std::vector<long long> log((size_t)kLogCapacity * kObservedSlots);
  hsalit_get(log.data(), p.log, log.size());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  std::printf("{\"schema\": \"hsalit-harness/1\", \"test\": \"%s\", \"device\": \"%s\", \"iterations\": %lld, "
              "\"instances\": %d, \"warp\": %d, \"work_groups\": %d, \"seconds\": %.6f, \"time_limit\": %s, "
              "\"barrier_timeout\": %s, \"histogram\": [",
              kTestName, device.c_str(), done, c.instances, warp, layout.blocks, seconds,
              time_limit_hit ? "true" : "false", barrier_timeout ? "true" : "false");
  bool first = true;
  for (unsigned long long i = 0; i < kOutcomes; ++i)
    if (histogram[i] != 0) {
      std::printf("%s[%llu, %llu]", first ? "" : ", ", i, histogram[i]);
      first = false;
    }
  std::printf("], \"other\": [");
  for (unsigned k = 0; k < logged; ++k) {
    std::printf("%s[", k ? ", " : "");
    for (int i = 0; i < kObserved; ++i) std::printf("%s%lld", i ? ", " : "", log[(size_t)k * kObservedSlots + i]);
    std::printf("]");
  }
  std::printf("], \"other_lost\": %u", control[3] - logged);
  if (kHostThreads > 0)
    std::printf(", \"host_threads\": %d, \"host_workers\": %d, \"overlapped\": %llu", kHostThreads, host_workers,
                overlapped);
  std::printf("}\n");
  if (kHostThreads > 0) {
    hsalit_free_shared(hp.mem);
    hsalit_free_shared(hp.results);
    hsalit_free_shared(hp.control);
    hsalit_free_shared(hp.ready);
    hsalit_free_shared(hp.done);
    hsalit_free_shared(hp.late);
  } else {
    hsalit_free(p.mem);
    hsalit_free(p.results);
    hsalit_free(p.control);
  }
  hsalit_free(p.assign);
  hsalit_free(p.slot);
  hsalit_free(p.idle_barriers);
  hsalit_free(p.scratch);
  hsalit_free(p.histogram);
  hsalit_free(p.log);
  return 0;
}
)HSALIT";

// The counting function: the instance's observed values, encoded as OutcomeEncoding does.
std::string count_function(const OutcomeEncoding& enc, const detail::TestFacts& facts) {
  std::string out =
      "HSALIT_DEVICE void hsalit_count(const Params& p, int inst) {\n"
      "  long long v[kObservedSlots] = {0};\n";
  for (std::size_t i = 0; i < enc.observed.size(); ++i) {
    const litmus::ObservedRef& r = enc.observed[i];
    if (r.thread) {
      out += fmt::format("  v[{}] = p.results[(long long)inst * kObservedSlots + {}];  // {}\n", i, i, r.to_string());
    } else {
      int l = detail::location_index(facts, r.name);
      out += fmt::format("  v[{}] = {}hsalit_global(p, {}, inst);  // {}\n", i,
                         facts.wide[static_cast<std::size_t>(l)] ? "*" : "(long long)*(int*)", l, r.name);
    }
  }
  out += "  unsigned long long index = 0;\n  bool other = false;\n  int digit;\n";
  for (std::size_t i = enc.observed.size(); i-- > 0;) {
    const auto& d = enc.domains[i];
    out += fmt::format("  digit = {};\n", d.size());
    for (std::size_t k = 0; k < d.size(); ++k)
      out += fmt::format("  {}if (v[{}] == {}) digit = {};\n", k ? "else " : "", i, literal(d[k]), k);
    out += fmt::format("  if (digit == {}) other = true;\n  index = index * {} + (unsigned long long)digit;\n",
                       d.size(), d.size() + 1);
  }
  out +=
      "  hsalit_add64(&p.histogram[index], 1ull);\n"
      "  if (other) {\n"
      "    unsigned at = hsalit_add(&p.control[3], 1u);\n"
      "    if (at < (unsigned)kLogCapacity)\n"
      "      for (int i = 0; i < kObservedSlots; ++i) p.log[(long long)at * kObservedSlots + i] = v[i];\n"
      "  }\n"
      "}\n";
  return out;
}

struct Generated {
  std::string device_dialect_name;  // for the header comment
  std::function<std::string(int)> device_body;
};

HarnessProgram generate(const litmus::Test& test, const HarnessOptions& options, std::string_view extension,
                        std::string_view build_hint, const Generated& dialect) {
  if (auto why = hardware_unsupported_reason(test, options)) throw HardwareUnsupported(*why);
  HarnessProgram prog;
  prog.encoding = outcome_encoding(test);
  const OutcomeEncoding& enc = prog.encoding;
  const detail::TestFacts facts = detail::test_facts(test);
  const InstanceLayout layout = instance_layout(test);
  if (options.workgroup_size < 1) throw HardwareUnsupported("the work-group size must be positive");

  prog.file_name = fmt::format("{}.{}", support::safe_file_stem(test.name), extension);

  std::string s;
  s += fmt::format("// Generated by hsalit: litmus test {} for {} ({}), {}.\n", test.name, to_string(options.backend),
                   options.target, dialect.device_dialect_name);
  s += "// The harness is described in hsalit's docs/hardware.md. Build:\n";
  s += fmt::format("//   {}\n", build_hint);
  s += fmt::format("//   c++ -std=c++20 -O2 -pthread -DHSALIT_HOST_EMULATION -x c++ {} (CPU threads, no GPU)\n",
                   prog.file_name);
  s += "// Run: ./program [instances=N] [iterations=N] [time-limit=SECONDS] [seed=N] [stress=0|1] [shuffle=0|1]\n";
  s += "//      [prestress=0|1] [spacing=0|1] [delay=0|1] [stress-workgroups=N] [host-replicas=N] [host-stress=N]\n";
  s += "//      [resident-workgroups=N];\n";
  s += "//      prints one JSON line.\n";
  s += "//\n";
  {
    std::string text = litmus::print_litmus(test);
    std::size_t at = 0;
    while (at < text.size()) {
      std::size_t nl = text.find('\n', at);
      if (nl == std::string::npos) nl = text.size();
      s += "// " + text.substr(at, nl - at) + "\n";
      at = nl + 1;
    }
  }
  s += kPrelude;

  const int locations = static_cast<int>(facts.locations.size());
  const int observed = static_cast<int>(enc.observed.size());
  std::vector<int> group, wide;
  std::vector<std::string> initial;
  bool has_group = false;
  for (int l = 0; l < locations; ++l) {
    group.push_back(facts.group[static_cast<std::size_t>(l)] ? 1 : 0);
    wide.push_back(facts.wide[static_cast<std::size_t>(l)] ? 1 : 0);
    has_group |= facts.group[static_cast<std::size_t>(l)];
    std::int64_t v = 0;
    for (const litmus::InitEntry& e : test.init)
      if (!e.thread && e.name == facts.locations[static_cast<std::size_t>(l)]) v = e.value.value;
    initial.push_back(literal(v));
  }
  s += "\n// ---- The test.\n";
  s += fmt::format("static const char* const kTestName = {};\n", c_string(test.name));
  s += fmt::format("constexpr int kThreads = {};\n", test.threads.size());
  // The host threads (docs/hardware.md, "The host as an agent").
  const std::vector<bool> on_host = detail::host_threads(test);
  std::vector<int> host_ids;
  for (int t = 0; t < static_cast<int>(test.threads.size()); ++t)
    if (on_host[static_cast<std::size_t>(t)]) host_ids.push_back(t);
  s += fmt::format("constexpr int kHostThreads = {};  // test threads of other agents than P0's, run on the host\n",
                   host_ids.size());
  s += fmt::format("constexpr int kDeviceThreads = {};\n", test.threads.size() - host_ids.size());
  if (host_ids.empty()) host_ids.push_back(-1);
  s += fmt::format("static const int kHostThread[{}] = {{{}}};\n", host_ids.size(), fmt::join(host_ids, ", "));
  s += fmt::format("constexpr int kLocations = {};  // ", locations);
  for (int l = 0; l < locations; ++l)
    s += fmt::format("{}{} ({})", l ? ", " : "", facts.locations[static_cast<std::size_t>(l)],
                     group[static_cast<std::size_t>(l)] ? "group" : "global");
  s += "\n";
  s += fmt::format("constexpr int kLocationSlots = {};\n", std::max(1, locations));
  // Per-location facts as functions: usable in host and device code alike.
  auto table = [&](std::string_view type, std::string_view fn, const std::vector<std::string>& values) {
    std::string out = fmt::format("HSALIT_BOTH {} {}(int l) {{\n  switch (l) {{\n", type, fn);
    for (std::size_t l = 0; l < values.size(); ++l) out += fmt::format("    case {}: return {};\n", l, values[l]);
    return out + "    default: return 0;\n  }\n}\n";
  };
  std::vector<std::string> group_text, wide_text;
  for (int g : group) group_text.push_back(g ? "true" : "false");
  for (int w : wide) wide_text.push_back(w ? "true" : "false");
  s += table("bool", "hsalit_group_location", group_text);
  s += table("bool", "hsalit_wide_location", wide_text);
  s += table("long long", "hsalit_initial_value", initial);
  s += fmt::format("constexpr bool kHasGroupLocations = {};\n", has_group ? "true" : "false");
  s += fmt::format("constexpr int kObserved = {};  // ", observed);
  for (int i = 0; i < observed; ++i)
    s += fmt::format("{}{}", i ? ", " : "", enc.observed[static_cast<std::size_t>(i)].to_string());
  s += "\n";
  s += fmt::format("constexpr int kObservedSlots = {};\n", std::max(1, observed));
  s += fmt::format("constexpr unsigned long long kOutcomes = {};\n", enc.outcome_count());
  s += fmt::format("constexpr int kBlockSize = {};\n", options.workgroup_size);
  s += fmt::format("constexpr int kLdsSlots = {};\n", has_group ? options.workgroup_size * locations : 1);
  s += "constexpr int kSpacingSlots = 32;  // 256 bytes between spaced locations\n";
  s += "constexpr int kScratchWords = 1 << 16;\n";
  s += "constexpr int kLogCapacity = 1024;\n";
  s += "constexpr int kEmulatedWarp = 4;\n";
  // Layout tables.
  std::size_t max_bands = 1, max_band = 1;
  for (const auto& wg : layout.workgroups) {
    max_bands = std::max(max_bands, wg.size());
    for (const auto& band : wg) max_band = std::max(max_band, band.size());
  }
  s += "// Work-group classes (threads sharing a work-group) and their wave classes (threads sharing a wave).\n";
  s += fmt::format("constexpr int kWgClasses = {};\n", layout.workgroups.size());
  std::vector<std::string> bands, sizes, threads;
  for (const auto& wg : layout.workgroups) {
    bands.push_back(std::to_string(wg.size()));
    std::vector<std::string> row_sizes, row_threads;
    for (std::size_t j = 0; j < max_bands; ++j) {
      row_sizes.push_back(j < wg.size() ? std::to_string(wg[j].size()) : "1");
      std::vector<int> ts(max_band, -1);
      if (j < wg.size()) std::copy(wg[j].begin(), wg[j].end(), ts.begin());
      row_threads.push_back(fmt::format("{{{}}}", fmt::join(ts, ", ")));
    }
    sizes.push_back(fmt::format("{{{}}}", fmt::join(row_sizes, ", ")));
    threads.push_back(fmt::format("{{{}}}", fmt::join(row_threads, ", ")));
  }
  s += fmt::format("static const int kBands[kWgClasses] = {{{}}};\n", fmt::join(bands, ", "));
  s += fmt::format("static const int kBandSize[kWgClasses][{}] = {{{}}};\n", max_bands, fmt::join(sizes, ", "));
  s += fmt::format("static const int kBandThread[kWgClasses][{}][{}] = {{{}}};\n", max_bands, max_band,
                   fmt::join(threads, ", "));
  // Work-group barriers: per work-group class, how many each of its threads reaches.
  const std::vector<int> barriers = detail::barrier_counts(test);
  std::vector<int> class_barriers;
  for (const auto& wg : layout.workgroups)
    class_barriers.push_back(barriers[static_cast<std::size_t>(wg.front().front())]);
  const bool barrier_test = std::any_of(barriers.begin(), barriers.end(), [](int b) { return b > 0; });
  s += fmt::format("constexpr bool kOneInstancePerWorkgroup = {};\n", barrier_test ? "true" : "false");
  s += fmt::format("static const int kClassBarriers[kWgClasses] = {{{}}};\n", fmt::join(class_barriers, ", "));
  const Incantations& inc = options.incantations;
  s += fmt::format(
      "constexpr int kDefaultInstances = {};\nconstexpr long long kDefaultIterations = {};\n"
      "constexpr double kDefaultTimeLimit = {};\nconstexpr unsigned kDefaultSeed = {}u;\n"
      "constexpr int kDefaultStress = {}, kDefaultShuffle = {}, kDefaultPrestress = {}, kDefaultSpacing = {};\n"
      "constexpr int kDefaultDelay = {};\nconstexpr int kDefaultStressWorkgroups = {};\n",
      options.instances, options.iterations, options.time_limit_seconds, static_cast<std::uint32_t>(options.seed),
      inc.stress ? 1 : 0, inc.shuffle ? 1 : 0, inc.prestress ? 1 : 0, inc.spacing ? 1 : 0, inc.delay ? 1 : 0,
      options.stress_workgroups);
  s += "#if defined(HSALIT_HOST_EMULATION)\nconstexpr long long kDefaultSpinLimit = 1LL << 26;\n#else\n"
       "constexpr long long kDefaultSpinLimit = 1LL << 22;\n#endif\n";

  s += kHarnessDevice;
  s += "\n// ---- The test threads.\n";
  for (const litmus::Thread& t : test.threads) {
    s += fmt::format("HSALIT_DEVICE void hsalit_thread_{}(const Env& e) {{\n", t.id);
    s += "  (void)e;\n#if defined(HSALIT_HOST_EMULATION)\n";
    s += cpp_thread_body(test, facts, enc, t.id, Dialect::Emulation);
    s += "#else\n";
    s += dialect.device_body(t.id);
    s += "#endif\n}\n\n";
  }
  s += "HSALIT_DEVICE void hsalit_dispatch(int thread, const Env& e) {\n  switch (thread) {\n";
  for (const litmus::Thread& t : test.threads)
    s += fmt::format("    case {}: hsalit_thread_{}(e); break;\n", t.id, t.id);
  s += "    default: break;\n  }\n}\n\n";
  // The host threads: host code with the C++ orders (GCC's __atomic builtins), or in the
  // emulation the threads above.
  s += "// ---- The host threads (other agents than P0's), in host code.\n";
  std::string host_cases, emulated_cases;
  for (const litmus::Thread& t : test.threads) {
    if (!on_host[static_cast<std::size_t>(t.id)]) continue;
    s += fmt::format("#if !defined(HSALIT_HOST_EMULATION)\nstatic void hsalit_host_thread_{}(const Env& e) {{\n", t.id);
    s += cpp_thread_body(test, facts, enc, t.id, Dialect::Host);
    s += "}\n#endif\n";
    host_cases += fmt::format("    case {}: hsalit_host_thread_{}(e); break;\n", t.id, t.id);
    emulated_cases += fmt::format("    case {}: hsalit_thread_{}(e); break;\n", t.id, t.id);
  }
  s += "static void hsalit_host_dispatch(int thread, const Env& e) {\n  (void)e;\n  switch (thread) {\n";
  s += "#if defined(HSALIT_HOST_EMULATION)\n" + emulated_cases + "#else\n" + host_cases + "#endif\n";
  s += "    default: break;\n  }\n}\n\n";
  s += count_function(enc, facts);
  s += kHarnessHost;
  prog.source = std::move(s);
  return prog;
}

// The test with its scacq and screl atomics and fences made scar (HarnessOptions::sc_orders).
litmus::Test with_seq_cst_orders(litmus::Test test) {
  for (litmus::Thread& t : test.threads)
    for (litmus::Instruction& ins : t.code) {
      const bool ordered = ins.kind == OpKind::Fence || (ins.is_memory_access() && ins.annots.atomic);
      if (ordered && (ins.annots.order == MemoryOrder::Acquire || ins.annots.order == MemoryOrder::Release))
        ins.annots.order = MemoryOrder::AcquireRelease;
    }
  return test;
}

}  // namespace

HarnessProgram generate_hip_program(const litmus::Test& given, const codegen::CompiledTest* compiled,
                                    const HarnessOptions& options) {
  const litmus::Test test = options.sc_orders ? with_seq_cst_orders(given) : given;
  HarnessOptions opt = options;
  opt.backend = HardwareBackend::Hip;
  const detail::TestFacts facts = detail::test_facts(test);
  Generated g;
  if (opt.hip_builtins) {
    OutcomeEncoding enc = outcome_encoding(test);
    g.device_dialect_name = "memory operations as __hip_atomic_* builtins";
    g.device_body = [&test, &facts, enc](int thread) {
      return cpp_thread_body(test, facts, enc, thread, Dialect::HipBuiltins);
    };
  } else {
    if (!compiled) throw HardwareUnsupported("inline-assembly mode needs the compiled test (codegen::compile)");
    g.device_dialect_name =
        fmt::format("GCN code of mapping table {} ({} flavour) as inline assembly", compiled->table, compiled->flavour);
    OutcomeEncoding enc = outcome_encoding(test);
    g.device_body = [&test, &facts, compiled, enc](int thread) {
      return register_declarations(test, facts, thread) + detail::hip_asm_thread_body(test, facts, *compiled, thread) +
             store_results(enc, thread);
    };
  }
  return generate(test, opt, "hip",
                  fmt::format("hipcc --offload-arch={} -O2 -std=c++17 FILE.hip -o program", opt.target), g);
}

std::vector<std::string> cuda_thread_code(const litmus::Test& given, bool sc_orders) {
  const litmus::Test test = sc_orders ? with_seq_cst_orders(given) : given;
  HarnessOptions opt;
  opt.backend = HardwareBackend::Cuda;
  if (auto why = hardware_unsupported_reason(test, opt)) throw HardwareUnsupported(*why);
  const detail::TestFacts facts = detail::test_facts(test);
  OutcomeEncoding enc = outcome_encoding(test);
  std::vector<std::string> out;
  for (const litmus::Thread& t : test.threads) out.push_back(cpp_thread_body(test, facts, enc, t.id, Dialect::Cuda));
  return out;
}

HarnessProgram generate_cuda_program(const litmus::Test& given, const HarnessOptions& options) {
  const litmus::Test test = options.sc_orders ? with_seq_cst_orders(given) : given;
  HarnessOptions opt = options;
  opt.backend = HardwareBackend::Cuda;
  const detail::TestFacts facts = detail::test_facts(test);
  OutcomeEncoding enc = outcome_encoding(test);
  Generated g;
  g.device_dialect_name = "memory operations as inline PTX";
  g.device_body = [&test, &facts, enc](int thread) { return cpp_thread_body(test, facts, enc, thread, Dialect::Cuda); };
  return generate(test, opt, "cu", fmt::format("nvcc -arch={} -O2 -std=c++17 FILE.cu -o program", opt.target), g);
}

}  // namespace hsalit::runner
