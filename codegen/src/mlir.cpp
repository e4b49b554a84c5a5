// Litmus thread -> MLIR `gpu.func` kernel (see mlir.hpp for the module's shape), and the MLIR
// pipeline down to LLVM IR. Registers are SSA values; branches only go forward, so every label
// is a block that takes every register of the thread as an argument and every edge into it
// passes the registers' current values.
#include "hsalit/codegen/mlir.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/process.hpp"
#include "hsalit/litmus/printer.hpp"
#include "kernel_plan.hpp"

namespace hsalit::codegen {

using detail::ident;
using detail::int_type;
using detail::string_literal;
using litmus::Expr;
using litmus::OpKind;

std::string_view to_string(MlirOps ops) { return ops == MlirOps::Amdgpu ? "amdgpu" : "llvm"; }

std::optional<MlirOps> mlir_ops_from_string(std::string_view text) {
  for (MlirOps ops : {MlirOps::Llvm, MlirOps::Amdgpu})
    if (to_string(ops) == text) return ops;
  return std::nullopt;
}

namespace {

// An SSA value, or a constant not yet written as one (`text` empty until `use` writes it).
using detail::Value;

Value constant_value(std::int64_t v, int bits) { return {"", bits, detail::truncated(v, bits)}; }

// The memref type of a location: one element of its widest access.
std::string memref_type(int bits, bool group) {
  return fmt::format("memref<1x{}, #gpu.address_space<{}>>", int_type(bits), group ? "workgroup" : "global");
}

std::string pointer_type(bool group) { return group ? "!llvm.ptr<3>" : "!llvm.ptr<1>"; }

// The fences an ordered buffer access gets (MlirOps::Amdgpu): the release part before it, the
// acquire part after it; a seq_cst access is fenced seq_cst on both sides.
struct BufferFences {
  std::string_view before, after;  // fence orderings, "" for none
};

BufferFences buffer_fences(Ordering o) {
  switch (o) {
    case Ordering::Release: return {"release", ""};
    case Ordering::Acquire: return {"", "acquire"};
    case Ordering::AcqRel: return {"release", "acquire"};
    case Ordering::SeqCst: return {"seq_cst", "seq_cst"};
    default: return {"", ""};
  }
}

// Where a thread's code is written: a kernel of its own (with the markers, results at slot 0),
// or a case of the whole test's kernel (no markers; its names prefixed, results from a slot on).
struct Embedding {
  std::string prefix;    // "P1_": every value and block name of the thread starts with it
  int result_base = 0;   // the thread's first result slot in %out
  std::string out_type;  // the whole kernel's %out
};

class KernelEmitter : detail::ThreadEmitter {
 public:
  KernelEmitter(const litmus::Test& test, int thread, const MlirOptions& options,
                const std::map<std::string, int>& location_bits, std::optional<Embedding> embedding = std::nullopt)
      : ThreadEmitter(test, thread, "MLIR", options.sc_orders),
        opt_(options),
        location_bits_(location_bits),
        embedding_(std::move(embedding)) {
    if (embedding_) prefix_ = embedding_->prefix;
  }

  // The thread as a case of the whole test's kernel: its blocks' text, from its first line (in
  // the block that starts the case) to its `gpu.return`.
  std::string embedded() {
    bind(false);
    entry();
    code();
    for (std::size_t slot = 0; slot < k_.results.size(); ++slot) {
      std::string at = fresh("slot");
      line(fmt::format("{} = arith.constant {} : index", at, embedding_->result_base + static_cast<int>(slot)));
      line(fmt::format("memref.store {}, %out[{}] : {}", use(coerce(regs_.at(k_.results[slot]), 64)), at,
                       embedding_->out_type));
    }
    line("gpu.return");
    return body_;
  }

  const std::vector<std::string>& results() const { return k_.results; }

