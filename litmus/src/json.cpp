#include "hsalit/litmus/json.hpp"

#include <fmt/format.h>

#include "hsalit/litmus/check.hpp"
#include "lexer.hpp"

namespace hsalit::litmus {

using nlohmann::json;

namespace {

json expr_to_json(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Constant: return e.value;
    case Expr::Kind::Register: return {{"reg", e.name}};
    case Expr::Kind::Location: return {{"location", e.name}};
    case Expr::Kind::Binary:
      return {{"op", to_string(e.op)},
              {"args", json::array({expr_to_json(e.operands.at(0)), expr_to_json(e.operands.at(1))})}};
  }
  return nullptr;
}

json prop_to_json(const Prop& p) {
  switch (p.kind) {
    case Prop::Kind::True: return true;
    case Prop::Kind::False: return false;
    case Prop::Kind::Equals: return {{"eq", json::array({p.lhs.to_string(), expr_to_json(p.rhs)})}};
    case Prop::Kind::SameValue: return {{"same", json::array({p.lhs.to_string(), p.rhs_ref.to_string()})}};
    case Prop::Kind::Not: return {{"not", prop_to_json(p.operands.at(0))}};
    case Prop::Kind::And:
    case Prop::Kind::Or:
    case Prop::Kind::Implies:
      return {{p.kind == Prop::Kind::And  ? "and"
               : p.kind == Prop::Kind::Or ? "or"
                                          : "implies",
               json::array({prop_to_json(p.operands.at(0)), prop_to_json(p.operands.at(1))})}};
  }
  return nullptr;
}

json instruction_to_json(const Instruction& ins) {
  json j = {{"op", to_string(ins.kind)}};
  const Annotations& a = ins.annots;
  if (ins.is_memory_access() || ins.kind == OpKind::Fence) {
    json an = {{"order", to_string(a.order)}, {"scope", to_string(a.scope)}};
    if (ins.kind != OpKind::Fence) {
      an["atomic"] = a.atomic;
      an["size"] = to_string(a.size);
    }
    if (ins.kind == OpKind::Rmw) an["cas"] = a.cas;
    if (a.seq_cst) an["seq_cst"] = true;
    if (a.fence_segment) an["segment"] = to_string(*a.fence_segment);
    j["annotations"] = an;
  } else if (ins.kind == OpKind::Barrier && a.fence_segment) {
    j["annotations"] = {{"segment", to_string(*a.fence_segment)}};
  }
  if (!a.tags.empty()) j["tags"] = a.tags;
  if (ins.kind == OpKind::Load || ins.kind == OpKind::Rmw || ins.kind == OpKind::Mov) j["reg"] = ins.reg;
  if (ins.is_memory_access()) {
    json addr = {{"base", expr_to_json(ins.addr.base)}};
    if (ins.addr.offset) addr["offset"] = expr_to_json(*ins.addr.offset);
    j["address"] = addr;
  }
  if (ins.kind == OpKind::Store || ins.kind == OpKind::Rmw || ins.kind == OpKind::Mov)
    j["value"] = expr_to_json(ins.value);
  if (ins.expected) j["expected"] = expr_to_json(*ins.expected);
  if (ins.condition) j["condition"] = expr_to_json(*ins.condition);
  if (ins.kind == OpKind::Branch || ins.kind == OpKind::Label) j["label"] = ins.label;
  if (ins.pos.at.valid()) j["line"] = ins.pos.at.line;
  return j;
}

json scope_node_to_json(const ScopeTree& tree, int index) {
  const ScopeNode& n = tree.nodes().at(static_cast<std::size_t>(index));
  json children = json::array();
  for (const ScopeNode::Child& c : n.children)
    children.push_back(c.is_thread ? json(c.index) : scope_node_to_json(tree, c.index));
  return {{"level", to_string(n.level)}, {"children", children}};
}

// Reads JSON with every error naming the JSON pointer of the member at fault.
struct JsonError {
  std::string pointer;
  std::string message;
};

class JsonReader {
 public:
  explicit JsonReader(const ParseLimits& limits) : max_nesting_(limits.max_nesting) {}

