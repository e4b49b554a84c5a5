// Mapping tables: which instruction sequence implements each memory operation, per target
// family. Tables are JSON data files (codegen/mappings/*.json, format in
// docs/mapping-tables.md); every row cites the document, table and row it comes from.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hsalit/codegen/gcn.hpp"

namespace hsalit::codegen {

// LLVM's names (the tables' vocabulary). HSA names are accepted too: rlx = monotonic,
// scacq = acquire, screl = release, scar = seq_cst; wi = singlethread, wave = wavefront,
// wg = workgroup; group = local, flat = generic.
enum class Operation : std::uint8_t { Load, Store, Rmw, Fence };
enum class Atomicity : std::uint8_t { NonAtomic, Atomic };
enum class AccessKind : std::uint8_t { Plain, Volatile, Nontemporal };  // non-atomic rows
enum class Ordering : std::uint8_t { None, Unordered, Monotonic, Acquire, Release, AcqRel, SeqCst };
enum class SyncScope : std::uint8_t { None, SingleThread, Wavefront, Workgroup, Agent, System };
enum class AddressSpace : std::uint8_t { None, Global, Local, Generic, Private, Constant };

std::string_view to_string(Operation v);
std::string_view to_string(AccessKind v);
std::string_view to_string(Ordering v);
std::string_view to_string(SyncScope v);
std::string_view to_string(AddressSpace v);
std::optional<Ordering> ordering_from_string(std::string_view s);
std::optional<SyncScope> sync_scope_from_string(std::string_view s);
std::optional<AddressSpace> address_space_from_string(std::string_view s);

// The key a row is looked up by: one memory operation of a program.
struct MemoryOperation {
  Operation operation = Operation::Load;
  Atomicity atomicity = Atomicity::NonAtomic;
  AccessKind access = AccessKind::Plain;
  Ordering ordering = Ordering::None;
  SyncScope scope = SyncScope::None;
  AddressSpace space = AddressSpace::None;  // None for fences
  std::string describe() const;             // "load atomic acquire agent global"
};

// One element of a row's sequence: the memory access itself, or a literal instruction.
struct SequenceElement {
  bool is_access = false;                                         // the operation's own memory instruction
  std::string mnemonic;                                           // literal instructions
  CachePolicy policy;                                             // bits on the access or on the literal instruction
  WaitCounts wait;                                                // s_waitcnt counters
  std::optional<int> count;                                       // s_waitcnt_vscnt / gfx12 s_wait_* counter
  std::set<std::string> omit_in;                                  // flavours that leave this element out
  std::map<std::string, std::set<std::string>> omit_counters_in;  // flavour -> counters left out
  std::map<std::string, std::set<std::string>> omit_bits_in;      // flavour -> cache bits left out (glc, sc0, ...)
};

struct RowSource {
  std::string document, table, row;
  int line = 0;  // in the document, when known
};

struct MappingRow {
  std::string id;
  std::set<Operation> operations;
  Atomicity atomicity = Atomicity::NonAtomic;
  std::set<AccessKind> access;    // non-atomic rows; empty = any
  std::set<Ordering> orderings;   // atomic rows and fences
  std::set<SyncScope> scopes;     // empty = any
  std::set<AddressSpace> spaces;  // empty = any (fences)
  std::set<std::string> targets;  // empty = every target of the table
  std::vector<SequenceElement> sequence;
  RowSource source;
  std::string note;
  bool matches(const MemoryOperation& op, std::string_view target) const;
};

class MappingTable {
 public:
  // Reads and checks a table, each row's sequence against each of its targets (the
  // instructions the target has, its counters' fields, the cache bits each instruction
  // takes). Throws MappingError naming the file and the row at fault; with the table's
  // `text`, at the line and column of the row's id.
  static MappingTable from_json(const nlohmann::json& doc, std::string_view origin, std::string_view text = {});
  static MappingTable from_file(const std::filesystem::path& path);
  // A table shipped with hsalit (embedded at build time from codegen/mappings/NAME.json).
  static MappingTable builtin(std::string_view name);
  static std::vector<std::string> builtin_names();

  const std::string& name() const { return name_; }
  const std::string& description() const { return description_; }
  const std::vector<std::string>& targets() const { return targets_; }
  const std::vector<std::string>& flavours() const { return flavours_; }
  const std::vector<MappingRow>& rows() const { return rows_; }
  bool supports_target(std::string_view target) const;

  // The row for an operation on a target; nullptr when the table has none.
  const MappingRow* find(const MemoryOperation& op, std::string_view target) const;

 private:
  std::string name_, description_, origin_;
  std::vector<std::string> targets_, flavours_;
  std::vector<MappingRow> rows_;
};

struct MappingError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace hsalit::codegen
