// The C forms of library tests (litmus/library-c/, docs/litmus-c.md) against the LISA tests
// they were written from: under every model variant and with both engines, each C test has
// the same outcomes, races and verdict as its LISA original, and the verdict its
// expected.json gives.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "differential.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/model/checker.hpp"

namespace hsalit::testing {
namespace {

namespace fs = std::filesystem;

const fs::path kSource = fs::path(HSALIT_SOURCE_DIR);
const fs::path kCLibrary = kSource / "litmus" / "library-c";

litmus::Test read(const fs::path& path) {
  litmus::ParseResult r = litmus::parse_litmus_file(path);
  if (!r.ok()) ADD_FAILURE() << r.diagnostics.render(path.string());
  return r.ok() ? *r.test : litmus::Test{};
}

TEST(CLibraryVerdicts, EachCTestBehavesAsItsLisaOriginal) {
  const auto expected = litmus::read_expected_verdicts(kCLibrary);
  std::vector<fs::path> files = litmus::collect_litmus_files({kCLibrary});
  ASSERT_GE(files.size(), 6u);
  ASSERT_EQ(files.size(), expected.size()) << "every C test has an expected verdict, and only they";
  for (const fs::path& c_file : files) {
    const std::string name = c_file.filename().string();
    SCOPED_TRACE(name);
    ASSERT_TRUE(expected.count(name));
    const litmus::ExpectedVerdict& e = expected.at(name);
    ASSERT_TRUE(e.source.starts_with("litmus/library/")) << e.source;
    const litmus::Test c = read(c_file);
    const litmus::Test lisa = read(kSource / e.source);
    ASSERT_EQ(lisa.name, c.name) << "a C test keeps its original's name";
    for (model::ModelVariant variant :
         {model::ModelVariant::Hsa, model::ModelVariant::HrfIndirect, model::ModelVariant::HrfDirect}) {
      for (model::Engine engine : {model::Engine::Enum, model::Engine::Z3}) {
        SCOPED_TRACE(std::string(model::to_string(variant)) + (engine == model::Engine::Enum ? " enum" : " z3"));
        model::CheckOptions o;
        o.variant = variant;
        o.engine = engine;
        const model::CheckResult from_c = model::check(c, o);
        const model::CheckResult from_lisa = model::check(lisa, o);
        ASSERT_FALSE(from_c.unknown() || from_lisa.unknown());
        EXPECT_EQ(from_c.racy, from_lisa.racy);
        EXPECT_EQ(from_c.outcomes, from_lisa.outcomes);
        EXPECT_EQ(from_c.verdict, from_lisa.verdict);
        if (variant == model::ModelVariant::Hsa) {
          EXPECT_EQ(library_verdict(from_c), e.by_model.at("hsa"));
        }
      }
    }
  }
}

}  // namespace
}  // namespace hsalit::testing