  Test read(const json& doc) {
    Test t;
    require_object(doc, "");
    if (doc.contains("schema") && doc["schema"] != kAstSchema)
      fail("/schema", fmt::format("unsupported schema (expected \"{}\")", kAstSchema));
    t.arch = get_string(doc, "", "arch", "LISA");
    if (t.arch != "LISA") fail("/arch", "only LISA tests are supported");
    t.name = get_string(doc, "", "name");
    if (t.name.empty() || t.name.find_first_of(" \t\n\r") != std::string::npos || t.name.rfind("(*", 0) == 0)
      fail("/name", "a test name is non-empty, has no blanks and does not start with '(*'");
    t.description = get_string(doc, "", "description", "");
    if (t.description.find_first_of("\"\n") != std::string::npos)
      fail("/description", "a description is one line without double quotes");
    for (const auto& [i, m] : items(doc, "", "metadata")) {
      std::string p = fmt::format("/metadata/{}", i);
      t.metadata.push_back({get_string(m, p, "key"), get_string(m, p, "value")});
      if (!detail::is_metadata_key(t.metadata.back().key))
        fail(p + "/key", "a metadata key is a name (letters, digits, '_', '.', '-')");
      if (!detail::is_metadata_value(t.metadata.back().value))
        fail(p + "/value", "a metadata value is one line without leading or trailing blanks");
    }
    for (const auto& [i, e] : items(doc, "", "init")) t.init.push_back(read_init(e, fmt::format("/init/{}", i)));
    for (const auto& [i, th] : items(doc, "", "threads"))
      t.threads.push_back(read_thread(th, fmt::format("/threads/{}", i)));
    if (doc.contains("scopes") && !doc["scopes"].is_null()) {
      const json& s = doc["scopes"];
      if (!s.is_array()) fail("/scopes", "expected an array of scope groups");
      for (std::size_t i = 0; i < s.size(); ++i)
        t.scopes.add_root(read_scope_node(t.scopes, s[i], fmt::format("/scopes/{}", i), 1));
    }
    for (const auto& [i, r] : items(doc, "", "regions")) {
      std::string p = fmt::format("/regions/{}", i);
      RegionEntry e;
      e.location = get_string(r, p, "location");
      const std::optional<Segment> seg = segment_from_string(get_string(r, p, "segment"));
      if (!seg) fail(p + "/segment", "expected \"global\" or \"group\"");
      e.segment = *seg;
      t.regions.push_back(std::move(e));
    }
    for (const auto& [i, l] : items(doc, "", "locations"))
      t.locations.push_back(read_ref(l, fmt::format("/locations/{}", i)));
    if (doc.contains("filter") && !doc["filter"].is_null()) t.filter = read_prop(doc["filter"], "/filter", 1);
    if (!doc.contains("condition")) fail("/condition", "missing");
    const json& c = doc["condition"];
    require_object(c, "/condition");
    std::string q = get_string(c, "/condition", "quantifier");
    if (q == "exists")
      t.condition.quantifier = Quantifier::Exists;
    else if (q == "~exists")
      t.condition.quantifier = Quantifier::NotExists;
    else if (q == "forall")
      t.condition.quantifier = Quantifier::Forall;
    else
      fail("/condition/quantifier", "expected \"exists\", \"~exists\" or \"forall\"");
    if (!c.contains("prop")) fail("/condition/prop", "missing");
    t.condition.prop = read_prop(c["prop"], "/condition/prop", 1);
    return t;
  }

 private:
  int max_nesting_;

