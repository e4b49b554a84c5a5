#include "hsalit/codegen/mapping.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "embedded.hpp"
#include "hsalit/codegen/target.hpp"

namespace hsalit::codegen {

using nlohmann::json;

std::string_view to_string(Operation v) {
  switch (v) {
    case Operation::Load: return "load";
    case Operation::Store: return "store";
    case Operation::Rmw: return "rmw";
    case Operation::Fence: return "fence";
  }
  return "?";
}

std::string_view to_string(AccessKind v) {
  switch (v) {
    case AccessKind::Plain: return "plain";
    case AccessKind::Volatile: return "volatile";
    case AccessKind::Nontemporal: return "nontemporal";
  }
  return "?";
}

std::string_view to_string(Ordering v) {
  switch (v) {
    case Ordering::None: return "none";
    case Ordering::Unordered: return "unordered";
    case Ordering::Monotonic: return "monotonic";
    case Ordering::Acquire: return "acquire";
    case Ordering::Release: return "release";
    case Ordering::AcqRel: return "acq_rel";
    case Ordering::SeqCst: return "seq_cst";
  }
  return "?";
}

std::string_view to_string(SyncScope v) {
  switch (v) {
    case SyncScope::None: return "none";
    case SyncScope::SingleThread: return "singlethread";
    case SyncScope::Wavefront: return "wavefront";
    case SyncScope::Workgroup: return "workgroup";
    case SyncScope::Agent: return "agent";
    case SyncScope::System: return "system";
  }
  return "?";
}

std::string_view to_string(AddressSpace v) {
  switch (v) {
    case AddressSpace::None: return "none";
    case AddressSpace::Global: return "global";
    case AddressSpace::Local: return "local";
    case AddressSpace::Generic: return "generic";
    case AddressSpace::Private: return "private";
    case AddressSpace::Constant: return "constant";
  }
  return "?";
}

std::optional<Ordering> ordering_from_string(std::string_view s) {
  if (s == "none") return Ordering::None;
  if (s == "unordered") return Ordering::Unordered;
  if (s == "monotonic" || s == "rlx") return Ordering::Monotonic;
  if (s == "acquire" || s == "scacq") return Ordering::Acquire;
  if (s == "release" || s == "screl") return Ordering::Release;
  if (s == "acq_rel") return Ordering::AcqRel;
  if (s == "seq_cst" || s == "scar") return Ordering::SeqCst;
  return std::nullopt;
}

std::optional<SyncScope> sync_scope_from_string(std::string_view s) {
  if (s == "none") return SyncScope::None;
  if (s == "singlethread" || s == "wi") return SyncScope::SingleThread;
  if (s == "wavefront" || s == "wave") return SyncScope::Wavefront;
  if (s == "workgroup" || s == "wg") return SyncScope::Workgroup;
  if (s == "agent") return SyncScope::Agent;
  if (s == "system") return SyncScope::System;
  return std::nullopt;
}

std::optional<AddressSpace> address_space_from_string(std::string_view s) {
  if (s == "global") return AddressSpace::Global;
  if (s == "local" || s == "group") return AddressSpace::Local;
  if (s == "generic" || s == "flat") return AddressSpace::Generic;
  if (s == "private") return AddressSpace::Private;
  if (s == "constant") return AddressSpace::Constant;
  return std::nullopt;
}

std::string MemoryOperation::describe() const {
  std::string out(to_string(operation));
  if (operation == Operation::Fence) return fmt::format("fence {} {}", to_string(ordering), to_string(scope));
  if (atomicity == Atomicity::NonAtomic)
    return fmt::format("{} non-atomic {} {}", out, to_string(access), to_string(space));
  return fmt::format("{} atomic {} {} {}", out, to_string(ordering), to_string(scope), to_string(space));
}

bool MappingRow::matches(const MemoryOperation& op, std::string_view target) const {
  if (!operations.count(op.operation)) return false;
  if (op.operation != Operation::Fence && atomicity != op.atomicity) return false;
  if (!targets.empty() && !targets.count(std::string(target))) return false;
  if (op.operation != Operation::Fence && !spaces.empty() && !spaces.count(op.space)) return false;
  if (op.atomicity == Atomicity::NonAtomic && op.operation != Operation::Fence)
    return access.empty() || access.count(op.access);
  if (!orderings.empty() && !orderings.count(op.ordering)) return false;
  return scopes.empty() || scopes.count(op.scope);
}

namespace {

// Reads one table, every error naming the file and the row.
class TableReader {
 public:
  TableReader(std::string_view origin, std::string_view text) : origin_(origin), text_(text) {}

