// The heterogeneous library (litmus/library-hetero/): MP, SB, LB, IRIW and ISA2 between a GPU
// agent and the host, in relaxed, release/acquire, fenced and wrong-scope (agent) variants.
// Every test has the verdict its sidecar argues from HSA SysArch 3, with both engines.
#include <gtest/gtest.h>

#include <filesystem>

#include "library_verdicts.hpp"

namespace hsalit::testing {
namespace {

TEST(HeterogeneousLibrary, Verdicts) {
  LibraryVerdicts found;
  walk_verdict_library(
      std::filesystem::path(HSALIT_SOURCE_DIR) / "litmus" / "library-hetero",
      [](const litmus::Test& test, const litmus::ExpectedVerdict& expected) {
        // Some thread is in another agent than P0's: it runs on the host.
        bool on_host = false;
        for (int t = 1; t < static_cast<int>(test.threads.size()); ++t)
          on_host = on_host || !test.scopes.same_instance(0, t, litmus::Scope::Agent);
        EXPECT_TRUE(on_host);
        const std::string& want = expected.by_model.at("hsa");
        for (model::Engine engine : {model::Engine::Enum, model::Engine::Z3})
          EXPECT_EQ(engine_verdict(test, engine), want) << (engine == model::Engine::Enum ? "enum" : "z3");
        return want;
      },
      found);
  EXPECT_EQ(found.tests, 20u);
  // Each variant has its verdict on every shape but the literal-reading fence cases (SB, IRIW).
  EXPECT_EQ(found.counts["racy"], 5);
  EXPECT_EQ(found.counts["allowed"], 7);
  EXPECT_EQ(found.counts["forbidden"], 8);
}

}  // namespace
}  // namespace hsalit::testing