  [[noreturn]] static void fail(std::string pointer, std::string message) {
    throw JsonError{std::move(pointer), std::move(message)};
  }
  static void require_object(const json& j, const std::string& p) {
    if (!j.is_object()) fail(p.empty() ? "/" : p, "expected an object");
  }
  static std::string get_string(const json& j, const std::string& p, const char* key,
                                std::optional<std::string> fallback = std::nullopt) {
    require_object(j, p);
    if (!j.contains(key)) {
      if (fallback) return *fallback;
      fail(p + "/" + key, "missing");
    }
    if (!j[key].is_string()) fail(p + "/" + key, "expected a string");
    return j[key].get<std::string>();
  }
  // An integer member that fits in an int64.
  static std::int64_t get_int64(const json& j, const std::string& p) {
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX))
      fail(p, "integer out of range (values are 64-bit signed integers)");
    if (!j.is_number_integer()) fail(p, "expected an integer");
    return j.get<std::int64_t>();
  }
  // A thread number: 0 to 1000000 (the thread limit is checked later, with a position).
  static int get_index(const json& j, const std::string& p) {
    if (!j.is_number_integer()) fail(p, "expected an integer");
    if (j.is_number_unsigned() ? j.get<std::uint64_t>() > 1000000
                               : (j.get<std::int64_t>() < 0 || j.get<std::int64_t>() > 1000000))
      fail(p, "expected a thread number (0 to 1000000)");
    return static_cast<int>(j.get<std::int64_t>());
  }
  static std::vector<std::pair<std::size_t, const json&>> items(const json& j, const std::string& p, const char* key) {
    std::vector<std::pair<std::size_t, const json&>> out;
    if (!j.contains(key)) return out;
    const json& a = j[key];
    if (!a.is_array()) fail(p + "/" + key, "expected an array");
    for (std::size_t i = 0; i < a.size(); ++i) out.emplace_back(i, a[i]);
    return out;
  }

  Expr read_expr(const json& j, const std::string& p, int depth) {
    if (depth > max_nesting_) fail(p, "nested too deeply");
    if (j.is_number_integer()) return Expr::constant(get_int64(j, p));
    if (!j.is_object()) fail(p, "expected an integer or an object");
    if (j.contains("reg")) return Expr::reg(get_string(j, p, "reg"));
    if (j.contains("location")) return Expr::location(get_string(j, p, "location"));
    if (j.contains("op")) {
      std::string op = get_string(j, p, "op");
      static const std::pair<const char*, BinaryOp> kOps[] = {
          {"add", BinaryOp::Add}, {"sub", BinaryOp::Sub}, {"xor", BinaryOp::Xor}, {"and", BinaryOp::And},
          {"or", BinaryOp::Or},   {"eq", BinaryOp::Eq},   {"neq", BinaryOp::Ne}};
      for (const auto& [name, bop] : kOps) {
        if (op != name) continue;
        if (!j.contains("args") || !j["args"].is_array() || j["args"].size() != 2)
          fail(p + "/args", "expected an array of two operands");
        return Expr::binary(bop, read_expr(j["args"][0], p + "/args/0", depth + 1),
                            read_expr(j["args"][1], p + "/args/1", depth + 1));
      }
      fail(p + "/op", fmt::format("unknown operator \"{}\"", op));
    }
    fail(p, "expected {\"reg\"}, {\"location\"} or {\"op\", \"args\"}");
  }

  ObservedRef read_ref(const json& j, const std::string& p) {
    if (!j.is_string()) fail(p, "expected \"N:reg\" or a location name");
    std::string s = j.get<std::string>();
    ObservedRef r;
    auto colon = s.find(':');
    if (colon == std::string::npos) {
      r.name = s;
    } else {
      try {
        std::size_t used = 0;
        int thread = std::stoi(s.substr(0, colon), &used);
        if (used != colon || thread < 0) throw std::invalid_argument("thread");
        r.thread = thread;
      } catch (const std::exception&) {
        fail(p, fmt::format("bad thread number in \"{}\"", s));
      }
      r.name = s.substr(colon + 1);
    }
    if (r.name.empty()) fail(p, "empty name");
    return r;
  }

  Prop read_prop(const json& j, const std::string& p, int depth) {
    if (depth > max_nesting_) fail(p, "nested too deeply");
    Prop r;
    if (j.is_boolean()) {
      r.kind = j.get<bool>() ? Prop::Kind::True : Prop::Kind::False;
      return r;
    }
    if (!j.is_object() || j.size() != 1) fail(p, "expected true, false or one of eq, same, not, and, or, implies");
    if (j.contains("eq")) {
      const json& e = j["eq"];
      if (!e.is_array() || e.size() != 2) fail(p + "/eq", "expected [\"ref\", value]");
      return Prop::equals(read_ref(e[0], p + "/eq/0"), read_expr(e[1], p + "/eq/1", 0));
    }
    if (j.contains("same")) {
      const json& e = j["same"];
      if (!e.is_array() || e.size() != 2) fail(p + "/same", "expected [\"ref\", \"ref\"]");
      return Prop::same_value(read_ref(e[0], p + "/same/0"), read_ref(e[1], p + "/same/1"));
    }
    if (j.contains("not")) return Prop::negation(read_prop(j["not"], p + "/not", depth + 1));
    const char* key = j.contains("and") ? "and" : j.contains("or") ? "or" : j.contains("implies") ? "implies" : nullptr;
    if (!key) fail(p, "expected true, false or one of eq, same, not, and, or, implies");
    const json& a = j[key];
    if (!a.is_array() || a.size() != 2) fail(p + "/" + key, "expected an array of two conditions");
    Prop lhs = read_prop(a[0], p + "/" + key + "/0", depth + 1);
    Prop rhs = read_prop(a[1], p + "/" + key + "/1", depth + 1);
    std::string_view kind = key;
    return kind == "and"  ? Prop::conjunction(std::move(lhs), std::move(rhs))
           : kind == "or" ? Prop::disjunction(std::move(lhs), std::move(rhs))
                          : Prop::implication(std::move(lhs), std::move(rhs));
  }

  InitEntry read_init(const json& j, const std::string& p) {
    InitEntry e;
    require_object(j, p);
    if (j.contains("thread")) {
      e.thread = get_index(j["thread"], p + "/thread");
    }
    e.name = get_string(j, p, "name");
    if (!j.contains("value")) fail(p + "/value", "missing");
    e.value = read_expr(j["value"], p + "/value", 0);
    return e;
  }

  Annotations read_annotations(const json& j, const std::string& p) {
    Annotations a;
    require_object(j, p);
    std::string order = get_string(j, p, "order", "rlx");
    if (order == "rlx")
      a.order = MemoryOrder::Relaxed;
    else if (order == "scacq")
      a.order = MemoryOrder::Acquire;
    else if (order == "screl")
      a.order = MemoryOrder::Release;
    else if (order == "scar")
      a.order = MemoryOrder::AcquireRelease;
    else
      fail(p + "/order", "expected rlx, scacq, screl or scar");
    auto scope = scope_from_string(get_string(j, p, "scope", "wi"));
    if (!scope) fail(p + "/scope", "expected wi, wave, wg, agent or system");
    a.scope = *scope;
    std::string size = get_string(j, p, "size", "single");
    if (size != "single" && size != "double") fail(p + "/size", "expected single or double");
    a.size = size == "double" ? AccessSize::Double : AccessSize::Single;
    for (const char* key : {"atomic", "cas", "seq_cst"}) {
      if (!j.contains(key)) continue;
      if (!j[key].is_boolean()) fail(p + "/" + key, "expected a boolean");
      const std::string_view k = key;
      (k == "atomic" ? a.atomic : k == "cas" ? a.cas : a.seq_cst) = j[key].get<bool>();
    }
    if (j.contains("segment")) {
      a.fence_segment = segment_from_string(get_string(j, p, "segment"));
      if (!a.fence_segment) fail(p + "/segment", "expected global or group");
    }
    return a;
  }

  Instruction read_instruction(const json& j, const std::string& p) {
    Instruction ins;
    std::string op = get_string(j, p, "op");
    static const std::pair<const char*, OpKind> kKinds[] = {
        {"load", OpKind::Load},       {"store", OpKind::Store}, {"rmw", OpKind::Rmw},       {"fence", OpKind::Fence},
        {"barrier", OpKind::Barrier}, {"mov", OpKind::Mov},     {"branch", OpKind::Branch}, {"label", OpKind::Label}};
    bool known = false;
    for (const auto& [name, kind] : kKinds)
      if (op == name) {
        ins.kind = kind;
        known = true;
      }
    if (!known) fail(p + "/op", fmt::format("unknown operation \"{}\"", op));
    if (j.contains("annotations")) ins.annots = read_annotations(j["annotations"], p + "/annotations");
    for (const auto& [i, tag] : items(j, p, "tags")) {
      if (!tag.is_string()) fail(fmt::format("{}/tags/{}", p, i), "expected a string");
      ins.annots.tags.push_back(tag.get<std::string>());
    }
    if (ins.kind == OpKind::Load || ins.kind == OpKind::Rmw || ins.kind == OpKind::Mov)
      ins.reg = get_string(j, p, "reg");
    if (ins.is_memory_access()) {
      if (!j.contains("address")) fail(p + "/address", "missing");
      const json& a = j["address"];
      require_object(a, p + "/address");
      if (!a.contains("base")) fail(p + "/address/base", "missing");
      ins.addr.base = read_expr(a["base"], p + "/address/base", 0);
      if (a.contains("offset")) ins.addr.offset = read_expr(a["offset"], p + "/address/offset", 0);
    }
    if (ins.kind == OpKind::Store || ins.kind == OpKind::Rmw || ins.kind == OpKind::Mov) {
      if (!j.contains("value")) fail(p + "/value", "missing");
      ins.value = read_expr(j["value"], p + "/value", 0);
    }
    if (j.contains("expected")) ins.expected = read_expr(j["expected"], p + "/expected", 0);
    if (j.contains("condition")) ins.condition = read_expr(j["condition"], p + "/condition", 0);
    if (ins.kind == OpKind::Branch || ins.kind == OpKind::Label) ins.label = get_string(j, p, "label");
    if (j.contains("line") && j["line"].is_number_unsigned()) ins.pos.at = {j["line"].get<std::uint32_t>(), 1};
    return ins;
  }

  Thread read_thread(const json& j, const std::string& p) {
    Thread t;
    require_object(j, p);
    if (!j.contains("id")) fail(p + "/id", "missing");
    t.id = get_index(j["id"], p + "/id");
    for (const auto& [i, ins] : items(j, p, "code"))
      t.code.push_back(read_instruction(ins, fmt::format("{}/code/{}", p, i)));
    return t;
  }

  int read_scope_node(ScopeTree& tree, const json& j, const std::string& p, int depth) {
    if (depth > max_nesting_) fail(p, "nested too deeply");
    ScopeNode n;
    auto level = scope_from_string(get_string(j, p, "level"));
    if (!level) fail(p + "/level", "expected system, agent, wg, wave or wi");
    n.level = *level;
    for (const auto& [i, c] : items(j, p, "children")) {
      std::string cp = fmt::format("{}/children/{}", p, i);
      if (c.is_number())
        n.children.push_back({true, get_index(c, cp)});
      else
        n.children.push_back({false, read_scope_node(tree, c, cp, depth + 1)});
    }
    return tree.add_node(std::move(n));
  }
};

}  // namespace

