#include "hsalit/results/findings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>

namespace hsalit::results {

namespace {

using nlohmann::json;

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// Any of `allowed` (empty: anything).
bool one_of(const std::vector<std::string>& allowed, std::string_view value) {
  return allowed.empty() || contains(allowed, value);
}

[[noreturn]] void fail(std::string_view where, std::string_view what) {
  throw ResultsError(fmt::format("{}: error: {}", where, what));
}

std::string text(const json& j, const char* key, std::string_view where, bool required) {
  if (!j.contains(key)) {
    if (required) fail(where, fmt::format("missing '{}'", key));
    return {};
  }
  if (!j.at(key).is_string()) fail(where, fmt::format("'{}' must be a string", key));
  return j.at(key).get<std::string>();
}

std::vector<std::string> names(const json& j, const char* key, std::string_view where) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  const json& list = j.at(key);
  if (!list.is_array()) fail(where, fmt::format("'{}' must be an array of strings", key));
  for (const json& name : list) {
    if (!name.is_string()) fail(where, fmt::format("'{}' must be an array of strings", key));
    out.push_back(name.get<std::string>());
  }
  return out;
}

FindingCondition condition_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) fail(where, "expected an object");
  for (const auto& [key, value] : j.items())
    if (key != "tests" && key != "tables" && key != "flavours" && key != "backends" && key != "targets" &&
        key != "sc_orders" && key != "assumptions")
      fail(where, fmt::format("unknown key '{}'", key));
  FindingCondition c;
  c.tests = names(j, "tests", where);
  if (c.tests.empty()) fail(where, "'tests' must name at least one test");
  c.tables = names(j, "tables", where);
  c.flavours = names(j, "flavours", where);
  c.backends = names(j, "backends", where);
  c.targets = names(j, "targets", where);
  c.assumptions = names(j, "assumptions", where);
  if (j.contains("sc_orders")) {
    if (!j.at("sc_orders").is_boolean()) fail(where, "'sc_orders' must be true or false");
    c.sc_orders = j.at("sc_orders").get<bool>();
  }
  return c;
}

}  // namespace

bool FindingCondition::matches(const CampaignInfo& info, std::string_view test) const {
  if (!contains(tests, test) || !one_of(tables, info.mapping) || !one_of(flavours, info.flavour) ||
      !one_of(backends, info.backend) || !one_of(targets, info.target))
    return false;
  if (sc_orders && *sc_orders != info.sc_orders) return false;
  return std::all_of(assumptions.begin(), assumptions.end(),
                     [&](const std::string& a) { return contains(info.assumptions, a); });
}

std::vector<Finding> findings_from_json(const json& j, std::string_view where) {
  if (!j.is_object() || !j.contains("schema") || j.at("schema") != kFindingsSchema)
    fail(where, fmt::format("not a findings file (schema '{}' expected)", kFindingsSchema));
  if (!j.contains("findings") || !j.at("findings").is_array()) fail(where, "'findings' must be an array");
  std::vector<Finding> out;
  for (std::size_t i = 0; i < j.at("findings").size(); ++i) {
    const json& f = j.at("findings")[i];
    const std::string at = fmt::format("{}: findings[{}]", where, i);
    if (!f.is_object()) fail(at, "expected an object");
    Finding finding;
    finding.ref = {text(f, "id", at, true), text(f, "title", at, true), text(f, "doc", at, false),
                   text(f, "section", at, false)};
    if (finding.ref.id.empty()) fail(at, "'id' must not be empty");
    for (const Finding& earlier : out)
      if (earlier.ref.id == finding.ref.id) fail(at, fmt::format("id '{}' is given twice", finding.ref.id));
    if (!f.contains("exhibited_by") || !f.at("exhibited_by").is_array()) fail(at, "'exhibited_by' must be an array");
    for (std::size_t k = 0; k < f.at("exhibited_by").size(); ++k)
      finding.exhibited_by.push_back(
          condition_from_json(f.at("exhibited_by")[k], fmt::format("{}.exhibited_by[{}]", at, k)));
    out.push_back(std::move(finding));
  }
  return out;
}

std::vector<Finding> read_findings(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ResultsError(fmt::format("{}: error: cannot read the findings file", file.string()));
  json j = json::parse(in, nullptr, false);
  if (j.is_discarded()) throw ResultsError(fmt::format("{}: error: not JSON", file.string()));
  return findings_from_json(j, file.string());
}

std::vector<FindingRef> matching_findings(std::span<const Finding> findings, const CampaignInfo& info,
                                          const TestRecord& record) {
  std::vector<FindingRef> out;
  if (record.verdict != VerdictClass::Violation) return out;
  for (const Finding& f : findings)
    if (std::any_of(f.exhibited_by.begin(), f.exhibited_by.end(),
                    [&](const FindingCondition& c) { return c.matches(info, record.name); }))
      out.push_back(f.ref);
  return out;
}

}  // namespace hsalit::results
