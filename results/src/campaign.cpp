#include "hsalit/results/campaign.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

#include "hsalit/results/atomic_file.hpp"

namespace hsalit::results {

namespace {

using nlohmann::json;

template <typename Enum, std::size_t N>
std::optional<Enum> from_names(std::string_view text, const std::pair<Enum, std::string_view> (&names)[N]) {
  for (const auto& [value, name] : names)
    if (name == text) return value;
  return std::nullopt;
}

constexpr std::pair<VerdictClass, std::string_view> kVerdictNames[] = {{VerdictClass::Consistent, "consistent"},
                                                                       {VerdictClass::Violation, "violation"},
                                                                       {VerdictClass::Undefined, "undefined"},
                                                                       {VerdictClass::Unknown, "unknown"}};
constexpr std::pair<StageStatus, std::string_view> kStageNames[] = {
    {StageStatus::Ok, "ok"}, {StageStatus::Unknown, "unknown"}, {StageStatus::Skipped, "skipped"}};
constexpr std::pair<Judgement, std::string_view> kJudgementNames[] = {
    {Judgement::Allowed, "allowed"}, {Judgement::Forbidden, "forbidden"}, {Judgement::NotJudged, "not-judged"}};

// Reading with messages that say where: `results.json: tests[3].run.histogram[0]: ...`.
class Reader {
 public:
  Reader(const json& j, std::string where) : j_(j), where_(std::move(where)) {
    if (!j_.is_object()) fail("expected an object");
  }
  [[noreturn]] void fail(std::string_view what) const {
    throw ResultsError(where_.empty() ? std::string(what) : fmt::format("{}: {}", where_, what));
  }
  const json& at(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end()) fail(fmt::format("missing '{}'", key));
    return *it;
  }
  bool has(const char* key) const { return j_.contains(key) && !j_.at(key).is_null(); }
  std::string where(const char* key) const { return where_.empty() ? key : fmt::format("{}.{}", where_, key); }
  std::string str(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) fail(fmt::format("'{}' must be a string", key));
    return v.get<std::string>();
  }
  std::string str_or(const char* key, std::string fallback) const { return has(key) ? str(key) : fallback; }
  bool boolean(const char* key) const {
    const json& v = at(key);
    if (!v.is_boolean()) fail(fmt::format("'{}' must be true or false", key));
    return v.get<bool>();
  }
  std::uint64_t count(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      fail(fmt::format("'{}' must be a non-negative integer", key));
    return v.get<std::uint64_t>();
  }
  double number(const char* key) const {
    const json& v = at(key);
    if (!v.is_number()) fail(fmt::format("'{}' must be a number", key));
    return v.get<double>();
  }
  const json& array(const char* key) const {
    const json& v = at(key);
    if (!v.is_array()) fail(fmt::format("'{}' must be an array", key));
    return v;
  }
  std::vector<std::string> strings(const char* key) const {
    std::vector<std::string> out;
    for (const json& s : array(key)) {
      if (!s.is_string()) fail(fmt::format("'{}' must hold strings", key));
      out.push_back(s.get<std::string>());
    }
    return out;
  }
  template <typename Enum, std::size_t N>
  Enum enumerated(const char* key, const std::pair<Enum, std::string_view> (&names)[N]) const {
    std::string text = str(key);
    if (auto v = from_names(text, names)) return *v;
    fail(fmt::format("'{}' has an unknown value '{}'", key, text));
  }

 private:
  const json& j_;
  std::string where_;
};

json outcome_to_json(std::span<const std::string> refs, const Outcome& o) {
  json values = json::object();
  for (std::size_t i = 0; i < refs.size() && i < o.values.size(); ++i) {
    const std::string& v = o.values[i];
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec == std::errc() && end == v.data() + v.size())
      values[refs[i]] = n;
    else
      values[refs[i]] = v;  // a location's address
  }
  return values;
}

Outcome outcome_from_json(const json& j, std::span<const std::string> refs, const Reader& where) {
  if (!j.is_object()) where.fail("an outcome must be an object");
  Outcome o;
  for (const std::string& ref : refs) {
    auto it = j.find(ref);
    if (it == j.end()) where.fail(fmt::format("outcome without '{}'", ref));
    if (it->is_number_integer())
      o.values.push_back(std::to_string(it->get<std::int64_t>()));
    else if (it->is_string())
      o.values.push_back(it->get<std::string>());
    else
      where.fail(fmt::format("outcome value of '{}' must be an integer or a location name", ref));
  }
  if (j.size() != refs.size()) where.fail("outcome with references not in observed_refs");
  return o;
}

