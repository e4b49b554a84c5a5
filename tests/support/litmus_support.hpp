// Test helpers shared by the test executables: litmus tests from text and from the bundled
// library. A test that cannot be read fails the calling test and yields an empty Test.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

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

}  // namespace hsalit::test_support
