#include "test_files.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/value_width.hpp"

namespace hsalit::cli {

std::optional<std::vector<litmus::Test>> read_all_tests(const std::vector<std::string>& inputs) {
  std::vector<std::filesystem::path> paths(inputs.begin(), inputs.end());
  std::vector<litmus::Test> tests;
  bool failed = false;
  for (const auto& file : litmus::collect_litmus_files(paths)) {
    litmus::ParseResult parsed = litmus::parse_litmus_file(file);
    if (!parsed.ok()) {
      fmt::print(stderr, "{}", parsed.diagnostics.render(file.string()));
      failed = true;
      continue;
    }
    if (!fits_backend_constants(file, *parsed.test)) {
      failed = true;
      continue;
    }
    tests.push_back(std::move(*parsed.test));
  }
  if (failed) return std::nullopt;
  return tests;
}

bool fits_backend_constants(const std::filesystem::path& file, const litmus::Test& test) {
  litmus::DiagnosticList diags;
  if (litmus::check_backend_constants(test, diags)) return true;
  fmt::print(stderr, "{}", diags.render(file.string()));
  return false;
}

}  // namespace hsalit::cli