std::string stage_name(StageStatus s) { return std::string(to_string(s)); }

}  // namespace

std::string_view to_string(VerdictClass v) {
  for (const auto& [value, name] : kVerdictNames)
    if (value == v) return name;
  return "?";
}
std::optional<VerdictClass> verdict_class_from_string(std::string_view text) { return from_names(text, kVerdictNames); }
std::string_view to_string(StageStatus s) {
  for (const auto& [value, name] : kStageNames)
    if (value == s) return name;
  return "?";
}
std::optional<StageStatus> stage_status_from_string(std::string_view text) { return from_names(text, kStageNames); }
std::string_view to_string(Judgement j) {
  for (const auto& [value, name] : kJudgementNames)
    if (value == j) return name;
  return "?";
}
std::optional<Judgement> judgement_from_string(std::string_view text) { return from_names(text, kJudgementNames); }

std::string format_outcome(std::span<const std::string> refs, const Outcome& outcome) {
  std::string out;
  for (std::size_t i = 0; i < refs.size() && i < outcome.values.size(); ++i)
    out += fmt::format("{}{}={};", i ? " " : "", refs[i], outcome.values[i]);
  return out;
}

std::vector<const ObservedOutcome*> TestRecord::violations() const {
  std::vector<const ObservedOutcome*> out;
  for (const ObservedOutcome& o : run.histogram)
    if (o.judgement == Judgement::Forbidden) out.push_back(&o);
  return out;
}

json CampaignInfo::configuration_key() const {
  json j = to_json(*this);
  for (const char* k :
       {"inputs", "shard", "started", "finished", "wall_seconds", "mapping_file", "source_commit", "source_modified"})
    j.erase(k);
  return j;
}

std::size_t Summary::count(VerdictClass v) const {
  switch (v) {
    case VerdictClass::Consistent: return consistent;
    case VerdictClass::Violation: return violation;
    case VerdictClass::Undefined: return undefined;
    case VerdictClass::Unknown: return unknown;
  }
  return 0;
}

Summary CampaignResults::summary() const {
  Summary s;
  for (const TestRecord& t : tests) {
    ++s.tests;
    switch (t.verdict) {
      case VerdictClass::Consistent: ++s.consistent; break;
      case VerdictClass::Violation: ++s.violation; break;
      case VerdictClass::Undefined: ++s.undefined; break;
      case VerdictClass::Unknown: ++s.unknown; break;
    }
    if (t.judged())
      for (const AllowedOutcome& a : t.model.allowed) {
        ++s.allowed_outcomes;
        s.covered_outcomes += a.observed > 0;
      }
  }
  return s;
}

json to_json(const TestRecord& t) {
  std::span<const std::string> refs = t.observed_refs;
  json allowed = json::array();
  for (const AllowedOutcome& a : t.model.allowed)
    allowed.push_back({{"outcome", outcome_to_json(refs, a.outcome)},
                       {"text", format_outcome(refs, a.outcome)},
                       {"satisfies", a.satisfies},
                       {"observed", a.observed}});
  json histogram = json::array();
  for (const ObservedOutcome& o : t.run.histogram) {
    histogram.push_back({{"outcome", outcome_to_json(refs, o.outcome)},
                         {"text", format_outcome(refs, o.outcome)},
                         {"count", o.count},
                         {"satisfies", o.satisfies},
                         {"judgement", to_string(o.judgement)}});
    if (o.explanation) histogram.back()["explanation"] = *o.explanation;
    if (o.trace) {
      json& trace = histogram.back()["trace"];
      if (o.trace->missing.empty())
        trace = {{"placement", o.trace->placement}, {"steps", o.trace->steps}};
      else
        trace = {{"missing", o.trace->missing}};
    }
  }
  json threads = json::array();
  for (const ThreadCode& c : t.compile.threads) threads.push_back({{"thread", c.thread}, {"code", c.lines}});
  json record = {
      {"file", t.file},
      {"name", t.name},
      {"description", t.description},
      {"content_hash", t.content_hash},
      {"parse_error", t.parse_error},
      {"condition", t.condition},
      {"observed_refs", t.observed_refs},
      {"verdict", to_string(t.verdict)},
      {"reason", t.reason},
      {"model",
       {{"status", stage_name(t.model.status)},
        {"reason", t.model.reason},
        {"result", t.model.result},
        {"engine", t.model.engine},
        {"engine_reason", t.model.engine_reason},
        {"racy", t.model.racy},
        {"race", t.model.race},
        {"allowed", allowed},
        {"witness_dot", t.model.witness_dot},
        {"seconds", t.model.seconds}}},
      {"compile",
       {{"status", stage_name(t.compile.status)},
        {"reason", t.compile.reason},
        {"threads", threads},
        {"seconds", t.compile.seconds}}},
      {"run",
       {{"status", stage_name(t.run.status)},
        {"reason", t.run.reason},
        {"histogram", histogram},
        {"states", t.run.states},
        {"iterations", t.run.iterations},
        {"seconds", t.run.seconds}}},
      {"seconds", t.seconds},
  };
  // A violation's story; older readers ignore what they do not know.
  if (t.run.overlapped) record["run"]["overlapped"] = *t.run.overlapped;
  if (t.run.instances_per_launch) record["run"]["instances_per_launch"] = *t.run.instances_per_launch;
  if (!t.source.empty()) record["source"] = t.source;
  if (!t.findings.empty()) {
    json findings = json::array();
    for (const FindingRef& f : t.findings)
      findings.push_back({{"id", f.id}, {"title", f.title}, {"doc", f.doc}, {"section", f.section}});
    record["findings"] = std::move(findings);
  }
  return record;
}