  std::pair<LlvmKernel, std::string> run() {
    bind(false);
    std::string signature, workgroup;
    for (const std::string& a : k_.arguments) {
      bool out = &a == &k_.arguments.back();
      signature += fmt::format("{}{}: {}", signature.empty() ? "" : ", ", argument(a, out), argument_type(a, out));
    }
    for (const std::string& l : k_.lds)
      workgroup += fmt::format("{}%lds.{}: {}", workgroup.empty() ? "" : ", ", ident(l), memref_type(bits_of(l), true));
    std::string listing = entry();
    std::string constraints, operands, types;
    for (std::size_t i = 0; i < k_.arguments.size(); ++i) {
      constraints += "s,";
      operands += fmt::format("{}{}", i ? ", " : "", pointers_.at(k_.arguments[i]));
      types += fmt::format("{}{}", i ? ", " : "", pointer_type(false));
    }
    line(fmt::format("llvm.inline_asm has_side_effects {}, \"{}~{{memory}}\" {} : ({}) -> ()",
                     string_literal(fmt::format("; {} {}{}", kBeginMarker, k_.name, listing)), constraints, operands,
                     types));
    code();
    // The end marker returns a zero that every stored value is combined with (llvm_ir.hpp).
    std::string zero = fresh("end");
    line(fmt::format("{} = llvm.inline_asm has_side_effects {}, \"=v,~{{memory}}\" : () -> i32", zero,
                     string_literal(fmt::format("; {} {}\n\tv_mov_b32 $0, 0", kEndMarker, k_.name))));
    std::string out_type = argument_type("out", true);
    for (std::size_t slot = 0; slot < k_.results.size(); ++slot) {
      Value v = regs_.at(k_.results[slot]);
      if (!v.constant) {
        Value z = coerce({zero, 32, std::nullopt}, v.bits);
        std::string t = fresh("t");
        line(fmt::format("{} = arith.xori {}, {} : {}", t, v.text, z.text, int_type(v.bits)));
        v = {t, v.bits, std::nullopt};
      }
      v = coerce(v, 64);
      std::string at = fresh("slot");
      line(fmt::format("{} = arith.constant {} : index", at, slot));
      line(fmt::format("memref.store {}, %out[{}] : {}", use(v), at, out_type));
    }
    line("gpu.return");
    std::string text = fmt::format("    gpu.func @{}({}){} kernel {{\n{}    }}\n", k_.name, signature,
                                   workgroup.empty() ? "" : fmt::format(" workgroup({})", workgroup), body_);
    return {std::move(k_), std::move(text)};
  }

 private:
  // The constants every access may use, and every location's pointer in the llvm dialect (for
  // atomics and the begin marker): the memref's aligned pointer, as an integer, back to a
  // pointer of the memref's address space. Returns the begin marker's listing of the arguments.
  std::string entry() {
    line(fmt::format("{} = arith.constant 0 : index", zero_index()));
    if (opt_.ops == MlirOps::Amdgpu) line(fmt::format("{} = arith.constant 0 : i32", zero_i32()));
    std::string listing;
    for (std::size_t i = 0; i < k_.arguments.size(); ++i) {
      const std::string& a = k_.arguments[i];
      bool out = i + 1 == k_.arguments.size();
      pointers_[a] = pointer(argument(a, out), out ? out_type() : argument_type(a, false), false);
      listing += fmt::format(" {}{}=${}", out ? "@" : "", a, i);
    }
    for (const std::string& l : k_.lds) pointers_[l] = pointer("%lds." + ident(l), memref_type(bits_of(l), true), true);
    return listing;
  }

  // The thread's instructions, each after a comment with its litmus text.
  void code() {
    for (std::size_t i = 0; i < thread_.code.size(); ++i) {
      index_ = static_cast<int>(i);
      const litmus::Instruction& ins = thread_.code[i];
      if (ins.kind != OpKind::Label)
        body_ += fmt::format("      // P{}:{} {}\n", thread_.id, i, litmus::print_instruction(ins));
      instruction(ins);
    }
    index_ = -1;
  }

  std::string zero_index() const { return fmt::format("%{}c0", prefix_); }
  std::string zero_i32() const { return fmt::format("%{}c0.i32", prefix_); }
  std::string out_type() const { return embedding_ ? embedding_->out_type : argument_type("out", true); }

  int bits_of(const std::string& loc) const {
    auto it = location_bits_.find(loc);
    return it == location_bits_.end() ? 32 : it->second;
  }

  std::string argument(const std::string& a, bool out) const { return out ? "%out" : "%loc." + ident(a); }
  std::string argument_type(const std::string& a, bool out) const {
    if (out)
      return fmt::format("memref<{}xi64, #gpu.address_space<global>>", std::max<std::size_t>(1, k_.results.size()));
    return memref_type(bits_of(a), false);
  }

  std::string pointer(const std::string& memref, const std::string& memref_type, bool group) {
    std::string base = prefix_ + memref.substr(1);
    line(fmt::format("%{}.i = memref.extract_aligned_pointer_as_index {} : {} -> index", base, memref, memref_type));
    line(fmt::format("%{}.w = arith.index_cast %{}.i : index to i64", base, base));
    line(fmt::format("%{}.p = llvm.inttoptr %{}.w : i64 to {}", base, base, pointer_type(group)));
    return fmt::format("%{}.p", base);
  }

  void line(const std::string& s) { body_ += "      " + s + "\n"; }
  std::string fresh(std::string_view stem) { return fmt::format("%{}{}.{}", prefix_, stem, counter_++); }
  std::string block_name(std::string_view stem) { return fmt::format("{}{}", prefix_, stem); }

