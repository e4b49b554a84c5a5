// Litmus thread -> LLVM IR kernel (see llvm_ir.hpp for the module's shape). Registers are
// explicit SSA values: branches only go forward, so when a label is reached every edge into
// it is known and its phis can be written at once.
#include "hsalit/codegen/llvm_ir.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/printer.hpp"
#include "kernel_plan.hpp"

namespace hsalit::codegen {

using detail::failure_ordering;
using detail::ident;
using detail::int_type;
using detail::string_literal;
using detail::sync_scope;
using litmus::Expr;
using litmus::OpKind;

namespace {

using detail::Value;

Value constant_value(std::int64_t v, int bits) {
  std::int64_t c = detail::truncated(v, bits);
  return {std::to_string(c), bits, c};
}

struct Incoming {
  std::string block;
  std::map<std::string, Value> registers;
  bool reachable = true;
};

class KernelEmitter : detail::ThreadEmitter {
 public:
  KernelEmitter(const litmus::Test& test, int thread, const LlvmIrOptions& options, std::vector<std::string>& metadata)
      : ThreadEmitter(test, thread, "LLVM IR", options.sc_orders), opt_(options), metadata_(metadata) {}

  std::pair<LlvmKernel, std::string> run() {
    bind(opt_.generic);
    // The begin marker takes every pointer argument in SGPRs and clobbers memory.
    std::string signature, constraints, operands, listing;
    for (std::size_t i = 0; i < k_.arguments.size(); ++i) {
      const std::string& a = k_.arguments[i];
      std::string value = i + 1 == k_.arguments.size() ? "%out" : "%loc." + ident(a);
      signature += fmt::format("{}{} noundef {}", i ? ", " : "", pointer_type(false), value);
      operands += fmt::format("{}{} {}", i ? ", " : "", pointer_type(false), value);
      constraints += "s,";
      listing += fmt::format(" {}{}=${}", i + 1 == k_.arguments.size() ? "@" : "", a, i);
    }
    block_ = "entry";
    line(fmt::format("call void asm sideeffect {}, \"{}~{{memory}}\"({})",
                     string_literal(fmt::format("; {} {}{}", kBeginMarker, k_.name, listing)), constraints, operands));
    for (std::size_t i = 0; i < thread_.code.size(); ++i) {
      index_ = static_cast<int>(i);
      const litmus::Instruction& ins = thread_.code[i];
      if (ins.kind != OpKind::Label)
        body_ += fmt::format("  ; P{}:{} {}\n", thread_.id, i, litmus::print_instruction(ins));
      instruction(ins);
    }
    index_ = -1;
    // The exit block: the end marker, then the registers into %out. The marker returns a
    // zero that every stored value is combined with, so that llc cannot compute those values
    // (and wait for the loads that produce them) before the marker.
    std::string zero = fresh("end");
    line(fmt::format("{} = call i32 asm sideeffect {}, \"=v,~{{memory}}\"()", zero,
                     string_literal(fmt::format("; {} {}\n\tv_mov_b32 $0, 0", kEndMarker, k_.name))));
    int slot = 0;
    for (const std::string& r : k_.results) {
      Value v = regs_.at(r);
      if (!v.constant) {
        Value z = coerce({zero, 32, std::nullopt}, v.bits);
        std::string t = fresh("t");
        line(fmt::format("{} = xor {} {}, {}", t, int_type(v.bits), v.text, z.text));
        v = {t, v.bits, std::nullopt};
      }
      v = coerce(v, 64);
      std::string at = fresh("out");
      line(fmt::format("{} = getelementptr inbounds i8, {} %out, i64 {}", at, pointer_type(false), 8 * slot++));
      line(fmt::format("store i64 {}, {} {}, align 8", v.text, pointer_type(false), at));
    }
    line("ret void");
    std::string text =
        fmt::format("define amdgpu_kernel void @{}({}) #0 {{\nentry:\n{}}}\n", k_.name, signature, body_);
    return {std::move(k_), std::move(text)};
  }

 private:
  // The pointer type of a location (or of %out when `group` is false and it is not a location).
  std::string pointer_type(bool group) const {
    if (opt_.generic) return "ptr";
    return group ? "ptr addrspace(3)" : "ptr addrspace(1)";
  }

  void line(const std::string& s) { body_ += "  " + s + "\n"; }
  std::string fresh(std::string_view stem) { return fmt::format("%{}.{}", stem, counter_++); }

  Value constant(std::int64_t value, int bits) override { return constant_value(value, bits); }

  Value arithmetic(std::string_view op, const Value& a, const Value& b, int bits) override {
    std::string t = fresh("t");
    line(fmt::format("{} = {} {} {}, {}", t, op, int_type(bits), a.text, b.text));
    return {t, bits, std::nullopt};
  }

  Value comparison(bool equal, const Value& a, const Value& b, int bits) override {
    std::string t = fresh("t");
    line(fmt::format("{} = icmp {} {} {}, {}", t, equal ? "eq" : "ne", int_type(a.bits), a.text, b.text));
    std::string z = fresh("t");
    line(fmt::format("{} = zext i1 {} to {}", z, t, int_type(bits)));
    return {z, bits, std::nullopt};
  }

