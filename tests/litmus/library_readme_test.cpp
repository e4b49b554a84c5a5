// litmus/library/README.md against the files it describes: the number of tests in each folder,
// every link, every test it names, and the list of tests whose condition is not `exists`.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "hsalit/litmus/parser.hpp"

namespace hsalit::litmus {
namespace {

namespace fs = std::filesystem;

const fs::path kLibrary = fs::path(HSALIT_SOURCE_DIR) / "litmus" / "library";

std::string readme() {
  std::ifstream in(kLibrary / "README.md", std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The .litmus files of each folder of the library.
std::map<std::string, std::set<std::string>> library_files() {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& folder : fs::directory_iterator(kLibrary)) {
    if (!folder.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(folder.path()))
      if (f.path().extension() == ".litmus") out[folder.path().filename().string()].insert(f.path().stem().string());
  }
  return out;
}

TEST(LibraryReadme, CountsAndNamesMatchTheFiles) {
  const std::string text = readme();
  ASSERT_FALSE(text.empty());
  const auto files = library_files();
  ASSERT_FALSE(files.empty());

  // One table row per folder, `| `NAME/` | ... (N tests) ...`, N the number of its tests.
  std::set<std::string> described;
  const std::regex row(R"(\n\| `([a-z]+)/` \|[^\n]*?\((\d+) tests\))");
  for (std::sregex_iterator it(text.begin(), text.end(), row), end; it != end; ++it) {
    const std::string folder = (*it)[1];
    described.insert(folder);
    ASSERT_TRUE(files.count(folder)) << folder << "/ is described but does not exist";
    EXPECT_EQ(std::stoul((*it)[2]), files.at(folder).size()) << folder << "/";
  }
  for (const auto& [folder, names] : files) EXPECT_TRUE(described.count(folder)) << folder << "/ has no row";

  // Every relative link leads to a file, and every test named `FOLDER/NAME` exists.
  const std::regex link(R"(\]\(([^)#]+)(#[^)]*)?\))");
  for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it)
    EXPECT_TRUE(fs::exists(kLibrary / std::string((*it)[1]))) << "broken link " << (*it)[1];
  const std::regex named("`([a-z]+)/([^`/]+)`");
  for (std::sregex_iterator it(text.begin(), text.end(), named), end; it != end; ++it)
    if (files.count((*it)[1])) {
      EXPECT_TRUE(files.at((*it)[1]).count((*it)[2])) << "no test " << (*it)[1] << "/" << (*it)[2];
    }

  // The tests whose condition is `~exists` or `forall` are the ones the conventions list.
  const std::size_t start = text.find("- Conditions are `exists` everywhere except");
  ASSERT_NE(start, std::string::npos);
  const std::string paragraph = text.substr(start, text.find("\n- ", start + 1) - start);
  std::set<std::string> listed, actual;
  for (std::sregex_iterator it(paragraph.begin(), paragraph.end(), named), end; it != end; ++it)
    listed.insert(std::string((*it)[1]) + "/" + std::string((*it)[2]));
  for (const auto& [folder, names] : files)
    for (const std::string& name : names) {
      ParseResult r = parse_litmus_file(kLibrary / folder / (name + ".litmus"));
      ASSERT_TRUE(r.ok()) << folder << "/" << name;
      if (r.test->condition.quantifier != Quantifier::Exists) actual.insert(folder + "/" + name);
    }
  EXPECT_EQ(listed, actual);
}

}  // namespace
}  // namespace hsalit::litmus