  // The litmus instruction as an MLIR location, for the memory operations.
  std::string loc() const {
    return fmt::format(" loc({})", string_literal(fmt::format(
                                       "P{}:{} {}", thread_.id, index_,
                                       litmus::print_instruction(thread_.code[static_cast<std::size_t>(index_)]))));
  }

  // The value as an SSA name, writing a constant's `arith.constant` where it is needed.
  std::string use(const Value& v) {
    if (!v.text.empty()) return v.text;
    std::string c = fresh("c");
    line(fmt::format("{} = arith.constant {} : {}", c, *v.constant, int_type(v.bits)));
    return c;
  }

  Value constant(std::int64_t value, int bits) override { return constant_value(value, bits); }

  Value arithmetic(std::string_view op, const Value& a, const Value& b, int bits) override {
    std::string x = use(a), y = use(b);
    std::string t = fresh("t");
    line(fmt::format("{} = arith.{}i {}, {} : {}", t, op, x, y, int_type(bits)));
    return {t, bits, std::nullopt};
  }

  Value comparison(bool equal, const Value& a, const Value& b, int bits) override {
    std::string x = use(a), y = use(b);
    std::string t = fresh("t");
    line(fmt::format("{} = arith.cmpi {}, {}, {} : {}", t, equal ? "eq" : "ne", x, y, int_type(a.bits)));
    std::string z = fresh("t");
    line(fmt::format("{} = arith.extui {} : i1 to {}", z, t, int_type(bits)));
    return {z, bits, std::nullopt};
  }

  Value converted(const Value& v, int bits) override {
    std::string t = fresh("t");
    line(fmt::format("{} = {} {} : {} to {}", t, v.bits < bits ? "arith.extsi" : "arith.trunci", v.text,
                     int_type(v.bits), int_type(bits)));
    return {t, bits, std::nullopt};
  }

  std::string def_name(const std::string& reg) { return fresh("r." + ident(reg)); }

  void instruction(const litmus::Instruction& ins) {
    switch (ins.kind) {
      case OpKind::Label: label(ins.label); return;
      case OpKind::Mov: assign(ins.reg, eval(ins.value, reg_bits_.at(ins.reg))); return;
      case OpKind::Branch: branch(ins); return;
      case OpKind::Barrier: {
        // amdgpu.lds_barrier waits for LDS operations only (the dialect's documentation): it
        // implements a barrier of the group segment alone; any other barrier is gpu.barrier.
        bool lds_only = opt_.ops == MlirOps::Amdgpu && ins.annots.fence_segment == litmus::Segment::Group;
        line((lds_only ? "amdgpu.lds_barrier" : "gpu.barrier") + loc());
        return;
      }
      case OpKind::Fence: fence(to_string(ordering_of(ins.annots)), ins.annots.scope); return;
      case OpKind::Load:
      case OpKind::Store:
      case OpKind::Rmw: access(ins); return;
    }
  }

  void fence(std::string_view ordering, litmus::Scope scope) {
    line(fmt::format("llvm.fence{} {}{}", detail::sync_scope(scope), ordering, loc()));
  }

  // `^L.name(%r.a.1, ... : i32, ...)`: a branch to a label passes every register.
  std::string successor(const std::string& block) {
    if (k_.results.empty()) return "^" + block;
    std::string values, types;
    for (const std::string& r : k_.results) {
      values += fmt::format("{}{}", values.empty() ? "" : ", ", use(regs_.at(r)));
      types += fmt::format("{}{}", types.empty() ? "" : ", ", int_type(reg_bits_.at(r)));
    }
    return fmt::format("^{}({} : {})", block, values, types);
  }

  void branch(const litmus::Instruction& ins) {
    std::string target = block_name("L." + ident(ins.label));
    if (!ins.condition) {
      line(fmt::format("cf.br {}", successor(target)));
      reachable_into_[ins.label] |= reachable_;
      start_block(block_name(fmt::format("dead.{}", counter_++)), false);
      return;
    }
    Value c = eval(*ins.condition, width(*ins.condition));
    std::string zero = use(constant_value(0, c.bits));
    std::string t = fresh("cond");
    line(fmt::format("{} = arith.cmpi ne, {}, {} : {}", t, use(c), zero, int_type(c.bits)));
    std::string next = block_name(fmt::format("b.{}", counter_++));
    line(fmt::format("cf.cond_br {}, {}, ^{}", t, successor(target), next));
    reachable_into_[ins.label] |= reachable_;
    start_block(next, reachable_);
  }

  void start_block(const std::string& name, bool reachable) {
    body_ += fmt::format("    ^{}:\n", name);
    reachable_ = reachable;
  }