TestRecord test_record_from_json(const json& j, std::string_view where) {
  Reader r(j, std::string(where));
  TestRecord t;
  t.file = r.str("file");
  t.name = r.str("name");
  t.description = r.str_or("description", "");
  t.content_hash = r.str("content_hash");
  t.parse_error = r.str_or("parse_error", "");
  t.condition = r.str_or("condition", "");
  t.observed_refs = r.strings("observed_refs");
  // An outcome is an object keyed by these: a reference listed twice cannot be written back.
  for (auto ref = t.observed_refs.begin(); ref != t.observed_refs.end(); ++ref)
    if (std::find(t.observed_refs.begin(), ref, *ref) != ref)
      r.fail(fmt::format("observed_refs lists '{}' twice", *ref));
  t.verdict = r.enumerated("verdict", kVerdictNames);
  t.reason = r.str_or("reason", "");
  t.seconds = r.number("seconds");
  std::span<const std::string> refs = t.observed_refs;

  Reader m(r.at("model"), r.where("model"));
  t.model.status = m.enumerated("status", kStageNames);
  t.model.reason = m.str_or("reason", "");
  t.model.result = m.str_or("result", "");
  t.model.engine = m.str_or("engine", "");
  t.model.engine_reason = m.str_or("engine_reason", "");
  t.model.racy = m.boolean("racy");
  t.model.race = m.str_or("race", "");
  t.model.witness_dot = m.str_or("witness_dot", "");
  t.model.seconds = m.number("seconds");
  std::size_t i = 0;
  for (const json& a : m.array("allowed")) {
    Reader ar(a, fmt::format("{}.allowed[{}]", r.where("model"), i++));
    t.model.allowed.push_back(
        {outcome_from_json(ar.at("outcome"), refs, ar), ar.boolean("satisfies"), ar.count("observed")});
  }

  Reader c(r.at("compile"), r.where("compile"));
  t.compile.status = c.enumerated("status", kStageNames);
  t.compile.reason = c.str_or("reason", "");
  t.compile.seconds = c.number("seconds");
  i = 0;
  for (const json& th : c.array("threads")) {
    Reader tr(th, fmt::format("{}.threads[{}]", r.where("compile"), i++));
    const json& thread = tr.at("thread");
    if (!thread.is_number_integer()) tr.fail("'thread' must be an integer");
    t.compile.threads.push_back({thread.get<int>(), tr.strings("code")});
  }

  Reader u(r.at("run"), r.where("run"));
  t.run.status = u.enumerated("status", kStageNames);
  t.run.reason = u.str_or("reason", "");
  t.run.states = u.count("states");
  t.run.iterations = u.count("iterations");
  if (r.at("run").contains("overlapped")) t.run.overlapped = u.count("overlapped");
  if (r.at("run").contains("instances_per_launch")) t.run.instances_per_launch = u.count("instances_per_launch");
  t.run.seconds = u.number("seconds");
  i = 0;
  for (const json& h : u.array("histogram")) {
    Reader hr(h, fmt::format("{}.histogram[{}]", r.where("run"), i++));
    t.run.histogram.push_back({outcome_from_json(hr.at("outcome"), refs, hr), hr.count("count"),
                               hr.boolean("satisfies"), hr.enumerated("judgement", kJudgementNames), std::nullopt});
    if (h.contains("explanation")) {
      const json& e = h.at("explanation");
      if (!e.is_object() || !e.contains("text") || !e.at("text").is_string())
        hr.fail("'explanation' must be an object with a string 'text'");
      t.run.histogram.back().explanation = e;
    }
    if (h.contains("trace")) {
      Reader tr(h.at("trace"), hr.where("trace"));
      OutcomeTrace trace;
      trace.missing = tr.str_or("missing", "");
      if (trace.missing.empty()) {
        trace.placement = tr.str("placement");
        trace.steps = tr.strings("steps");
      }
      t.run.histogram.back().trace = std::move(trace);
    }
  }
  t.source = r.str_or("source", "");
  if (r.has("findings")) {
    i = 0;
    for (const json& f : r.array("findings")) {
      Reader fr(f, fmt::format("{}[{}]", r.where("findings"), i++));
      t.findings.push_back({fr.str("id"), fr.str("title"), fr.str_or("doc", ""), fr.str_or("section", "")});
    }
  }
  return t;
}

