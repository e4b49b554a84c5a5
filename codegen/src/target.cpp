#include "hsalit/codegen/target.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "embedded.hpp"

namespace hsalit::codegen {

using nlohmann::json;

std::string_view to_string(GlobalForm f) {
  switch (f) {
    case GlobalForm::Buffer: return "buffer";
    case GlobalForm::Flat: return "flat";
    case GlobalForm::Global: return "global";
  }
  return "?";
}

std::string_view to_string(AtomicOp op) {
  switch (op) {
    case AtomicOp::Swap: return "swap";
    case AtomicOp::Add: return "add";
    case AtomicOp::Sub: return "sub";
    case AtomicOp::And: return "and";
    case AtomicOp::Or: return "or";
    case AtomicOp::Xor: return "xor";
    case AtomicOp::Cas: return "cas";
  }
  return "?";
}

TargetCatalog TargetCatalog::from_json(const json& doc) {
  TargetCatalog c;
  c.naming_ = doc.at("naming");
  c.alu_ = doc.at("alu");
  for (const auto& [name, t] : doc.at("targets").items()) {
    Target target;
    target.name = name;
    target.generation = t.at("generation");
    target.mapping = t.at("mapping");
    target.memory_model = t.at("memory_model");
    std::string global = t.at("global");
    target.global = global == "buffer" ? GlobalForm::Buffer : global == "flat" ? GlobalForm::Flat : GlobalForm::Global;
    target.flat = t.at("flat");
    target.naming = t.at("naming");
    target.alu = t.at("alu");
    const json& r = t.at("atomic_return");
    target.atomic_return.glc = r.value("glc", false);
    target.atomic_return.sc0 = r.value("sc0", false);
    target.atomic_return.th = r.value("th", "");
    target.even_vgpr_pairs = t.at("even_vgpr_pairs");
    target.lds_needs_m0 = t.at("lds_needs_m0");
    target.llvm = t.at("llvm");
    target.assembler_flags = t.value("assembler_flags", std::vector<std::string>{});
    target.barrier = t.value("barrier", std::vector<std::string>{"s_barrier"});
    target.substitute = t.value("substitute", std::map<std::string, std::string>{});
    target.note = t.value("note", "");
    target.wave_size = t.value("wave_size", 64);
    c.targets_.push_back(std::move(target));
  }
  return c;
}

const TargetCatalog& TargetCatalog::builtin() {
  static const TargetCatalog catalog = [] {
    for (const EmbeddedFile& f : embedded_files())
      if (f.name == "targets.json") return from_json(json::parse(f.content));
    throw std::logic_error("targets.json is not embedded");
  }();
  return catalog;
}

const Target* TargetCatalog::find(std::string_view name) const {
  for (const Target& t : targets_)
    if (t.name == name) return &t;
  return nullptr;
}

const Target& TargetCatalog::get(std::string_view name) const {
  if (const Target* t = find(name)) return *t;
  throw std::runtime_error(fmt::format("unknown target '{}' (known: {})", name, fmt::join(names(), ", ")));
}

std::vector<std::string> TargetCatalog::names() const {
  std::vector<std::string> out;
  for (const Target& t : targets_) out.push_back(t.name);
  return out;
}

namespace {

std::string with_segment(std::string pattern, std::string_view seg) {
  auto at = pattern.find("{seg}");
  if (at != std::string::npos) pattern.replace(at, 5, seg);
  return pattern;
}

}  // namespace

const TargetInstructions& target_instructions(const Target& t) {
  using Bits = std::vector<std::string>;
  static const TargetInstructions gfx6 = {
      {{"vmcnt", 15}, {"expcnt", 7}, {"lgkmcnt", 15}}, {}, {{"buffer_wbinvl1", {}}, {"s_barrier", {}}}, {"glc", "slc"}};
  static const TargetInstructions gfx7_8 = {{{"vmcnt", 15}, {"expcnt", 7}, {"lgkmcnt", 15}},
                                            {},
                                            {{"buffer_wbinvl1", {}}, {"buffer_wbinvl1_vol", {}}, {"s_barrier", {}}},
                                            {"glc", "slc"}};
  static const TargetInstructions gfx9 = {{{"vmcnt", 63}, {"expcnt", 7}, {"lgkmcnt", 15}},
                                          {},
                                          {{"buffer_wbinvl1", {}}, {"buffer_wbinvl1_vol", {}}, {"s_barrier", {}}},
                                          {"glc", "slc"}};
  static const TargetInstructions gfx90a = {{{"vmcnt", 63}, {"expcnt", 7}, {"lgkmcnt", 15}},
                                            {},
                                            {{"buffer_wbinvl1", {}},
                                             {"buffer_wbinvl1_vol", {}},
                                             {"buffer_invl2", {}},
                                             {"buffer_wbl2", {}},
                                             {"s_barrier", {}}},
                                            {"glc", "slc"}};
  static const TargetInstructions gfx940 = {{{"vmcnt", 63}, {"expcnt", 7}, {"lgkmcnt", 15}},
                                            {},
                                            {{"buffer_wbinvl1", {}},
                                             {"buffer_wbinvl1_vol", {}},
                                             {"buffer_inv", Bits{"sc0", "sc1"}},
                                             {"buffer_wbl2", Bits{"sc0", "sc1"}},
                                             {"s_barrier", {}}},
                                            {"sc0", "sc1", "nt"}};
  static const TargetInstructions gfx10_11 = {{{"vmcnt", 63}, {"expcnt", 7}, {"lgkmcnt", 63}},
                                              {{"s_waitcnt_vscnt", 63}},
                                              {{"buffer_gl0_inv", {}}, {"buffer_gl1_inv", {}}, {"s_barrier", {}}},
                                              {"glc", "slc", "dlc"}};
  static const TargetInstructions gfx12 = {
      {{"vmcnt", 63}, {"expcnt", 7}, {"lgkmcnt", 63}},
      {{"s_wait_loadcnt", 63},
       {"s_wait_storecnt", 63},
       {"s_wait_samplecnt", 63},
       {"s_wait_dscnt", 63},
       {"s_wait_bvhcnt", 7},
       {"s_wait_kmcnt", 31},
       {"s_wait_expcnt", 7}},
      {{"global_inv", Bits{"scope"}}, {"global_wb", Bits{"scope"}}, {"s_barrier_signal", {}}, {"s_barrier_wait", {}}},
      {"th", "scope"}};
  if (t.generation <= 6) return gfx6;
  if (t.generation <= 8) return gfx7_8;
  if (t.memory_model == "gfx90a") return gfx90a;
  if (t.memory_model == "gfx942") return gfx940;
  if (t.generation == 9) return gfx9;
  if (t.generation <= 11) return gfx10_11;
  return gfx12;
}

std::string TargetCatalog::load(const Target& t, std::optional<GlobalForm> form, bool wide) const {
  const json& n = naming_.at(t.naming);
  std::size_t i = wide ? 1 : 0;
  if (!form) return n.at("ds_load").at(i);
  return with_segment(n.at("load").at(i), to_string(*form));
}

std::string TargetCatalog::store(const Target& t, std::optional<GlobalForm> form, bool wide) const {
  const json& n = naming_.at(t.naming);
  std::size_t i = wide ? 1 : 0;
  if (!form) return n.at("ds_store").at(i);
  return with_segment(n.at("store").at(i), to_string(*form));
}

std::string TargetCatalog::atomic(const Target& t, std::optional<GlobalForm> form, AtomicOp op, bool wide) const {
  const json& n = naming_.at(t.naming);
  std::size_t i = wide ? 1 : 0;
  std::string key(to_string(op));
  if (!form) return n.at("ds_atomic").at(key).at(i);
  return with_segment(n.at("atomic").at(key).at(i), to_string(*form));
}

bool TargetCatalog::ds_cas_compare_first(const Target& t) const {
  return naming_.at(t.naming).at("ds_cas_operands") == "compare-then-new";
}

std::string TargetCatalog::alu(const Target& t, std::string_view op) const {
  return alu_.at(t.alu).at(std::string(op));
}

// ---- Wait counters: one model per generation (target.hpp) ---------------------------------

namespace {

bool has_prefix(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

}  // namespace

namespace {

CounterModel build_counter_model(const Target& target) {
  CounterModel m;
  m.generation = target.generation;
  m.atomic_return = target.atomic_return;
  if (target.generation >= 12) {
    m.names = {"loadcnt", "storecnt", "dscnt", "kmcnt"};
    m.lds_counter = "dscnt";
  } else if (target.generation >= 10) {
    m.names = {"vmcnt", "vscnt", "lgkmcnt"};
    m.lds_counter = "lgkmcnt";
  } else {
    m.names = {"vmcnt", "lgkmcnt"};
    m.lds_counter = "lgkmcnt";
  }
  // The field widths, from what the target's wait instructions hold (target_instructions).
  const TargetInstructions& limits = target_instructions(target);
  for (const std::string& counter : m.names) {
    const Instruction wait = m.wait_instructions({{counter, 0}}).front();
    const bool waitcnt = wait.mnemonic == "s_waitcnt";
    const std::map<std::string, int>& fields = waitcnt ? limits.waitcnt_max : limits.count_max;
    auto it = fields.find(waitcnt ? counter : wait.mnemonic);
    m.max_counts.push_back(it == fields.end() ? 0 : it->second);
  }
  return m;
}

}  // namespace

// A model reads the generation, the atomic-return policy and the wait limits (one of
// target_instructions' tables): a handful of entries, never removed, so references stay valid.
const CounterModel& counter_model(const Target& target) {
  struct Entry {
    int generation;
    CachePolicy atomic_return;
    const TargetInstructions* limits;
    std::unique_ptr<const CounterModel> model;
  };
  static std::mutex mutex;
  static std::vector<Entry> models;
  const TargetInstructions* limits = &target_instructions(target);
  std::lock_guard lock(mutex);
  for (const Entry& e : models)
    if (e.generation == target.generation && e.atomic_return == target.atomic_return && e.limits == limits)
      return *e.model;
  models.push_back({target.generation, target.atomic_return, limits,
                    std::make_unique<const CounterModel>(build_counter_model(target))});
  return *models.back().model;
}

int CounterModel::slot(std::string_view name) const {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? -1 : static_cast<int>(it - names.begin());
}

std::vector<std::string> CounterModel::issued(const Instruction& ins) const {
  const bool g12 = generation >= 12, g10 = generation >= 10;
  const std::string load = g12 ? "loadcnt" : "vmcnt";
  const std::string store = g12 ? "storecnt" : g10 ? "vscnt" : "vmcnt";
  auto returning = [&] {
    const CachePolicy& p = ins.policy;
    const CachePolicy& r = atomic_return;
    return (r.glc && p.glc) || (r.sc0 && p.sc0) || (!r.th.empty() && p.th == r.th);
  };
  std::vector<std::string> out;
  switch (ins.kind()) {
    case InstrClass::VectorLoad: out.push_back(load); break;
    case InstrClass::VectorStore: out.push_back(store); break;
    case InstrClass::VectorAtomic: out.push_back(returning() ? load : store); break;
    case InstrClass::LdsLoad:
    case InstrClass::LdsStore:
    case InstrClass::LdsAtomic: out.push_back(lds_counter); break;
    case InstrClass::ScalarLoad: out.push_back(g12 ? "kmcnt" : "lgkmcnt"); break;
    default: break;
  }
  if (has_prefix(ins.mnemonic, "flat_") && ins.is_memory()) out.push_back(lds_counter);
  return out;
}

std::vector<std::pair<std::string, int>> CounterModel::waits(const Instruction& ins) const {
  std::vector<std::pair<std::string, int>> out;
  const std::string& m = ins.mnemonic;
  std::optional<std::int64_t> imm;
  for (const Operand& o : ins.operands)
    if (o.kind == Operand::Kind::Immediate) imm = o.imm;
  if (m == "s_waitcnt") {
    if (ins.wait.vmcnt) out.emplace_back("vmcnt", *ins.wait.vmcnt);
    if (ins.wait.lgkmcnt) out.emplace_back("lgkmcnt", *ins.wait.lgkmcnt);
    // `s_waitcnt 0`: every counter the instruction's fields hold (not vscnt).
    if (!ins.wait.vmcnt && !ins.wait.lgkmcnt && !ins.wait.expcnt && imm == 0)
      for (const char* n : {"vmcnt", "lgkmcnt"}) out.emplace_back(n, 0);
    return out;
  }
  if (has_prefix(m, "s_waitcnt_") && imm) {  // s_waitcnt_vscnt null, N (GFX10-11)
    out.emplace_back(m.substr(10), static_cast<int>(*imm));
    return out;
  }
  if (has_prefix(m, "s_wait_") && imm) {  // GFX12: s_wait_loadcnt 0, s_wait_loadcnt_dscnt 0x0
    std::string rest = m.substr(7);
    auto us = rest.find('_');
    if (us == std::string::npos) {
      out.emplace_back(rest, static_cast<int>(*imm));
    } else {  // combined: the first counter in bits 13:8, dscnt in bits 5:0
      out.emplace_back(rest.substr(0, us), static_cast<int>((*imm >> 8) & 0x3f));
      out.emplace_back(rest.substr(us + 1), static_cast<int>(*imm & 0x3f));
    }
  }
  return out;
}

std::vector<Instruction> CounterModel::wait_instructions(const std::vector<std::pair<std::string, int>>& bounds) const {
  std::vector<Instruction> out;
  Instruction waitcnt;
  waitcnt.mnemonic = "s_waitcnt";
  for (const auto& [name, count] : bounds) {
    if (generation < 12 && name == "vmcnt") {
      waitcnt.wait.vmcnt = count;
    } else if (generation < 12 && name == "lgkmcnt") {
      waitcnt.wait.lgkmcnt = count;
    } else {
      Instruction w;
      w.mnemonic = generation >= 12 ? "s_wait_" + name : "s_waitcnt_" + name;
      if (generation < 12) w.operands.push_back(Operand::special("null"));
      w.operands.push_back(Operand::immediate(count));
      out.push_back(std::move(w));
    }
  }
  if (waitcnt.wait.vmcnt || waitcnt.wait.lgkmcnt) out.insert(out.begin(), std::move(waitcnt));
  return out;
}

std::vector<std::string> assembler_flags(const Target& target, int wave_size) {
  std::vector<std::string> flags = target.assembler_flags;
  if (wave_size == 64 && target.wave_size != 64) flags.push_back("-mattr=+wavefrontsize64");
  return flags;
}

}  // namespace hsalit::codegen