json to_json(const Test& test) {
  json j = {{"schema", kAstSchema}, {"arch", test.arch}, {"name", test.name}};
  if (!test.description.empty()) j["description"] = test.description;
  if (!test.metadata.empty()) {
    json m = json::array();
    for (const MetadataEntry& e : test.metadata) m.push_back({{"key", e.key}, {"value", e.value}});
    j["metadata"] = m;
  }
  json init = json::array();
  for (const InitEntry& e : test.init) {
    json entry = {{"name", e.name}, {"value", expr_to_json(e.value)}};
    if (e.thread) entry["thread"] = *e.thread;
    init.push_back(entry);
  }
  j["init"] = init;
  json threads = json::array();
  for (const Thread& t : test.threads) {
    json code = json::array();
    for (const Instruction& ins : t.code) code.push_back(instruction_to_json(ins));
    threads.push_back({{"id", t.id}, {"code", code}});
  }
  j["threads"] = threads;
  if (!test.scopes.is_default()) {
    json roots = json::array();
    for (int r : test.scopes.roots()) roots.push_back(scope_node_to_json(test.scopes, r));
    j["scopes"] = roots;
  }
  if (!test.regions.empty()) {
    json regions = json::array();
    for (const RegionEntry& r : test.regions)
      regions.push_back({{"location", r.location}, {"segment", to_string(r.segment)}});
    j["regions"] = regions;
  }
  if (!test.locations.empty()) {
    json l = json::array();
    for (const ObservedRef& r : test.locations) l.push_back(r.to_string());
    j["locations"] = l;
  }
  if (test.filter) j["filter"] = prop_to_json(*test.filter);
  j["condition"] = {{"quantifier", to_string(test.condition.quantifier)}, {"prop", prop_to_json(test.condition.prop)}};
  return j;
}

ParseResult test_from_json(const json& doc, const ParseLimits& limits) {
  ParseResult result;
  Test test;
  try {
    test = JsonReader(limits).read(doc);
  } catch (const JsonError& e) {
    result.diagnostics.error({}, fmt::format("{}: {}", e.pointer, e.message));
    return result;
  } catch (const json::exception& e) {
    result.diagnostics.error({}, fmt::format("malformed JSON test: {}", e.what()));
    return result;
  }
  if (check_test(test, result.diagnostics, limits)) result.test = std::move(test);
  return result;
}

}  // namespace hsalit::litmus
