// hsalit installed like a tool (docs/install.md): `cmake --install` into a prefix that is then
// moved, run from `/`.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;

using test_support::Outcome;
using test_support::quote;
using test_support::read_file;

class Install : public test_support::CliFolder {
 protected:
  // Runs a shell command line from `/`.
  Outcome from_root(const std::string& command_line) { return run("/bin/sh", {"-c", "cd / && " + command_line}); }
};

// An installed prefix, moved after installing, finds its data beside its executable: the
// tables by name, the bundled library as campaign's default input. Without share/hsalit,
// campaign says where it looked.
TEST_F(Install, MovedPrefixFindsItsDataFromRoot) {
  const fs::path installed = dir_ / "installed", moved = dir_ / "moved";
  Outcome install = run(HSALIT_CMAKE, {"--install", HSALIT_BINARY_DIR, "--prefix", installed.string()});
  ASSERT_EQ(install.status, 0) << install.out << install.err;
  fs::rename(installed, moved);
  const fs::path hsalit = moved / "bin" / "hsalit";
  const fs::path library = moved / "share" / "hsalit" / "litmus" / "library";
  ASSERT_TRUE(fs::is_regular_file(library / "spec" / "HSA-3.13.1.2_MP-wg.litmus"));
  for (const char* data : {"mappings/gfx6-9.json", "targets.json", "schemas/hsalit-campaign-1.schema.json"})
    EXPECT_TRUE(fs::is_regular_file(moved / "share" / "hsalit" / data)) << data;
  EXPECT_TRUE(fs::is_regular_file(moved / "share" / "doc" / "hsalit" / "docs" / "install.md"));

  const std::string mp = (library / "spec" / "HSA-3.13.1.2_MP-wg.litmus").string();
  Outcome check = from_root(quote(hsalit.string()) + " check " + quote(mp));
  EXPECT_EQ(check.status, 0) << check.err;
  EXPECT_NE(check.out.find("Test HSA-3.13.1.2_MP-wg Allowed"), std::string::npos) << check.out;
  Outcome compile = from_root(quote(hsalit.string()) + " compile --table gfx6-9 --target gfx900 " + quote(mp));
  EXPECT_EQ(compile.status, 0) << compile.err;
  EXPECT_NE(compile.out.find("with mapping table gfx6-9"), std::string::npos) << compile.out;

  const fs::path out = dir_ / "campaign";
  Outcome campaign =
      from_root(quote(hsalit.string()) + " campaign --quiet --target gfx900 --out " + quote(out.string()));
  EXPECT_LE(campaign.status, 1) << campaign.err;  // 1: the shipped table's documented violations
  const nlohmann::json results = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_EQ(results.dump().find(library.string()) != std::string::npos, true) << "inputs not the moved library";
  std::size_t tests = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(library))
    tests += e.path().extension() == ".litmus";
  EXPECT_NE(campaign.out.find(fmt::format("campaign: {} tests on gfx900", tests)), std::string::npos) << campaign.out;

  fs::remove_all(moved / "share" / "hsalit");
  Outcome lost = from_root(quote(hsalit.string()) + " campaign --out " + quote((dir_ / "lost").string()));
  EXPECT_EQ(lost.status, 2);
  EXPECT_NE(lost.err.find("the bundled litmus library is missing (looked for " + library.string() + ")"),
            std::string::npos)
      << lost.err;
}

}  // namespace