  void label(const std::string& name) {
    std::string block = block_name("L." + ident(name));
    line(fmt::format("cf.br {}", successor(block)));
    bool reachable = reachable_ || reachable_into_[name];
    std::string arguments;
    for (const std::string& r : k_.results) {
      std::string a = def_name(r);
      arguments += fmt::format("{}{}: {}", arguments.empty() ? "" : ", ", a, int_type(reg_bits_.at(r)));
      regs_[r] = {a, reg_bits_.at(r), std::nullopt};
    }
    body_ += fmt::format("    ^{}{}:\n", block, arguments.empty() ? "" : "(" + arguments + ")");
    reachable_ = reachable;
  }

  // The llvm pointer an access uses, indexed by a register offset when there is one (an
  // address dependency); and the memref index of the same element.
  struct Address {
    std::string pointer, memref, index;
    bool group = false;
  };

  Address address(const litmus::Instruction& ins, int bits) {
    const Expr* offset = dependency_offset(ins);
    const std::string& loc = ins.addr.base.name;
    Address a;
    a.group = is_group(loc);
    a.pointer = pointers_.at(loc);
    a.memref = a.group ? "%lds." + ident(loc) : "%loc." + ident(loc);
    a.index = zero_index();
    if (!offset) return a;
    std::string off = use(eval(*offset, 64));
    std::string p = fresh("p");
    line(fmt::format("{} = llvm.getelementptr {}[{}] : ({}, i64) -> {}, {}", p, a.pointer, off, pointer_type(a.group),
                     pointer_type(a.group), int_type(bits)));
    a.pointer = p;
    a.index = fresh("idx");
    line(fmt::format("{} = arith.index_cast {} : i64 to index", a.index, off));
    return a;
  }

  // The buffer index (i32) of an address: 0, or the dependency's offset.
  std::string buffer_index(const Address& a) {
    if (a.index == zero_index()) return zero_i32();
    std::string i = fresh("bidx");
    line(fmt::format("{} = arith.index_cast {} : index to i32", i, a.index));
    return i;
  }

  void access(const litmus::Instruction& ins) {
    record_access();
    const litmus::Annotations& an = ins.annots;
    int bits = detail::access_bits(ins);
    std::string ty = int_type(bits);
    std::string align = fmt::format("{{alignment = {} : i64}}", bits / 8);
    std::string scope = detail::sync_scope(an.scope);
    std::string_view ordering = to_string(ordering_of(an));
    const std::string& loc_name = ins.addr.base.is_location() ? ins.addr.base.name : std::string();
    // Ordinary accesses go through the memref unless they are volatile or narrower than it.
    bool through_memref = !an.atomic && !opt_.volatile_ordinary && bits == bits_of(loc_name);
    bool buffer =
        opt_.ops == MlirOps::Amdgpu && ins.addr.base.is_location() && !is_group(loc_name) && bits == bits_of(loc_name);
    if (ins.kind == OpKind::Load) {
      std::string v = def_name(ins.reg);
      Value pre;
      if (buffer) {
        Address a = address(ins, bits);
        BufferFences f = buffer_fences(an.atomic ? ordering_of(an) : Ordering::None);
        if (!f.before.empty()) fence(f.before, an.scope);
        line(fmt::format("{} = amdgpu.raw_buffer_load {}[{}] : {}, i32 -> {}{}", v, a.memref, buffer_index(a),
                         memref_type(bits, false), ty, loc()));
        if (!f.after.empty()) fence(f.after, an.scope);
      } else if (through_memref) {
        Address a = address(ins, bits);
        line(fmt::format("{} = memref.load {}[{}] : {}{}", v, a.memref, a.index, memref_type(bits, a.group), loc()));
      } else {
        Address a = address(ins, bits);
        std::string atomic = an.atomic ? fmt::format(" atomic{} {}", scope, ordering) : "";
        line(fmt::format("{} = llvm.load {}{}{} {} : {} -> {}{}", v,
                         opt_.volatile_ordinary && !an.atomic ? "volatile " : "", a.pointer, atomic, align,
                         pointer_type(a.group), ty, loc()));
      }
      assign(ins.reg, {v, bits, std::nullopt});
      return;
    }
    if (ins.kind == OpKind::Store) {
      std::string v = use(eval(ins.value, bits));
      Address a = address(ins, bits);
      if (buffer) {
        BufferFences f = buffer_fences(an.atomic ? ordering_of(an) : Ordering::None);
        if (!f.before.empty()) fence(f.before, an.scope);
        line(fmt::format("amdgpu.raw_buffer_store {} -> {}[{}] : {} -> {}, i32{}", v, a.memref, buffer_index(a), ty,
                         memref_type(bits, false), loc()));
        if (!f.after.empty()) fence(f.after, an.scope);
      } else if (through_memref) {
        line(fmt::format("memref.store {}, {}[{}] : {}{}", v, a.memref, a.index, memref_type(bits, a.group), loc()));
      } else {
        std::string atomic = an.atomic ? fmt::format(" atomic{} {}", scope, ordering) : "";
        line(fmt::format("llvm.store {}{}, {}{} {} : {}, {}{}", opt_.volatile_ordinary && !an.atomic ? "volatile " : "",
                         v, a.pointer, atomic, align, ty, pointer_type(a.group), loc()));
      }
      return;
    }
    // Read-modify-write.
    std::string r = def_name(ins.reg);
    if (an.cas) {
      std::string expected = use(eval(*ins.expected, bits));
      std::string desired = use(eval(ins.value, bits));
      Address a = address(ins, bits);
      if (buffer) {
        BufferFences f = buffer_fences(ordering_of(an));
        if (!f.before.empty()) fence(f.before, an.scope);
        line(fmt::format("{} = amdgpu.raw_buffer_atomic_cmpswap {}, {} -> {}[{}] : {} -> {}, i32{}", r, desired,
                         expected, a.memref, buffer_index(a), ty, memref_type(bits, false), loc()));
        if (!f.after.empty()) fence(f.after, an.scope);
      } else {
        std::string pair = fresh("cas");
        line(fmt::format("{} = llvm.cmpxchg {}, {}, {}{} {} {} {} : {}, {}{}", pair, a.pointer, expected, desired,
                         scope, ordering, detail::failure_ordering(ordering_of(an)), align, pointer_type(a.group), ty,
                         loc()));
        line(fmt::format("{} = llvm.extractvalue {}[0] : !llvm.struct<({}, i1)>", r, pair, ty));
      }
      assign(ins.reg, {r, bits, std::nullopt});
      return;
    }
    auto [op, operand] = detail::rmw_operation(ins);
    if (!operand) fail(detail::no_rmw_operation(ins));
    std::string v = use(eval(*operand, bits));
    Address a = address(ins, bits);
    line(fmt::format("{} = llvm.atomicrmw {} {}, {}{} {} {} : {}, {}{}", r, op, a.pointer, v, scope, ordering, align,
                     pointer_type(a.group), ty, loc()));
    assign(ins.reg, {r, bits, std::nullopt});
  }

