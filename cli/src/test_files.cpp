#include "test_files.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"

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
    tests.push_back(std::move(*parsed.test));
  }
  if (failed) return std::nullopt;
  return tests;
}

}  // namespace hsalit::cli