  // An error in the row at_row() names is given at the line and column of its id in the
  // table's text, when the text is known (nlohmann::json keeps no positions).
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    if (row_id_)
      if (auto at = locate(*row_id_))
        throw MappingError(fmt::format("{}:{}:{}: error: {}: {}", origin_, at->first, at->second, where, what));
    throw MappingError(fmt::format("{}: error: {}: {}", origin_, where, what));
  }

  // The row the errors that follow are in (nullopt: none).
  void at_row(std::optional<std::string> id) const { row_id_ = std::move(id); }

  // The line and column (1-based) of `"id": "ID"` in the text.
  std::optional<std::pair<int, int>> locate(const std::string& id) const {
    const std::string quoted = json(id).dump();
    for (std::size_t at = text_.find(quoted); at != std::string_view::npos; at = text_.find(quoted, at + 1)) {
      std::size_t before = at;
      while (before > 0 && (text_[before - 1] == ' ' || text_[before - 1] == '\t' || text_[before - 1] == '\n' ||
                            text_[before - 1] == '\r'))
        --before;
      if (before == 0 || text_[before - 1] != ':') continue;
      const std::size_t key_end = text_.find_last_not_of(" \t\r\n", before - 2);
      if (key_end == std::string_view::npos || key_end < 3 || text_.substr(key_end - 3, 4) != "\"id\"") continue;
      const std::size_t key = key_end - 3;
      const std::size_t line_start = text_.rfind('\n', key);
      const int line =
          1 + static_cast<int>(std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(key), '\n'));
      const int column = static_cast<int>(key - (line_start == std::string_view::npos ? 0 : line_start + 1)) + 1;
      return std::make_pair(line, column);
    }
    return std::nullopt;
  }

  template <typename T, typename F>
  std::set<T> names(const json& row, const char* key, const std::string& where, F parse) const {
    std::set<T> out;
    if (!row.contains(key)) return out;
    json v = row[key];
    if (v.is_string()) v = json::array({v});
    if (!v.is_array()) fail(where, fmt::format("'{}' is a name or a list of names", key));
    for (const json& item : v) {
      if (!item.is_string()) fail(where, fmt::format("'{}' holds names", key));
      auto parsed = parse(item.get<std::string>());
      if (!parsed) fail(where, fmt::format("unknown {} '{}'", key, item.get<std::string>()));
      out.insert(*parsed);
    }
    return out;
  }

