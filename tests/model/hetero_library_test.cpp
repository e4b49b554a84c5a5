// The heterogeneous library (litmus/library-hetero/): MP, SB, LB, IRIW and ISA2 between a GPU
// agent and the host, in relaxed, release/acquire, fenced and wrong-scope (agent) variants.
// Every test has the verdict its sidecar argues from HSA SysArch 3, with both engines.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "differential.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/model/checker.hpp"

namespace hsalit::testing {
namespace {

// The sidecar's word for the verdict under `hsa` with `engine` (library_verdict).
std::string verdict(const litmus::Test& test, model::Engine engine) {
  model::CheckOptions o;
  o.engine = engine;
  const model::CheckResult r = model::check(test, o);
  return r.unknown() ? "unknown: " + *r.unknown_reason : library_verdict(r);
}

TEST(HeterogeneousLibrary, Verdicts) {
  const std::filesystem::path folder = std::filesystem::path(HSALIT_SOURCE_DIR) / "litmus" / "library-hetero";
  const auto expected = litmus::read_expected_verdicts(folder);
  const std::vector<std::filesystem::path> files = litmus::collect_litmus_files({folder});
  ASSERT_EQ(files.size(), 20u);
  ASSERT_EQ(files.size(), expected.size()) << "every test has an expected verdict, and only they";
  std::map<std::string, int> verdicts;
  for (const std::filesystem::path& file : files) {
    const std::string name = file.filename().string();
    SCOPED_TRACE(name);
    ASSERT_TRUE(expected.count(name));
    const litmus::ParseResult r = litmus::parse_litmus_file(file);
    ASSERT_TRUE(r.ok()) << r.diagnostics.render(file.string());
    // Some thread is in another agent than P0's: it runs on the host.
    bool on_host = false;
    for (int t = 1; t < static_cast<int>(r.test->threads.size()); ++t)
      on_host = on_host || !r.test->scopes.same_instance(0, t, litmus::Scope::Agent);
    EXPECT_TRUE(on_host);
    const std::string& want = expected.at(name).by_model.at("hsa");
    for (model::Engine engine : {model::Engine::Enum, model::Engine::Z3})
      EXPECT_EQ(verdict(*r.test, engine), want) << (engine == model::Engine::Enum ? "enum" : "z3");
    ++verdicts[want];
  }
  // Each variant has its verdict on every shape but the literal-reading fence cases (SB, IRIW).
  EXPECT_EQ(verdicts["racy"], 5);
  EXPECT_EQ(verdicts["allowed"], 7);
  EXPECT_EQ(verdicts["forbidden"], 8);
}

}  // namespace
}  // namespace hsalit::testing
