// The typed AST of a litmus test in herd7's LISA dialect with HSA annotations.
//
// Every node is a plain value. Source positions are kept for diagnostics but never take
// part in equality: a test parsed, printed and parsed again compares equal to itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/litmus/scope_tree.hpp"
#include "hsalit/litmus/source.hpp"

namespace hsalit::litmus {

// A source position that is deliberately ignored by equality (see the file comment).
struct NodePos {
  SourcePos at;
  friend bool operator==(const NodePos&, const NodePos&) { return true; }
};

// HSA memory orders (HSA SysArch 3.3.1): rlx, scacq, screl, scar.
enum class MemoryOrder : std::uint8_t { Relaxed, Acquire, Release, AcquireRelease };

// Memory segments a location can live in (HSA SysArch 3.3.6). Group memory is private to
// each work-group.
enum class Segment : std::uint8_t { Global, Group };

// Access size; the spec's "same size" rules (3.9, 3.12) distinguish 32- and 64-bit accesses.
enum class AccessSize : std::uint8_t { Single, Double };

std::string_view to_string(MemoryOrder order);                      // rlx, scacq, screl, scar
std::string_view to_string(Segment segment);                        // global, group
std::optional<Segment> segment_from_string(std::string_view text);  // global or group
std::string_view to_string(AccessSize size);                        // single, double

// The bracketed annotation set of an instruction, resolved: defaults are filled in by the
// parser (an empty `[]` is ordinary, relaxed, work-item scope).
struct Annotations {
  bool atomic = false;
  MemoryOrder order = MemoryOrder::Relaxed;
  Scope scope = Scope::WorkItem;
  AccessSize size = AccessSize::Single;
  bool cas = false;  // rmw only: compare-and-swap form
  // OpenCL and C11 only (docs/model.md, "The OpenCL model"); the HSA model reads neither.
  // `sc` in LISA: the operation was memory_order_seq_cst (its `order` is then scacq, screl or
  // scar, what HSA reads). An HSA order has nothing stronger than scar.
  bool seq_cst = false;
  // `global` or `group` on a fence in LISA: the one address space an OpenCL fence orders
  // (atomic_work_item_fence with CLK_GLOBAL_MEM_FENCE or CLK_LOCAL_MEM_FENCE alone); none:
  // both, as every HSA fence.
  std::optional<Segment> fence_segment;
  std::vector<std::string> tags;  // branch annotations hsalit does not interpret

  friend bool operator==(const Annotations&, const Annotations&) = default;
};

// Operators of LISA operations `(OP a b)`.
enum class BinaryOp : std::uint8_t { Add, Sub, Xor, And, Or, Eq, Ne };
std::string_view to_string(BinaryOp op);  // add sub xor and or eq neq

// A value expression: a constant, a register, the address of a location, or `(OP a b)`.
struct Expr {
  enum class Kind : std::uint8_t { Constant, Register, Location, Binary };
  Kind kind = Kind::Constant;
  std::int64_t value = 0;       // Constant
  std::string name;             // Register or Location
  BinaryOp op = BinaryOp::Add;  // Binary
  std::vector<Expr> operands;   // Binary: exactly two
  NodePos pos;

  static Expr constant(std::int64_t v, SourcePos p = {});
  static Expr reg(std::string name, SourcePos p = {});
  static Expr location(std::string name, SourcePos p = {});
  static Expr binary(BinaryOp op, Expr lhs, Expr rhs, SourcePos p = {});

  bool is_constant() const { return kind == Kind::Constant; }
  bool is_register() const { return kind == Kind::Register; }
  bool is_location() const { return kind == Kind::Location; }
  friend bool operator==(const Expr&, const Expr&) = default;
};

// A memory address: a location or a register holding one, plus an optional offset
// (a constant or a register; a register offset is an address dependency).
struct Address {
  Expr base;                   // Location or Register
  std::optional<Expr> offset;  // Constant or Register
  NodePos pos;
  friend bool operator==(const Address&, const Address&) = default;
};

enum class OpKind : std::uint8_t {
  Load,     // r[annots] REG ADDR
  Store,    // w[annots] ADDR VAL
  Rmw,      // rmw[annots] REG OPERATION ADDR, or rmw[cas,annots] REG EXPECTED NEW ADDR
  Fence,    // f[annots]
  Barrier,  // barrier (ext): work-group execution barrier, HSA PRM 9.1
  Mov,      // mov REG OPERATION
  Branch,   // b[annots] REG LABEL | b[annots] LABEL | b[eq|ne] REG, VAL, LABEL
  Label,    // LABEL:
};
std::string_view to_string(OpKind kind);

struct Instruction {
  OpKind kind = OpKind::Load;
  Annotations annots;
  std::string reg;                // Load, Rmw, Mov: the destination register
  Address addr;                   // Load, Store, Rmw
  Expr value;                     // Store: stored value; Rmw: new value (may read reg);
                                  // Mov: the operation
  std::optional<Expr> expected;   // Rmw with cas: the expected value
  std::optional<Expr> condition;  // Branch: taken when non-zero; absent = unconditional
  std::string label;              // Branch target or Label name
  NodePos pos;

