// Reading every test of the files and folders a command is given.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::cli {

// Every test of `inputs` (files and folders, `*.litmus`, sorted), for commands that compile
// them for the backends. Prints the diagnostics of each file that does not parse, or whose
// constants the backends cannot hold (fits_backend_constants), to stderr and then returns
// std::nullopt.
std::optional<std::vector<litmus::Test>> read_all_tests(const std::vector<std::string>& inputs);

// Whether every constant of `test` fits the backends' 32-bit values
// (litmus/value_width.hpp); prints `file:line:col: error: ...` for each one that does not.
bool fits_backend_constants(const std::filesystem::path& file, const litmus::Test& test);

}  // namespace hsalit::cli