  SequenceElement element(const json& e, const std::string& where) const {
    SequenceElement out;
    if (e.is_string()) {
      if (e.get<std::string>() == "access") {
        out.is_access = true;
        return out;
      }
      out.mnemonic = e.get<std::string>();
    } else if (e.is_object()) {
      if (!e.contains("op") || !e["op"].is_string()) fail(where, "a sequence element needs \"op\"");
      std::string op = e["op"];
      if (op == "access")
        out.is_access = true;
      else
        out.mnemonic = op;
      for (const auto& [key, value] : e.items()) {
        // Structured bindings captured by name, which clang before 16 (the fuzz build's) refuses.
        auto flag = [&, &key = key, &value = value](bool& slot) {
          if (!value.is_boolean()) fail(where, fmt::format("'{}' is true or false", key));
          slot = value.get<bool>();
        };
        // Read without conversion: 4294967296 must not become 0. Each target's field bounds
        // it further (check_on_target).
        auto counter = [&, &key = key, &value = value](std::optional<int>& slot) {
          const bool count =
              value.is_number_unsigned() || (value.is_number_integer() && value.get<std::int64_t>() >= 0);
          if (!count) fail(where, fmt::format("'{}' is a count (a whole number, 0 or more)", key));
          const auto n = value.get<std::uint64_t>();
          if (n > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
            fail(where, fmt::format("'{}' {} is beyond any wait counter's field", key, n));
          slot = static_cast<int>(n);
        };
        if (key == "op")
          continue;
        else if (bool* slot = out.policy.flag(key))
          flag(*slot);
        else if (key == "th" || key == "scope") {
          if (!value.is_string()) fail(where, fmt::format("'{}' is a string", key));
          (key == "th" ? out.policy.th : out.policy.scope) = value.get<std::string>();
        } else if (key == "vmcnt")
          counter(out.wait.vmcnt);
        else if (key == "expcnt")
          counter(out.wait.expcnt);
        else if (key == "lgkmcnt")
          counter(out.wait.lgkmcnt);
        else if (key == "count")
          counter(out.count);
        else if (key == "omit_in") {
          for (const std::string& f : strings(value, where, "omit_in")) out.omit_in.insert(f);
        } else if (key == "omit_bits_in") {
          if (!value.is_object()) fail(where, "'omit_bits_in' maps a flavour to cache bits");
          for (const auto& [flavour, bits] : value.items())
            for (const std::string& b : strings(bits, where, "omit_bits_in")) {
              if (CachePolicy probe; !probe.clear(b)) fail(where, fmt::format("unknown cache bit '{}'", b));
              out.omit_bits_in[flavour].insert(b);
            }
        } else if (key == "omit_counters_in") {
          if (!value.is_object()) fail(where, "'omit_counters_in' maps a flavour to counters");
          for (const auto& [flavour, counters] : value.items())
            for (const std::string& c : strings(counters, where, "omit_counters_in")) {
              if (c != "vmcnt" && c != "lgkmcnt" && c != "expcnt") fail(where, fmt::format("unknown counter '{}'", c));
              out.omit_counters_in[flavour].insert(c);
            }
        } else {
          fail(where, fmt::format("unknown key '{}' in a sequence element", key));
        }
      }
    } else {
      fail(where, "a sequence element is \"access\", a mnemonic or an object");
    }
    if (!out.is_access) {
      InstrClass k = classify(out.mnemonic);
      if (k == InstrClass::Other || k == InstrClass::Label || k == InstrClass::Alu)
        fail(where, fmt::format("'{}' is not a wait, cache or barrier instruction", out.mnemonic));
    }
    return out;
  }

  std::vector<std::string> strings(const json& v, const std::string& where, const char* key) const {
    std::vector<std::string> out;
    json list = v.is_string() ? json::array({v}) : v;
    if (!list.is_array()) fail(where, fmt::format("'{}' is a name or a list of names", key));
    for (const json& s : list) {
      if (!s.is_string()) fail(where, fmt::format("'{}' holds names", key));
      out.push_back(s.get<std::string>());
    }
    return out;
  }

  MappingRow row(const json& r, std::size_t index) const {
    std::string where = fmt::format("row {}", index);
    if (!r.is_object()) fail(where, "a row is an object");
    MappingRow out;
    if (!r.contains("id") || !r["id"].is_string()) fail(where, "a row needs a string \"id\"");
    out.id = r["id"];
    at_row(out.id);
    where = fmt::format("row {} ({})", index, out.id);
    static const std::set<std::string> kKeys = {"id",     "operation", "atomic",   "access",  "orderings", "scopes",
                                                "spaces", "targets",   "sequence", "same_as", "source",    "note"};
    for (const auto& [key, value] : r.items())
      if (!kKeys.count(key)) fail(where, fmt::format("unknown key '{}'", key));
    out.operations = names<Operation>(r, "operation", where, [](std::string_view s) -> std::optional<Operation> {
      if (s == "load") return Operation::Load;
      if (s == "store") return Operation::Store;
      if (s == "rmw" || s == "atomicrmw") return Operation::Rmw;
      if (s == "fence") return Operation::Fence;
      return std::nullopt;
    });
    if (out.operations.empty()) fail(where, "a row needs an \"operation\"");
    if (r.contains("atomic")) {
      if (!r["atomic"].is_boolean()) fail(where, "'atomic' is true or false");
      out.atomicity = r["atomic"].get<bool>() ? Atomicity::Atomic : Atomicity::NonAtomic;
    }
    out.access = names<AccessKind>(r, "access", where, [](std::string_view s) -> std::optional<AccessKind> {
      if (s == "plain") return AccessKind::Plain;
      if (s == "volatile") return AccessKind::Volatile;
      if (s == "nontemporal") return AccessKind::Nontemporal;
      return std::nullopt;
    });
    out.orderings = names<Ordering>(r, "orderings", where, ordering_from_string);
    out.scopes = names<SyncScope>(r, "scopes", where, sync_scope_from_string);
    out.spaces = names<AddressSpace>(r, "spaces", where, address_space_from_string);
    if (r.contains("targets"))
      for (const std::string& t : strings(r["targets"], where, "targets")) out.targets.insert(t);
    bool fence = out.operations.count(Operation::Fence) != 0;
    if (fence && out.operations.size() != 1) fail(where, "a fence row describes fences only");
    if ((out.atomicity == Atomicity::Atomic || fence) && out.orderings.empty())
      fail(where, "an atomic or fence row lists its \"orderings\"");
    if (!fence && out.spaces.empty()) fail(where, "a memory operation row lists its \"spaces\"");
    if (r.contains("same_as") == r.contains("sequence"))
      fail(where, "a row has either a \"sequence\" or \"same_as\" another row");
    if (r.contains("sequence")) {
      if (!r["sequence"].is_array()) fail(where, "'sequence' is a list");
      int accesses = 0;
      for (std::size_t i = 0; i < r["sequence"].size(); ++i) {
        out.sequence.push_back(element(r["sequence"][i], fmt::format("{}, element {}", where, i)));
        accesses += out.sequence.back().is_access;
      }
      if (fence && accesses != 0) fail(where, "a fence sequence has no \"access\" element");
      if (!fence && accesses != 1) fail(where, "a memory operation sequence has exactly one \"access\" element");
    }
    if (!r.contains("source") || !r["source"].is_object())
      fail(where, "a row cites its \"source\" (document, table, row)");
    const json& s = r["source"];
    for (const char* key : {"document", "table", "row"})
      if (!s.contains(key) || !s[key].is_string()) fail(where, fmt::format("'source' needs a string \"{}\"", key));
    out.source.document = s["document"];
    out.source.table = s["table"];
    out.source.row = s["row"];
    if (s.contains("line")) {
      if (!s["line"].is_number_integer()) fail(where, "'source.line' is a number");
      out.source.line = s["line"];
    }
    if (r.contains("note")) {
      if (!r["note"].is_string()) fail(where, "'note' is a string");
      out.note = r["note"];
    }
    return out;
  }

 private:
  std::string origin_;
  std::string_view text_;
  mutable std::optional<std::string> row_id_;
};

// The cache bits an element sets, by name.
std::vector<std::string> bits_of(const CachePolicy& p) {
  std::vector<std::string> out;
  if (p.glc) out.push_back("glc");
  if (p.slc) out.push_back("slc");
  if (p.dlc) out.push_back("dlc");
  if (p.sc0) out.push_back("sc0");
  if (p.sc1) out.push_back("sc1");
  if (p.nt) out.push_back("nt");
  if (!p.th.empty()) out.push_back("th");
  if (!p.scope.empty()) out.push_back("scope");
  return out;
}

// Why a sequence element cannot be emitted for `target`: an instruction the target lacks, a
// count out of its counter's field or on an instruction that takes none, a cache bit the
// instruction does not take there; empty when it can.
std::string problem_on_target(const SequenceElement& e, const Target& target) {
  const TargetInstructions& isa = target_instructions(target);
  const std::vector<std::string> bits = bits_of(e.policy);
  const bool waits = e.wait.vmcnt || e.wait.expcnt || e.wait.lgkmcnt;
  auto bits_outside = [&](const std::vector<std::string>& allowed, std::string_view what) -> std::string {
    for (const std::string& b : bits)
      if (std::find(allowed.begin(), allowed.end(), b) == allowed.end())
        return allowed.empty()
                   ? fmt::format("{} takes no cache bits on {} (it has '{}')", what, target.name, b)
                   : fmt::format("{} takes {} on {}, not '{}'", what, fmt::join(allowed, ", "), target.name, b);
    return {};
  };
  if (e.is_access) {
    if (waits || e.count) return "the access takes no count";
    return bits_outside(isa.access_bits, "a memory access");
  }
  auto sub = target.substitute.find(e.mnemonic);
  const std::string mnemonic = sub == target.substitute.end() ? e.mnemonic : sub->second;
  if (mnemonic == "s_waitcnt") {
    if (e.count) return "s_waitcnt takes vmcnt, expcnt and lgkmcnt, not 'count'";
    for (const auto& [name, value] :
         {std::pair{"vmcnt", e.wait.vmcnt}, std::pair{"expcnt", e.wait.expcnt}, std::pair{"lgkmcnt", e.wait.lgkmcnt}}) {
      if (!value) continue;
      auto max = isa.waitcnt_max.find(name);
      if (max == isa.waitcnt_max.end()) return fmt::format("{} has no {} counter", target.name, name);
      if (*value > max->second)
        return fmt::format("{}({}) is out of range on {}: its field holds 0 to {}", name, *value, target.name,
                           max->second);
    }
    return bits_outside({}, "s_waitcnt");
  }
  if (auto max = isa.count_max.find(mnemonic); max != isa.count_max.end()) {
    if (waits) return fmt::format("{} takes one 'count', not vmcnt, expcnt or lgkmcnt", mnemonic);
    if (!e.count) return fmt::format("{} needs a 'count'", mnemonic);
    if (*e.count > max->second)
      return fmt::format("{} {} is out of range on {}: its field holds 0 to {}", mnemonic, *e.count, target.name,
                         max->second);
    return bits_outside({}, mnemonic);
  }
  auto literal = isa.literal_bits.find(mnemonic);
  if (literal == isa.literal_bits.end()) return fmt::format("'{}' does not exist on {}", mnemonic, target.name);
  if (waits || e.count) return fmt::format("{} takes no count", mnemonic);
  return bits_outside(literal->second, mnemonic);
}

// Every operation a table could be asked about, for the overlap check.
std::vector<MemoryOperation> all_operations() {
  std::vector<MemoryOperation> out;
  const AddressSpace spaces[] = {AddressSpace::Global, AddressSpace::Local, AddressSpace::Generic,
                                 AddressSpace::Private, AddressSpace::Constant};
  const SyncScope scopes[] = {SyncScope::SingleThread, SyncScope::Wavefront, SyncScope::Workgroup, SyncScope::Agent,
                              SyncScope::System};
  const Ordering orders[] = {Ordering::Unordered, Ordering::Monotonic, Ordering::Acquire,
                             Ordering::Release,   Ordering::AcqRel,    Ordering::SeqCst};
  for (Operation o : {Operation::Load, Operation::Store, Operation::Rmw}) {
    for (AddressSpace sp : spaces)
      for (AccessKind k : {AccessKind::Plain, AccessKind::Volatile, AccessKind::Nontemporal})
        out.push_back({o, Atomicity::NonAtomic, k, Ordering::None, SyncScope::None, sp});
    for (AddressSpace sp : spaces)
      for (Ordering ord : orders)
        for (SyncScope sc : scopes) out.push_back({o, Atomicity::Atomic, AccessKind::Plain, ord, sc, sp});
  }
  for (Ordering ord : orders)
    for (SyncScope sc : scopes)
      out.push_back({Operation::Fence, Atomicity::Atomic, AccessKind::Plain, ord, sc, AddressSpace::None});
  return out;
}

}  // namespace