  const MlirOptions& opt_;
  const std::map<std::string, int>& location_bits_;
  std::optional<Embedding> embedding_;
  std::string prefix_;
  std::string body_;
  std::map<std::string, std::string> pointers_;  // location or "out" -> its llvm pointer
  std::map<std::string, bool> reachable_into_;   // label -> some reachable branch goes there
  int counter_ = 0;
};

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The LLVM major version a tool prints in `--version`, or 0.
int tool_version(const std::filesystem::path& tool) {
  ProcessResult v = run_process({tool.string(), "--version"});
  static const std::regex version(R"(LLVM version (\d+))");
  std::smatch m;
  std::string text = v.out + v.err;
  return v.ok() && std::regex_search(text, m, version) ? std::stoi(m[1]) : 0;
}

// Whether an MLIR tool failed: a non-zero status, or an error it reported and exited 0 after
// (mlir-opt 19 leaves an operation a pattern cannot lower, e.g. amdgpu.lds_barrier for GFX12,
// with an error diagnostic, and succeeds).
bool tool_failed(const ProcessResult& r) { return !r.ok() || r.err.find("error:") != std::string::npos; }

[[noreturn]] void throw_tool_failure(std::string_view tool, const ProcessResult& r, const Target& target) {
  std::string how = r.signal ? fmt::format("was killed by signal {}", r.signal)
                    : r.ok() ? std::string("reported errors")
                             : fmt::format("exited with status {}", r.exit_status);
  throw LlcError(fmt::format("{} {} for {}:\n{}", tool, how, target.name, r.err));
}

// mlir-opt prints the converted container module: `module attributes {gpu.container_module} {`,
// the `gpu.module @NAME attributes {...} {` holding the kernels as `llvm.func`s, and the closing
// braces, with attribute aliases (`#mmra_tag = ...`) above. mlir-translate translates a builtin
// module and skips a gpu.module, so the gpu.module becomes the top-level module, with the
// triple the kernels are for.
std::string gpu_module_as_top_level(const std::string& converted) {
  std::istringstream in(converted);
  std::string line, out, body;
  bool in_container = false;
  static const std::regex gpu_module(R"(^\s*gpu\.module @("(?:[^"\\]|\\.)*"|[^ "]+)( attributes \{(.*)\})? \{$)");
  std::smatch m;
  int depth = 0;
  while (std::getline(in, line)) {
    if (!in_container) {
      if (line.rfind("module", 0) == 0) {
        in_container = true;
        continue;
      }
      out += line + "\n";
      continue;
    }
    if (depth == 0) {
      if (line == "}") break;
      if (!std::regex_match(line, m, gpu_module))
        throw LlcError(fmt::format("mlir-opt's output has no gpu.module where expected: '{}'", line));
      std::string attributes = m[3].matched ? m[3].str() + ", " : "";
      body += fmt::format("module @{} attributes {{{}llvm.target_triple = \"amdgcn-amd-amdhsa\"}} {{\n", m[1].str(),
                          attributes);
      depth = 1;
      continue;
    }
    body += line + "\n";
    if (line == "  }") depth = 0;
  }
  if (body.empty()) throw LlcError("mlir-opt's output has no gpu.module");
  return out + body;
}

// Where the harness puts one instance's threads (docs/hardware.md, "Placement"): threads of one
// work-group in one hardware work-group (blocks in order of first appearance), threads of one
// wave in one wave of it (waves in order of first appearance), in consecutive lanes.
struct ThreadPlace {
  int block = 0, wave = 0, lane = 0;
};

std::vector<ThreadPlace> place_threads(const litmus::Test& test) {
  std::vector<ThreadPlace> places(test.threads.size());
  std::map<std::uint32_t, int> blocks;
  std::map<std::uint32_t, std::pair<int, int>> waves;  // wave instance -> (index in its block, lanes used)
  std::map<int, int> waves_of_block;
  for (int t = 0; t < static_cast<int>(test.threads.size()); ++t) {
    ThreadPlace& p = places[static_cast<std::size_t>(t)];
    p.block = blocks.emplace(test.scopes.instance(t, litmus::Scope::WorkGroup), static_cast<int>(blocks.size()))
                  .first->second;
    auto [wave, fresh] = waves.emplace(test.scopes.instance(t, litmus::Scope::Wavefront), std::pair{0, 0});
    if (fresh) wave->second.first = waves_of_block[p.block]++;
    p.wave = wave->second.first;
    p.lane = wave->second.second++;
  }
  return places;
}

// The whole test as one kernel `@test`, to launch once with as many blocks as the test has
// work-groups and `%wave_size` lanes per wave: each hardware thread finds, by block and thread
// id, the litmus thread place_threads puts there, and runs its code; the others return. The
// registers of every thread go to %out, P0's first (sorted by name), then P1's, ... Threads in
// different agents run in different blocks of the one agent.
std::string whole_test_kernel(const litmus::Test& test, const MlirOptions& options,
                              const std::map<std::string, int>& location_bits) {
  const std::vector<ThreadPlace> places = place_threads(test);
  std::vector<std::string> cases;
  std::vector<std::string> lds;
  int slots = 0;
  for (const litmus::Thread& thread : test.threads)  // a thread's result slots: its registers
    slots += static_cast<int>(detail::thread_registers(test, thread).size());
  const std::string out_type = fmt::format("memref<{}xi64, #gpu.address_space<global>>", std::max(1, slots));
  int base = 0;
  for (std::size_t t = 0; t < test.threads.size(); ++t) {
    KernelEmitter e(test, static_cast<int>(t), options, location_bits,
                    Embedding{fmt::format("P{}_", test.threads[t].id), base, out_type});
    cases.push_back(e.embedded());
    base += static_cast<int>(e.results().size());
  }
  std::string signature;
  for (const std::string& loc : test.location_names()) {
    int bits = location_bits.count(loc) ? location_bits.at(loc) : 32;
    if (test.segment_of(loc) == litmus::Segment::Group)
      lds.push_back(fmt::format("%lds.{}: {}", ident(loc), memref_type(bits, true)));
    else
      signature += fmt::format("%loc.{}: {}, ", ident(loc), memref_type(bits, false));
  }
  std::string text = fmt::format(
      "    // The whole test: launch {} block(s) of waves of %wave_size lanes; results P0's first.\n",
      places.empty()
          ? 0
          : std::max_element(places.begin(), places.end(), [](auto& a, auto& b) { return a.block < b.block; })->block +
                1);
  std::string workgroup;
  for (const std::string& l : lds) workgroup += (workgroup.empty() ? "" : ", ") + l;
  text += fmt::format("    gpu.func @test({}%out: {}, %wave_size: i32){} kernel {{\n", signature, out_type,
                      workgroup.empty() ? "" : fmt::format(" workgroup({})", workgroup));
  text += "      %block.id = gpu.block_id x\n      %thread.id = gpu.thread_id x\n";
  text += "      %block = arith.index_cast %block.id : index to i32\n";
  text += "      %thread = arith.index_cast %thread.id : index to i32\n";
  for (std::size_t t = 0; t < places.size(); ++t) {
    const ThreadPlace& p = places[t];
    const std::string s = fmt::format("%select{}", t);
    if (t) text += fmt::format("    ^select{}:\n", t);
    text += fmt::format("      // P{}: block {}, wave {}, lane {}\n", test.threads[t].id, p.block, p.wave, p.lane);
    text += fmt::format("      {}.block = arith.constant {} : i32\n", s, p.block);
    text += fmt::format("      {}.wave = arith.constant {} : i32\n", s, p.wave);
    text += fmt::format("      {}.lane = arith.constant {} : i32\n", s, p.lane);
    text += fmt::format("      {}.first = arith.muli %wave_size, {}.wave : i32\n", s, s);
    text += fmt::format("      {}.at = arith.addi {}.first, {}.lane : i32\n", s, s, s);
    text += fmt::format("      {}.in_block = arith.cmpi eq, %block, {}.block : i32\n", s, s);
    text += fmt::format("      {}.in_place = arith.cmpi eq, %thread, {}.at : i32\n", s, s);
    text += fmt::format("      {}.is = arith.andi {}.in_block, {}.in_place : i1\n", s, s, s);
    text += fmt::format("      cf.cond_br {}.is, ^P{}_code, ^select{}\n", s, test.threads[t].id, t + 1);
    text += fmt::format("    ^P{}_code:\n{}", test.threads[t].id, cases[t]);
  }
  text +=
      fmt::format("{}      gpu.return\n    }}\n", places.empty() ? "" : fmt::format("    ^select{}:\n", places.size()));
  return text;
}

}  // namespace

LlvmModule emit_mlir(const litmus::Test& test, const MlirOptions& options) {
  LlvmModule m;
  // Each location's memref element: its widest access.
  const std::map<std::string, int> location_bits = detail::widest_accesses(test);
  std::string kernels;
  for (std::size_t t = 0; t < test.threads.size(); ++t) {
    KernelEmitter e(test, static_cast<int>(t), options, location_bits);
    auto [kernel, text] = e.run();
    m.kernels.push_back(std::move(kernel));
    kernels += (t ? "\n" : "") + text;
  }
  kernels += "\n" + whole_test_kernel(test, options, location_bits);
  m.text = fmt::format("// hsalit: litmus test {} as one gpu.func kernel per thread ({} operations{})\n", test.name,
                       to_string(options.ops), options.volatile_ordinary ? ", ordinary accesses volatile" : "");
  m.text += fmt::format("module attributes {{gpu.container_module}} {{\n  gpu.module @{} {{\n{}  }}\n}}\n",
                        string_literal(test.name), kernels);
  return m;
}

MlirTools find_mlir_tools(std::string_view mlir_opt) {
  MlirTools t;
  t.name = std::string(mlir_opt);
  auto missing = [](std::string_view tool) {
    std::string package = debian_package_for(tool);
    return LlcError(package.empty()
                        ? fmt::format("{} not found: name the tool of one LLVM version, e.g. mlir-opt-19 (Debian "
                                      "package mlir-19-tools)",
                                      tool)
                        : fmt::format("{} not found: install Debian package {}", tool, package));
  };
  std::optional<std::filesystem::path> opt = find_program(mlir_opt);
  if (!opt) throw missing(mlir_opt);
  t.mlir_opt = *opt;
  t.version = tool_version(t.mlir_opt);
  if (t.version == 0) throw LlcError(fmt::format("{}: cannot read its version from `--version`", mlir_opt));
  // mlir-translate and llc beside it: `mlir-opt-19` -> `mlir-translate-19`, `llc-19`; a plain
  // `mlir-opt` (or a path to one) -> the mlir-translate in its folder, or on PATH.
  std::string base = t.mlir_opt.filename().string();
  std::string suffix = base.size() > 8 && base.rfind("mlir-opt", 0) == 0 ? base.substr(8) : "";
  std::string translate_name = "mlir-translate" + suffix;
  std::filesystem::path beside = t.mlir_opt.parent_path() / translate_name;
  std::optional<std::filesystem::path> translate =
      std::filesystem::exists(beside) ? std::optional(beside) : find_program(translate_name);
  if (!translate) throw missing(translate_name);
  t.mlir_translate = *translate;
  if (int v = tool_version(t.mlir_translate); v != t.version)
    throw LlcError(fmt::format("{} is LLVM {} but {} is LLVM {}", translate_name, v, mlir_opt, t.version));
  t.llc = find_llc(fmt::format("llc-{}", t.version));
  return t;
}

std::string mlir_pass_pipeline(const Target& target) {
  return fmt::format(
      "builtin.module(gpu.module(convert-gpu-to-rocdl{{chipset={} use-bare-ptr-memref-call-conv=true}}),"
      "reconcile-unrealized-casts)",
      target.name);
}

namespace {

// Splits a tool's output for `--split-input-file` into its parts: at each line `separator`
// starts, the separator line kept (kept = true, LLVM IR's "; ModuleID") or dropped.
std::vector<std::string> split_output(const std::string& text, std::string_view separator, bool kept) {
  std::vector<std::string> parts;
  std::istringstream in(text);
  std::string line, part;
  bool started = false;
  while (std::getline(in, line)) {
    if (line.rfind(separator, 0) == 0) {
      if (started || !part.empty()) parts.push_back(std::move(part));
      part.clear();
      started = true;
      if (!kept) continue;
    }
    part += line + "\n";
  }
  parts.push_back(std::move(part));
  for (std::string& p : parts)  // the blank lines between parts
    while (p.size() > 1 && p.ends_with("\n\n")) p.pop_back();
  return parts;
}

// The modules joined for `--split-input-file`.
std::string joined(std::span<const std::string> modules) {
  std::string text;
  for (std::size_t i = 0; i < modules.size(); ++i) text += (i ? "// -----\n" : "") + modules[i];
  return text;
}

void write_text(const std::filesystem::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out) throw LlcError(fmt::format("cannot write {}", file.string()));
}

// Both stages for the modules, in one mlir-opt and one mlir-translate process (with
// `--split-input-file` when there are several); throws LlcError with the failing tool's messages.
std::vector<std::string> lower_together(const MlirTools& tools, std::span<const std::string> modules,
                                        const Target& target) {
  TempDir dir("hsalit-mlir");
  const std::filesystem::path input = dir.path() / "tests.mlir", converted = dir.path() / "rocdl.mlir",
                              kernels = dir.path() / "kernels.mlir", ir = dir.path() / "tests.ll";
  const bool split = modules.size() > 1;
  auto run = [&](const std::filesystem::path& tool, std::vector<std::string> arguments) {
    std::vector<std::string> argv = {tool.string()};
    if (split) argv.push_back("--split-input-file");
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    ProcessResult r = run_process(argv);
    if (tool_failed(r)) throw_tool_failure(tool.filename().string(), r, target);
  };
  auto parts_of = [&](const std::filesystem::path& file, std::string_view separator, bool kept) {
    std::vector<std::string> parts = split_output(read_text(file), separator, kept);
    if (parts.size() != modules.size())
      throw LlcError(
          fmt::format("{} parts in {} for {} modules", parts.size(), file.filename().string(), modules.size()));
    return parts;
  };
  write_text(input, joined(modules));
  run(tools.mlir_opt, {"--pass-pipeline=" + mlir_pass_pipeline(target), input.string(), "-o", converted.string()});
  std::vector<std::string> parts = parts_of(converted, "// -----", false);
  for (std::string& part : parts) part = gpu_module_as_top_level(part);
  write_text(kernels, joined(parts));
  run(tools.mlir_translate, {"--mlir-to-llvmir", kernels.string(), "-o", ir.string()});
  return parts_of(ir, "; ModuleID", true);
}

}  // namespace

std::string lower_mlir_to_llvm_ir(const MlirTools& tools, std::string_view mlir, const Target& target) {
  const std::string module(mlir);
  return lower_together(tools, std::span(&module, 1), target).front();
}

std::vector<LoweredModule> lower_mlir_to_llvm_ir(const MlirTools& tools, std::span<const std::string> modules,
                                                 const Target& target) {
  std::vector<LoweredModule> lowered(modules.size());
  if (modules.size() > 1) {
    try {
      std::vector<std::string> irs = lower_together(tools, modules, target);
      for (std::size_t i = 0; i < modules.size(); ++i) lowered[i].ir = std::move(irs[i]);
      return lowered;
    } catch (const LlcError&) {
      // One module at a time below, so that each failure stays with its module.
    }
  }
  for (std::size_t i = 0; i < modules.size(); ++i) {
    try {
      lowered[i].ir = lower_mlir_to_llvm_ir(tools, modules[i], target);
    } catch (const LlcError& e) {
      lowered[i].error = e.what();
    }
  }
  return lowered;
}

LlcResult compile_lowered_mlir(const litmus::Test& test, const Target& target, const MlirTools& tools,
                               const LlvmModule& module, std::string ir) {
  LlcResult r = import_llc_assembly(run_llc(tools.llc, ir, target), test, module, target);
  r.llc = tools.name;
  r.llvm_version = tools.version;
  r.ir = std::move(ir);
  return r;
}

LlcResult compile_via_mlir(const litmus::Test& test, const Target& target, const MlirTools& tools,
                           const MlirOptions& options) {
  LlvmModule module = emit_mlir(test, options);
  return compile_lowered_mlir(test, target, tools, module, lower_mlir_to_llvm_ir(tools, module.text, target));
}

}  // namespace hsalit::codegen
