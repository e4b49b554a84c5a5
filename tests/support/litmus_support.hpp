// Test helpers shared by the test executables: litmus tests from text and from the bundled
// library or a folder (a test that cannot be read fails the calling test and yields an empty
// Test, or none), and
// random tests of a generated variation space.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"

namespace hsalit::test_support {

inline litmus::Test parse(std::string_view text) {
  litmus::ParseResult r = litmus::parse_litmus(text);
  if (!r.ok()) ADD_FAILURE() << r.diagnostics.render("inline.litmus");
  return r.ok() ? *r.test : litmus::Test{};
}

// A test of litmus/library by its path there, e.g. "canonical/MP+rlx-agent_diff-wg.litmus".
inline litmus::Test library_test(const std::string& relative) {
  litmus::ParseResult r = litmus::parse_litmus_file(std::string(HSALIT_SOURCE_DIR) + "/litmus/library/" + relative);
  if (!r.ok()) ADD_FAILURE() << relative << ": " << r.diagnostics.render(relative);
  return r.ok() ? *r.test : litmus::Test{};
}

// Every test of a folder of the source tree, e.g. "litmus/library" (its subfolders too), in
// the order collect_litmus_files gives; a test that cannot be read fails the calling test.
inline std::vector<litmus::Test> folder_tests(const std::string& relative) {
  std::vector<litmus::Test> tests;
  for (const auto& file : litmus::collect_litmus_files({std::filesystem::path(HSALIT_SOURCE_DIR) / relative})) {
    litmus::ParseResult r = litmus::parse_litmus_file(file);
    if (!r.ok()) ADD_FAILURE() << r.diagnostics.render(file.string());
    if (r.ok()) tests.push_back(*r.test);
  }
  return tests;
}

// A choice for every slot of `space`, each drawn uniformly by `rng`, in slot order.
inline std::vector<std::size_t> random_choice(const litmus::VariationSpace& space, std::mt19937& rng) {
  std::vector<std::size_t> choice;
  for (const litmus::Slot& s : space.slots())
    choice.push_back(std::uniform_int_distribution<std::size_t>(0, s.choices.size() - 1)(rng));
  return choice;
}

}  // namespace hsalit::test_support