  Value converted(const Value& v, int bits) override {
    std::string t = fresh("t");
    line(fmt::format("{} = {} {} {} to {}", t, v.bits < bits ? "sext" : "trunc", int_type(v.bits), v.text,
                     int_type(bits)));
    return {t, bits, std::nullopt};
  }

  // A new SSA name for a register's next value, e.g. %r.r0.3.
  std::string def_name(const std::string& reg) { return fresh("r." + ident(reg)); }

  std::string metadata(const litmus::Instruction& ins) {
    metadata_.push_back(
        fmt::format("!{{!{}, i32 {}, i32 {}}}",
                    string_literal(fmt::format("P{}:{} {}", thread_.id, index_, litmus::print_instruction(ins))),
                    thread_.id, index_));
    return fmt::format(", !hsalit.litmus !{}", metadata_.size() - 1);
  }

  void instruction(const litmus::Instruction& ins) {
    switch (ins.kind) {
      case OpKind::Label: label(ins.label); return;
      case OpKind::Mov: assign(ins.reg, eval(ins.value, reg_bits_.at(ins.reg))); return;
      case OpKind::Branch: branch(ins); return;
      case OpKind::Barrier: {
        barrier_used_ = true;
        line("call void @llvm.amdgcn.s.barrier()");
        return;
      }
      case OpKind::Fence:
        line(fmt::format("fence{} {}{}", sync_scope(ins.annots.scope), to_string(ordering_of(ins.annots)),
                         metadata(ins)));
        return;
      case OpKind::Load:
      case OpKind::Store:
      case OpKind::Rmw: access(ins); return;
    }
  }

  void branch(const litmus::Instruction& ins) {
    std::string target = "L." + ident(ins.label);
    if (!ins.condition) {
      line(fmt::format("br label %{}", target));
      pending_[ins.label].push_back({block_, regs_, reachable_});
      start_block(fresh_block("dead"), false);
      return;
    }
    Value c = eval(*ins.condition, width(*ins.condition));
    std::string t = fresh("c");
    line(fmt::format("{} = icmp ne {} {}, 0", t, int_type(c.bits), c.text));
    std::string next = fresh_block("b");
    line(fmt::format("br i1 {}, label %{}, label %{}", t, target, next));
    pending_[ins.label].push_back({block_, regs_, reachable_});
    start_block(next, reachable_);
  }

  std::string fresh_block(std::string_view stem) { return fmt::format("{}.{}", stem, counter_++); }

  void start_block(const std::string& name, bool reachable) {
    body_ += name + ":\n";
    block_ = name;
    reachable_ = reachable;
  }

  void label(const std::string& name) {
    std::string block = "L." + ident(name);
    std::vector<Incoming> in = std::move(pending_[name]);
    pending_.erase(name);
    // The current block is always open (a branch starts a new one): it falls through.
    line(fmt::format("br label %{}", block));
    in.push_back({block_, regs_, reachable_});
    bool reachable = std::any_of(in.begin(), in.end(), [](const Incoming& i) { return i.reachable; });
    start_block(block, reachable);
    if (in.empty()) return;
    for (auto& [reg, value] : regs_) {
      // `reg` captured by name: clang before 16 (the fuzz build's) cannot capture a binding.
      bool same = std::all_of(in.begin(), in.end(), [&, &reg = reg](const Incoming& i) {
        return i.registers.at(reg).text == in[0].registers.at(reg).text;
      });
      if (same) {
        value = in[0].registers.at(reg);
        continue;
      }
      std::string phi = def_name(reg);
      std::string incoming;
      for (const Incoming& i : in)
        incoming += fmt::format("{}[ {}, %{} ]", incoming.empty() ? "" : ", ", i.registers.at(reg).text, i.block);
      line(fmt::format("{} = phi {} {}", phi, int_type(reg_bits_.at(reg)), incoming));
      value = {phi, reg_bits_.at(reg), std::nullopt};
    }
  }

  // The pointer an access uses: the location (an argument or an LDS variable), indexed by a
  // register offset when there is one (an address dependency).
  std::string address(const litmus::Instruction& ins) {
    const Expr* offset = dependency_offset(ins);
    const std::string& loc = ins.addr.base.name;
    bool group = is_group(loc) && !opt_.generic;
    std::string base = group ? "@lds." + ident(loc) : "%loc." + ident(loc);
    if (!offset) return base;
    Value off = eval(*offset, 64);
    std::string p = fresh("p");
    line(fmt::format("{} = getelementptr i32, {} {}, i64 {}", p, pointer_type(group), base, off.text));
    return p;
  }