MappingTable MappingTable::from_json(const json& doc, std::string_view origin, std::string_view text) {
  TableReader reader(origin, text);
  MappingTable t;
  t.origin_ = origin;
  if (!doc.is_object()) reader.fail("/", "a mapping table is an object");
  if (!doc.contains("schema") || doc["schema"] != "hsalit-mapping/1")
    reader.fail("/schema", "expected \"hsalit-mapping/1\"");
  for (const auto& [key, value] : doc.items())
    if (key != "schema" && key != "name" && key != "description" && key != "targets" && key != "flavours" &&
        key != "rows" && key != "sources")
      reader.fail("/", fmt::format("unknown key '{}'", key));
  if (!doc.contains("name") || !doc["name"].is_string()) reader.fail("/name", "a table needs a name");
  t.name_ = doc["name"];
  if (doc.contains("description")) {
    if (!doc["description"].is_string()) reader.fail("/description", "a string");
    t.description_ = doc["description"];
  }
  if (!doc.contains("targets")) reader.fail("/targets", "a table lists the targets it applies to");
  t.targets_ = reader.strings(doc["targets"], "/targets", "targets");
  t.flavours_ = doc.contains("flavours") ? reader.strings(doc["flavours"], "/flavours", "flavours")
                                         : std::vector<std::string>{"hsa"};
  if (!doc.contains("rows") || !doc["rows"].is_array()) reader.fail("/rows", "a table has a list of rows");
  std::set<std::string> ids;
  for (std::size_t i = 0; i < doc["rows"].size(); ++i) {
    MappingRow row = reader.row(doc["rows"][i], i);
    if (!ids.insert(row.id).second) reader.fail(fmt::format("row {} ({})", i, row.id), "duplicate id");
    for (const std::string& target : row.targets)
      if (std::find(t.targets_.begin(), t.targets_.end(), target) == t.targets_.end())
        reader.fail(fmt::format("row {} ({})", i, row.id),
                    fmt::format("target '{}' is not one of the table's", target));
    for (const SequenceElement& e : row.sequence) {
      std::vector<std::string> named(e.omit_in.begin(), e.omit_in.end());
      for (const auto& [f, counters] : e.omit_counters_in) named.push_back(f);
      for (const auto& [f, bits] : e.omit_bits_in) named.push_back(f);
      for (const std::string& f : named)
        if (std::find(t.flavours_.begin(), t.flavours_.end(), f) == t.flavours_.end())
          reader.fail(fmt::format("row {} ({})", i, row.id), fmt::format("unknown flavour '{}'", f));
    }
    t.rows_.push_back(std::move(row));
    reader.at_row(std::nullopt);
  }
  // Resolve `same_as`.
  for (std::size_t i = 0; i < doc["rows"].size(); ++i) {
    if (!doc["rows"][i].contains("same_as")) continue;
    std::string other = doc["rows"][i]["same_as"].is_string() ? doc["rows"][i]["same_as"].get<std::string>() : "";
    auto it = std::find_if(t.rows_.begin(), t.rows_.end(), [&](const MappingRow& r) { return r.id == other; });
    reader.at_row(t.rows_[i].id);
    if (it == t.rows_.end() || doc["rows"][static_cast<std::size_t>(it - t.rows_.begin())].contains("same_as"))
      reader.fail(fmt::format("row {} ({})", i, t.rows_[i].id),
                  fmt::format("'same_as' names '{}', which is not a row with a sequence", other));
    t.rows_[i].sequence = it->sequence;
    reader.at_row(std::nullopt);
  }
  // Each row's sequence as each of its targets would emit it (docs/mapping-tables.md).
  const TargetCatalog& catalog = TargetCatalog::builtin();
  for (const std::string& name : t.targets_)
    if (!catalog.find(name))
      reader.fail("/targets", fmt::format("unknown target '{}' (known: {})", name, fmt::join(catalog.names(), ", ")));
  for (std::size_t i = 0; i < t.rows_.size(); ++i) {
    const MappingRow& row = t.rows_[i];
    const std::vector<std::string> targets =
        row.targets.empty() ? t.targets_ : std::vector<std::string>(row.targets.begin(), row.targets.end());
    reader.at_row(row.id);
    for (std::size_t k = 0; k < row.sequence.size(); ++k)
      for (const std::string& name : targets) {
        const std::string problem = problem_on_target(row.sequence[k], catalog.get(name));
        if (!problem.empty()) reader.fail(fmt::format("row {} ({}), element {}", i, row.id, k), problem);
      }
    reader.at_row(std::nullopt);
  }
  // No operation may match two rows on one target.
  for (const std::string& target : t.targets_)
    for (const MemoryOperation& op : all_operations()) {
      const MappingRow* first = nullptr;
      for (const MappingRow& r : t.rows_) {
        if (!r.matches(op, target)) continue;
        if (first)
          reader.fail(fmt::format("rows '{}' and '{}'", first->id, r.id),
                      fmt::format("both match {} on {}", op.describe(), target));
        first = &r;
      }
    }
  return t;
}