  bool is_memory_access() const { return kind == OpKind::Load || kind == OpKind::Store || kind == OpKind::Rmw; }
  bool reads_memory() const { return kind == OpKind::Load || kind == OpKind::Rmw; }
  bool writes_memory() const { return kind == OpKind::Store || kind == OpKind::Rmw; }
  friend bool operator==(const Instruction&, const Instruction&) = default;
};

struct Thread {
  int id = 0;
  std::vector<Instruction> code;
  NodePos pos;
  friend bool operator==(const Thread&, const Thread&) = default;
};

// `x = 0` (thread absent) or `1:r1 = -1` / `0:r3 = h1` (a register of a thread).
// The value is a Constant or a Location (the address of that location).
struct InitEntry {
  std::optional<int> thread;
  std::string name;
  Expr value;
  NodePos pos;
  friend bool operator==(const InitEntry&, const InitEntry&) = default;
};

struct MetadataEntry {
  std::string key;
  std::string value;
  friend bool operator==(const MetadataEntry&, const MetadataEntry&) = default;
};

struct RegionEntry {
  std::string location;
  Segment segment = Segment::Global;
  NodePos pos;
  friend bool operator==(const RegionEntry&, const RegionEntry&) = default;
};

// A thing whose final value an outcome reports: `1:r0` (thread set) or `x`.
struct ObservedRef {
  std::optional<int> thread;
  std::string name;
  NodePos pos;

  bool is_register() const { return thread.has_value(); }
  std::string to_string() const;  // `1:r0` or `x`
  friend bool operator==(const ObservedRef&, const ObservedRef&) = default;
  friend auto operator<=>(const ObservedRef& a, const ObservedRef& b) {
    if (auto c = a.thread <=> b.thread; c != 0) return c;
    return a.name <=> b.name;
  }
};

// A proposition over final values, herd7's condition language: `true`, `false`,
// `ref = value`, `ref = ref`, `~p`, `p /\ q`, `p \/ q`, `p => q` (docs/litmus-format.md).
struct Prop {
  enum class Kind : std::uint8_t { True, False, Equals, SameValue, Not, And, Or, Implies };
  Kind kind = Kind::True;
  ObservedRef lhs;             // Equals, SameValue
  Expr rhs;                    // Equals: Constant or Location (an address)
  ObservedRef rhs_ref;         // SameValue: the register or location whose value lhs equals
  std::vector<Prop> operands;  // Not: one; And, Or, Implies: two
  NodePos pos;

  static Prop equals(ObservedRef lhs, Expr rhs, SourcePos p = {});
  static Prop same_value(ObservedRef lhs, ObservedRef rhs, SourcePos p = {});
  static Prop negation(Prop p, SourcePos pos = {});
  static Prop conjunction(Prop a, Prop b, SourcePos p = {});
  static Prop disjunction(Prop a, Prop b, SourcePos p = {});
  static Prop implication(Prop a, Prop b, SourcePos p = {});
  // An atom compares a final value with a value or with another final value.
  bool is_atom() const { return kind == Kind::Equals || kind == Kind::SameValue; }
  friend bool operator==(const Prop&, const Prop&) = default;
};

enum class Quantifier : std::uint8_t { Exists, NotExists, Forall };
std::string_view to_string(Quantifier q);  // exists, ~exists, forall
// herd7's word for a condition's kind (lib/constrGen.ml, pp_kind), which its output and
// litmus7's print after the test's name: Allowed, Forbidden, Required.
std::string_view herd_kind(Quantifier q);

struct FinalCondition {
  Quantifier quantifier = Quantifier::Exists;
  Prop prop;
  NodePos pos;
  friend bool operator==(const FinalCondition&, const FinalCondition&) = default;
};

// Appends to `out` the registers and locations `prop` reads that `out` does not hold yet, in
// the order the proposition names them, with their source positions cleared.
void append_references(const Prop& prop, std::vector<ObservedRef>& out);

struct Test {
  std::string arch = "LISA";
  std::string name;
  std::string description;  // without the quotes; empty when absent
  std::vector<MetadataEntry> metadata;
  std::vector<InitEntry> init;
  std::vector<Thread> threads;
  ScopeTree scopes;
  std::vector<RegionEntry> regions;
  std::vector<ObservedRef> locations;  // `locations [...]`
  std::optional<Prop> filter;
  FinalCondition condition;

  // The segment of a location (`regions:`), global when not listed.
  Segment segment_of(std::string_view location) const;
  // Every memory location the test names (init, addresses, regions, conditions), in order
  // of first appearance.
  std::vector<std::string> location_names() const;
  // Registers and locations an outcome reports: those of the condition and of `locations`,
  // sorted (registers by thread, then locations), without duplicates.
  std::vector<ObservedRef> observed() const;

  friend bool operator==(const Test&, const Test&) = default;
};

}  // namespace hsalit::litmus
