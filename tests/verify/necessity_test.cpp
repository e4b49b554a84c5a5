// Each mechanism shown necessary (docs/mappings.md): `verify-mapping --mutate` over the bundled
// library on a shipped table's own generation leaves exactly the survivors that
// docs/mechanisms/survivors.json lists and explains. A mutant that starts surviving (a test
// lost, a simulator rule changed) or that a test starts killing (the list is out of date) fails
// here, named.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hsalit/codegen/mapping.hpp"
#include "hsalit/codegen/target.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/runner/sim.hpp"
#include "hsalit/verify/mutation.hpp"
#include "hsalit/verify/verify.hpp"
#include "litmus_support.hpp"

namespace hsalit::verify {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource(HSALIT_SOURCE_DIR);

const json& survivors_document() {
  static const json doc = [] {
    // Read at test discovery too: a missing or unreadable file gives no configurations, and
    // NecessityList.EverySurvivorIsExplained fails.
    std::ifstream in(kSource / "docs" / "mechanisms" / "survivors.json");
    json parsed = json::parse(in, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object() || !parsed.contains("configurations"))
      return json{{"explanations", json::object()}, {"configurations", json::array()}};
    return parsed;
  }();
  return doc;
}

const std::vector<litmus::Test>& library() {
  static const std::vector<litmus::Test> tests = test_support::folder_tests("litmus/library");
  return tests;
}

// A configuration's name as docs/mappings.md writes it: `gfx942 tgsplit --assume l2-per-xcd --sc-orders`.
std::string configuration_name(const json& c) {
  std::string name = c.at("target").get<std::string>() + " " + c.at("flavour").get<std::string>();
  for (const json& a : c.at("assume")) name += " --assume " + a.get<std::string>();
  if (c.at("sc_orders").get<bool>()) name += " --sc-orders";
  return name;
}

using Mutants = std::set<std::pair<std::string, std::string>>;  // (row, change)

std::string listed(const Mutants& mutants) {
  std::string out;
  for (const auto& [row, change] : mutants) out += "\n  " + row + ": " + change;
  return out;
}

// The indices of the configurations the test runs (the file also records the slow ones, which
// `verify-mapping --mutate` checks by hand; docs/mappings.md says which).
std::vector<std::size_t> checked_configurations() {
  std::vector<std::size_t> out;
  const json& list = survivors_document().at("configurations");
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i].value("checked_by_test", false)) out.push_back(i);
  return out;
}

class Necessity : public testing::TestWithParam<std::size_t> {};

TEST_P(Necessity, SurvivorsAreTheExplainedOnes) {
  const json& c = survivors_document().at("configurations").at(GetParam());
  SCOPED_TRACE(configuration_name(c));
  const codegen::Target* target = codegen::TargetCatalog::builtin().find(c.at("target").get<std::string>());
  ASSERT_NE(target, nullptr);
  const codegen::MappingTable table = codegen::MappingTable::builtin(target->mapping);
  VerifyOptions options;
  options.target = target->name;
  options.compile.flavour = c.at("flavour").get<std::string>();
  options.compile.sc_acquire_release = c.at("sc_orders").get<bool>();
  options.jobs = 2;
  for (const json& a : c.at("assume")) ASSERT_TRUE(runner::apply_assumption(a.get<std::string>(), options.sim.hw));

  VerificationCache cache;
  const VerifyReport report = verify_tests(library(), table, options, cache);
  const MutationReport mutation = run_mutation(library(), {}, table, rows_used(report), options, cache);

  Mutants survived, expected;
  for (const MutantResult& m : mutation.mutants)
    if (!m.killed) survived.emplace(m.row, m.change);
  for (const json& s : c.at("survivors")) expected.emplace(s.at("row"), s.at("change"));
  Mutants new_survivors, now_killed;
  std::set_difference(survived.begin(), survived.end(), expected.begin(), expected.end(),
                      std::inserter(new_survivors, new_survivors.end()));
  std::set_difference(expected.begin(), expected.end(), survived.begin(), survived.end(),
                      std::inserter(now_killed, now_killed.end()));
  EXPECT_TRUE(new_survivors.empty()) << "survive but are not in docs/mechanisms/survivors.json (add a test that "
                                        "kills them, or explain them):"
                                     << listed(new_survivors);
  EXPECT_TRUE(now_killed.empty()) << "listed as survivors in docs/mechanisms/survivors.json but killed now "
                                     "(remove them from the list):"
                                  << listed(now_killed);
  EXPECT_EQ(mutation.killed(), c.at("killed").get<std::size_t>());
  EXPECT_EQ(mutation.mutants.size(), c.at("mutants").get<std::size_t>());
}

GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Necessity);
INSTANTIATE_TEST_SUITE_P(ShippedTables, Necessity, testing::ValuesIn(checked_configurations()),
                         [](const testing::TestParamInfo<std::size_t>& info) {
                           std::string name = configuration_name(survivors_document()["configurations"][info.param]);
                           std::replace_if(
                               name.begin(), name.end(),
                               [](char ch) { return !std::isalnum(static_cast<unsigned char>(ch)); }, '_');
                           return name;
                         });

// Every survivor the file lists, checked or not, has an explanation the file gives.
TEST(NecessityList, EverySurvivorIsExplained) {
  const json& doc = survivors_document();
  const json& explanations = doc.at("explanations");
  ASSERT_FALSE(doc.at("configurations").empty()) << "docs/mechanisms/survivors.json is missing or unreadable";
  EXPECT_FALSE(checked_configurations().empty());
  for (const json& c : doc.at("configurations"))
    for (const json& s : c.at("survivors"))
      EXPECT_TRUE(explanations.contains(s.at("why").get<std::string>()))
          << configuration_name(c) << ": " << s.at("row") << ": " << s.at("change") << " has explanation key "
          << s.at("why") << ", which docs/mechanisms/survivors.json does not define";
}

}  // namespace
}  // namespace hsalit::verify