MappingTable MappingTable::from_file(const std::filesystem::path& path) {
  // A folder opens as a stream and fails only when read, with the C++ library's words and
  // without the file's name: said here instead.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw MappingError(fmt::format("{}: error: is a directory, not a mapping table file", path.string()));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw MappingError(
        fmt::format("{}: error: cannot read the mapping table: {}", path.string(), std::strerror(errno)));
  std::ostringstream read;
  read << in.rdbuf();
  if (in.bad()) throw MappingError(fmt::format("{}: error: cannot read the mapping table", path.string()));
  const std::string text = read.str();
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw MappingError(fmt::format("{}: error: not valid JSON (byte {}): {}", path.string(), e.byte, e.what()));
  } catch (const json::exception& e) {  // a number past a double's range (out_of_range.406)
    throw MappingError(fmt::format("{}: error: not valid JSON: {}", path.string(), e.what()));
  }
  return from_json(doc, path.string(), text);
}

MappingTable MappingTable::builtin(std::string_view name) {
  for (const EmbeddedFile& f : embedded_files())
    if (f.name == fmt::format("mappings/{}.json", name))
      return from_json(json::parse(f.content), fmt::format("codegen/mappings/{}.json", name), f.content);
  throw MappingError(
      fmt::format("no built-in mapping table '{}' (built-in: {})", name, fmt::join(builtin_names(), ", ")));
}

std::vector<std::string> MappingTable::builtin_names() {
  std::vector<std::string> out;
  for (const EmbeddedFile& f : embedded_files()) {
    std::string_view n = f.name;
    if (n.substr(0, 9) == "mappings/" && n.size() > 14) out.emplace_back(n.substr(9, n.size() - 14));
  }
  return out;
}

bool MappingTable::supports_target(std::string_view target) const {
  return std::find(targets_.begin(), targets_.end(), target) != targets_.end();
}

const MappingRow* MappingTable::find(const MemoryOperation& op, std::string_view target) const {
  for (const MappingRow& r : rows_)
    if (r.matches(op, target)) return &r;
  return nullptr;
}

}  // namespace hsalit::codegen
