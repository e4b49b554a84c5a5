// A verdict library (a folder of litmus files with the expected.json sidecar that argues each
// one's verdict) walked once for the model tests that check one: hetero_library_test.cpp,
// opencl_model_test.cpp.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "differential.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/model/checker.hpp"

namespace hsalit::testing {

// The sidecar's word for `test` under `variant` with `engine` (library_verdict), or
// `unknown: why`.
inline std::string engine_verdict(const litmus::Test& test, model::Engine engine,
                                  model::ModelVariant variant = model::ModelVariant::Hsa) {
  model::CheckOptions o;
  o.variant = variant;
  o.engine = engine;
  const model::CheckResult r = model::check(test, o);
  return r.unknown() ? "unknown: " + *r.unknown_reason : library_verdict(r);
}

// What walking a library found: its tests, and how many the check gave each verdict.
struct LibraryVerdicts {
  std::size_t tests = 0;
  std::map<std::string, int> counts;
};

// Every test of the library in `folder`: the files and the sidecar's entries name the same
// tests, each file parses, and `check(test, expected)` runs under a trace of the file's name
// and returns the verdict it counts.
inline void walk_verdict_library(
    const std::filesystem::path& folder,
    const std::function<std::string(const litmus::Test&, const litmus::ExpectedVerdict&)>& check,
    LibraryVerdicts& out) {
  const auto expected = litmus::read_expected_verdicts(folder);
  const std::vector<std::filesystem::path> files = litmus::collect_litmus_files({folder});
  out.tests = files.size();
  ASSERT_EQ(files.size(), expected.size()) << "every test has an expected verdict, and only they";
  for (const std::filesystem::path& file : files) {
    const std::string name = file.filename().string();
    SCOPED_TRACE(name);
    ASSERT_TRUE(expected.count(name));
    const litmus::ParseResult r = litmus::parse_litmus_file(file);
    ASSERT_TRUE(r.ok()) << r.diagnostics.render(file.string());
    ++out.counts[check(*r.test, expected.at(name))];
  }
}

}  // namespace hsalit::testing
