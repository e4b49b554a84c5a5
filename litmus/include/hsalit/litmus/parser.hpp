// Reading litmus tests: text (LISA with HSA annotations) into a checked `Test`.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string_view>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/source.hpp"

namespace hsalit::litmus {

// Bounds that keep hostile or accidental input from exhausting time or memory.
struct ParseLimits {
  std::size_t max_file_bytes = 1u << 20;
  int max_threads = 64;
  int max_instructions_per_thread = 1024;
  int max_nesting = 64;  // parentheses in operations, conditions and scope trees
};

struct ParseResult {
  std::optional<Test> test;  // present iff there is no error
  DiagnosticList diagnostics;
  bool ok() const { return test.has_value(); }
};

// Parses and checks one test. Syntax errors stop at the first one; semantic errors are
// all reported. Never throws on bad input.
ParseResult parse_litmus(std::string_view text, const ParseLimits& limits = {});

// Reads the file (refusing one larger than the limit) and parses it.
ParseResult parse_litmus_file(const std::filesystem::path& path, const ParseLimits& limits = {});

}  // namespace hsalit::litmus
