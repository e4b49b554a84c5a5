#include "hsalit/model/report.hpp"

#include <fmt/format.h>

#include "hsalit/litmus/printer.hpp"

namespace hsalit::model {

std::string format_outcome(const litmus::Test& test, const CheckResult& r, const Outcome& o) {
  Program program(test);
  std::string out;
  for (std::size_t i = 0; i < r.observed.size(); ++i)
    out += fmt::format("{}={}; ", r.observed[i].to_string(), program.describe_value(o.values[i]));
  if (!out.empty()) out.pop_back();
  return out;
}

std::string_view observation(const CheckResult& r) {
  if (r.unknown()) return "Unknown";
  if (r.positive == 0) return "Never";
  if (r.negative == 0) return "Always";
  return "Sometimes";
}

std::string format_herd(const litmus::Test& test, const CheckResult& r) {
  std::string out = fmt::format("Test {} {}\n", test.name, litmus::herd_kind(test.condition.quantifier));
  if (r.unknown()) {
    out += fmt::format("Unknown {}\n", *r.unknown_reason);
  } else {
    out += fmt::format("States {}\n", r.outcomes.size());
    // Outcomes differing only in filter-only references print once.
    std::string previous;
    for (const Outcome& o : r.outcomes) {
      std::string line = format_outcome(test, r, o);
      if (line != previous) out += line + "\n";
      previous = line;
    }
    out += fmt::format("{}\n", r.verdict == Verdict::Ok ? "Ok" : "No");
    // herd7 counts witnesses of the condition's kind: for ~exists, the states that do not
    // satisfy the proposition are the positive ones (herd/top_herd.ml, check_wit).
    const bool forbid = test.condition.quantifier == litmus::Quantifier::NotExists;
    out += fmt::format("Witnesses\nPositive: {} Negative: {}\n", forbid ? r.negative : r.positive,
                       forbid ? r.positive : r.negative);
    if (r.racy) out += "Flag undefined\n";
  }
  out += fmt::format("Condition {} ({})\n", litmus::to_string(test.condition.quantifier),
                     litmus::print_prop(test.condition.prop));
  out += fmt::format("Observation {} {} {} {}\n", test.name, observation(r), r.positive, r.negative);
  out += fmt::format("Time {} {:.2f}\n", test.name, r.time_ms / 1000.0);
  // herd7 repeats a test's Hash metadata, which diy7 writes, after the time.
  for (const litmus::MetadataEntry& m : test.metadata)
    if (m.key == "Hash") out += fmt::format("Hash={}\n", m.value);
  return out;
}

nlohmann::json check_to_json(const litmus::Test& test, const CheckResult& r, std::string_view file) {
  Program program(test);
  nlohmann::json j = {{"schema", kCheckSchema},        {"name", test.name},
                      {"file", std::string(file)},     {"model", to_string(r.variant)},
                      {"engine", to_string(r.engine)}, {"result", to_string(r.verdict)},
                      {"time_ms", r.time_ms}};
  if (r.unknown()) {
    j["unknown_reason"] = *r.unknown_reason;
    j["racy"] = nullptr;
    j["outcomes"] = nullptr;
  } else {
    j["racy"] = r.racy;
    nlohmann::json outcomes = nlohmann::json::array();
    for (const Outcome& o : r.outcomes) {
      nlohmann::json one = nlohmann::json::object();
      for (std::size_t i = 0; i < r.observed.size(); ++i) {
        Value v = o.values[i];
        if (auto loc = program.location_by_address(v))
          one[r.observed[i].to_string()] = program.locations()[static_cast<std::size_t>(*loc)].name;
        else
          one[r.observed[i].to_string()] = v;
      }
      if (outcomes.empty() || outcomes.back() != one) outcomes.push_back(one);
    }
    j["outcomes"] = outcomes;
  }
  if (r.race) {
    auto side = [&](int event, const std::string& text) {
      const StaticEvent& e = program.events()[static_cast<std::size_t>(event)];
      return nlohmann::json{{"thread", e.thread}, {"instruction", e.instruction}, {"text", text}};
    };
    j["race"] = {{"kind", to_string(r.race->kind)},
                 {"first", side(r.race->first_event, r.race->first)},
                 {"second", side(r.race->second_event, r.race->second)}};
  }
  j["condition"] = {{"kind", litmus::to_string(test.condition.quantifier)},
                    {"text", litmus::print_prop(test.condition.prop)},
                    {"positive", r.positive},
                    {"negative", r.negative}};
  j["observation"] = observation(r);
  return j;
}

}  // namespace hsalit::model
