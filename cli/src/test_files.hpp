// Reading every test of the files and folders a command is given.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::cli {

// Every test of `inputs` (files and folders, `*.litmus`, sorted). Prints the diagnostics of
// each file that does not parse to stderr and then returns std::nullopt.
std::optional<std::vector<litmus::Test>> read_all_tests(const std::vector<std::string>& inputs);

}  // namespace hsalit::cli