json to_json(const CampaignInfo& info) {
  json j = {{"hsalit_version", info.hsalit_version},
            {"source_commit", info.source_commit},
            {"source_modified", info.source_modified},
            {"target", info.target},
            {"mapping", info.mapping},
            {"mapping_file", info.mapping_file},
            {"mapping_hash", info.mapping_hash},
            {"flavour", info.flavour},
            {"backend", info.backend},
            {"harness", info.harness},
            {"model", info.model},
            {"engine", info.engine},
            {"sc_orders", info.sc_orders},
            {"assumptions", info.assumptions},
            {"mode", info.exhaustive ? "exhaustive" : "random"},
            {"iterations", info.iterations},
            {"seed", info.seed},
            {"time_limit_seconds", info.time_limit_seconds},
            {"inputs", info.inputs},
            {"shard", nullptr},
            {"started", info.started},
            {"finished", info.finished},
            {"wall_seconds", info.wall_seconds}};
  if (info.shard) j["shard"] = {{"index", info.shard->index}, {"count", info.shard->count}};
  return j;
}

CampaignInfo campaign_info_from_json(const json& j, std::string_view where) {
  Reader r(j, std::string(where));
  CampaignInfo info;
  info.hsalit_version = r.str("hsalit_version");
  info.source_commit = r.str_or("source_commit", "unknown");
  info.source_modified = r.has("source_modified") && r.boolean("source_modified");
  info.target = r.str("target");
  info.mapping = r.str("mapping");
  info.mapping_file = r.str_or("mapping_file", "");
  info.mapping_hash = r.str("mapping_hash");
  info.flavour = r.str("flavour");
  info.backend = r.str("backend");
  info.harness = r.str_or("harness", "");
  info.model = r.str("model");
  info.engine = r.str("engine");
  // Absent from files written before they were recorded: the defaults those runs had.
  info.sc_orders = r.has("sc_orders") && r.boolean("sc_orders");
  if (r.has("assumptions")) info.assumptions = name_set(r.strings("assumptions"));
  std::string mode = r.str("mode");
  if (mode != "exhaustive" && mode != "random")
    r.fail(fmt::format("'mode' must be exhaustive or random, not '{}'", mode));
  info.exhaustive = mode == "exhaustive";
  info.iterations = r.count("iterations");
  info.seed = r.count("seed");
  info.time_limit_seconds = r.number("time_limit_seconds");
  info.inputs = r.strings("inputs");
  if (r.has("shard")) {
    Reader s(r.at("shard"), r.where("shard"));
    info.shard = Shard{static_cast<unsigned>(s.count("index")), static_cast<unsigned>(s.count("count"))};
    if (info.shard->count == 0 || info.shard->index >= info.shard->count) s.fail("index must be below count");
  }
  info.started = r.str_or("started", "");
  info.finished = r.str_or("finished", "");
  info.wall_seconds = r.has("wall_seconds") ? r.number("wall_seconds") : 0;
  return info;
}