  void access(const litmus::Instruction& ins) {
    record_access();
    const litmus::Annotations& a = ins.annots;
    int bits = detail::access_bits(ins);
    std::string ty = int_type(bits);
    std::string align = fmt::format("align {}", bits / 8);
    bool group = ins.addr.base.is_location() && is_group(ins.addr.base.name);
    std::string pty = pointer_type(group);
    std::string md = metadata(ins);
    if (ins.kind == OpKind::Load) {
      std::string p = address(ins);
      std::string v = def_name(ins.reg);
      if (a.atomic)
        line(fmt::format("{} = load atomic {}, {} {}{} {}, {}{}", v, ty, pty, p, sync_scope(a.scope),
                         to_string(ordering_of(a)), align, md));
      else
        line(fmt::format("{} = load {}{}, {} {}, {}{}", v, opt_.volatile_ordinary ? "volatile " : "", ty, pty, p, align,
                         md));
      assign(ins.reg, {v, bits, std::nullopt});
      return;
    }
    if (ins.kind == OpKind::Store) {
      Value v = eval(ins.value, bits);
      std::string p = address(ins);
      if (a.atomic)
        line(fmt::format("store atomic {} {}, {} {}{} {}, {}{}", ty, v.text, pty, p, sync_scope(a.scope),
                         to_string(ordering_of(a)), align, md));
      else
        line(fmt::format("store {}{} {}, {} {}, {}{}", opt_.volatile_ordinary ? "volatile " : "", ty, v.text, pty, p,
                         align, md));
      return;
    }
    // Read-modify-write.
    if (a.cas) {
      Value expected = eval(*ins.expected, bits);
      Value desired = eval(ins.value, bits);
      std::string p = address(ins);
      std::string pair = fresh("cas");
      line(fmt::format("{} = cmpxchg {} {}, {} {}, {} {}{} {} {}, {}{}", pair, pty, p, ty, expected.text, ty,
                       desired.text, sync_scope(a.scope), to_string(ordering_of(a)), failure_ordering(ordering_of(a)),
                       align, md));
      std::string v = def_name(ins.reg);
      line(fmt::format("{} = extractvalue {{ {}, i1 }} {}, 0", v, ty, pair));
      assign(ins.reg, {v, bits, std::nullopt});
      return;
    }
    auto [op, operand] = rmw_kind(ins);
    Value v = eval(*operand, bits);
    std::string p = address(ins);
    std::string r = def_name(ins.reg);
    line(fmt::format("{} = atomicrmw {} {} {}, {} {}{} {}, {}{}", r, op, pty, p, ty, v.text, sync_scope(a.scope),
                     to_string(ordering_of(a)), align, md));
    assign(ins.reg, {r, bits, std::nullopt});
  }

  // The atomicrmw operation and its operand (detail::rmw_operation).
  std::pair<std::string_view, const Expr*> rmw_kind(const litmus::Instruction& ins) const {
    auto kind = detail::rmw_operation(ins);
    if (!kind.second) fail(detail::no_rmw_operation(ins));
    return kind;
  }

  const LlvmIrOptions& opt_;
  std::vector<std::string>& metadata_;
  std::string body_;
  std::string block_;
  bool barrier_used_ = false;
  std::map<std::string, std::vector<Incoming>> pending_;
  int counter_ = 0;

 public:
  bool barrier_used() const { return barrier_used_; }
};

}  // namespace

LlvmModule emit_llvm_ir(const litmus::Test& test, const LlvmIrOptions& options) {
  LlvmModule m;
  m.generic = options.generic;
  // LDS variables: one per group location, i64 when some access to it is 64-bit.
  std::map<std::string, int> lds_bits;
  if (!options.generic)
    for (const auto& [loc, bits] : detail::widest_accesses(test))
      if (test.segment_of(loc) == litmus::Segment::Group) lds_bits[loc] = bits;
  std::vector<std::string> metadata;
  std::string kernels;
  bool barrier = false;
  for (std::size_t t = 0; t < test.threads.size(); ++t) {
    KernelEmitter e(test, static_cast<int>(t), options, metadata);
    auto [kernel, text] = e.run();
    barrier |= e.barrier_used();
    m.kernels.push_back(std::move(kernel));
    kernels += "\n" + text;
  }
  std::string& out = m.text;
  out += fmt::format("; hsalit: litmus test {} as one AMDGPU kernel per thread{}{}\n", test.name,
                     options.generic ? ", flat (generic) pointers" : "",
                     options.volatile_ordinary ? ", ordinary accesses volatile" : "");
  out += fmt::format("source_filename = {}\n", string_literal(test.name));
  out += "target triple = \"amdgcn-amd-amdhsa\"\n";
  if (!lds_bits.empty()) out += "\n";
  for (const std::string& loc : test.location_names()) {
    auto it = lds_bits.find(loc);
    if (it == lds_bits.end()) continue;
    out += fmt::format("@lds.{} = internal addrspace(3) global i{} poison, align {}\n", ident(loc), it->second,
                       it->second / 8);
  }
  out += kernels;
  if (barrier) out += "\ndeclare void @llvm.amdgcn.s.barrier() #1\n";
  out += "\nattributes #0 = { nounwind }\n";
  if (barrier) out += "attributes #1 = { convergent nounwind willreturn }\n";
  if (!metadata.empty()) out += "\n";
  for (std::size_t i = 0; i < metadata.size(); ++i) out += fmt::format("!{} = {}\n", i, metadata[i]);
  return m;
}

}  // namespace hsalit::codegen