std::string Verification::verdict() const {
  if (counterexamples > 0) return fmt::format("{} counterexample{}", counterexamples, counterexamples == 1 ? "" : "s");
  if (unsupported + unknown > 0)
    return fmt::format("unknown: {} of {} tests not judged ({} unsupported, {} unknown)", unsupported + unknown, tests,
                       unsupported, unknown);
  return "sound up to the bound";
}

json to_json(const Verification& v) {
  return {{"bound", v.bound},
          {"verdict", v.verdict()},
          {"tests", v.tests},
          {"sound", v.sound},
          {"counterexamples", v.counterexamples},
          {"racy", v.racy},
          {"unsupported", v.unsupported},
          {"unknown", v.unknown},
          {"rows_used", v.rows_used},
          {"statistics", v.statistics},
          {"cpu_seconds", v.cpu_seconds}};
}

Verification verification_from_json(const json& j, std::string_view where) {
  Reader r(j, std::string(where));
  Verification v;
  v.bound = r.str("bound");
  v.tests = r.count("tests");
  v.sound = r.count("sound");
  v.counterexamples = r.count("counterexamples");
  v.racy = r.count("racy");
  v.unsupported = r.count("unsupported");
  v.unknown = r.count("unknown");
  if (v.sound + v.counterexamples + v.racy + v.unsupported + v.unknown != v.tests)
    r.fail("'tests' must be the sum of sound, counterexamples, racy, unsupported and unknown");
  v.rows_used = name_set(r.strings("rows_used"));
  Reader statistics(r.at("statistics"), r.where("statistics"));
  for (const auto& [name, value] : r.at("statistics").items()) v.statistics[name] = statistics.count(name.c_str());
  v.cpu_seconds = r.number("cpu_seconds");
  return v;
}

json to_json(const Summary& s) {
  return {{"tests", s.tests},
          {"consistent", s.consistent},
          {"violation", s.violation},
          {"undefined", s.undefined},
          {"unknown", s.unknown},
          {"allowed_outcomes", s.allowed_outcomes},
          {"covered_outcomes", s.covered_outcomes}};
}

json to_json(const CampaignResults& results) {
  json tests = json::array();
  for (const TestRecord& t : results.tests) tests.push_back(to_json(t));
  json j = {{"schema", kCampaignSchema}, {"campaign", to_json(results.info)}, {"summary", to_json(results.summary())}};
  if (results.verification) j["verification"] = to_json(*results.verification);
  j["tests"] = tests;
  return j;
}

CampaignResults campaign_results_from_json(const json& j, std::string_view where) {
  Reader r(j, std::string(where));
  std::string schema = r.str("schema");
  if (schema != kCampaignSchema) r.fail(fmt::format("schema is '{}', this hsalit reads '{}'", schema, kCampaignSchema));
  CampaignResults results;
  results.info = campaign_info_from_json(r.at("campaign"), r.where("campaign"));
  if (r.has("verification"))
    results.verification = verification_from_json(r.at("verification"), r.where("verification"));
  std::size_t i = 0;
  // A test listed twice would be counted twice by every summary and report: refused.
  std::map<std::pair<std::string, std::string>, std::size_t> listed;  // file and content hash -> index
  for (const json& t : r.array("tests")) {
    const std::string at = fmt::format("{}tests[{}]", where.empty() ? "" : std::string(where) + ".", i);
    TestRecord record = test_record_from_json(t, at);
    auto [first, inserted] = listed.emplace(std::pair(record.file, record.content_hash), i);
    if (!inserted)
      throw ResultsError(fmt::format("{}: test '{}' is listed twice (also tests[{}])", at, record.file, first->second));
    results.tests.push_back(std::move(record));
    ++i;
  }
  return results;
}

CampaignResults read_results(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ResultsError(fmt::format("{}: error: cannot read", file.string()));
  std::stringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::exception& e) {  // a syntax error, or a number past a double's range
    throw ResultsError(fmt::format("{}: error: not JSON: {}", file.string(), e.what()));
  }
  try {
    return campaign_results_from_json(j, "");
  } catch (const ResultsError& e) {
    throw ResultsError(fmt::format("{}: error: {}", file.string(), e.what()));
  } catch (const json::exception& e) {
    throw ResultsError(fmt::format("{}: error: {}", file.string(), e.what()));
  }
}

void write_results(const std::filesystem::path& file, const CampaignResults& results) {
  write_file_atomically(file, to_json(results).dump(1) + "\n");
}

std::vector<std::string> name_set(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::string content_hash(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace hsalit::results
