// Compiling litmus tests in the test drivers without swallowing errors: a table may refuse a
// test only for a reason the documentation states (a shipped table's known gap, no LDS in the
// tgsplit flavour); such a test is dropped and counted per reason, and any other compile
// failure fails the calling test with the test's name and the compiler's message.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/ast.hpp"

namespace hsalit::test_support {

// The documented reason for which `table` may refuse a test with `error`, or nullopt where
// the refusal is a defect.
inline std::optional<std::string> stated_refusal(const std::string& table, const std::string& error) {
  // The GFX12 table of AMDGPUUsage lists "store atomic release workgroup" for global only
  // (docs/mappings-sources.md).
  if (table == "gfx12" && error.find("has no row for store atomic release workgroup generic ") != std::string::npos)
    return "gfx12 has no generic work-group release store";
  // tgsplit allocates no LDS (AMDGPUUsage, Memory Model GFX90A and GFX942): tests with group
  // locations are refused in that flavour.
  if (error.find("the tgsplit flavour allocates no LDS") != std::string::npos) return "tgsplit allocates no LDS";
  return std::nullopt;
}

// Compiles tests, counting those refused for a stated reason; a test refused for any other
// reason is a failure of the calling test.
class Compiler {
 public:
  std::optional<codegen::CompiledTest> compile(const litmus::Test& test, const codegen::Target& target,
                                               const codegen::TargetCatalog& catalog,
                                               const codegen::MappingTable& table,
                                               const codegen::CompileOptions& options = {}) {
    try {
      codegen::CompiledTest compiled = codegen::compile(test, target, catalog, table, options);
      ++compiled_;
      return compiled;
    } catch (const codegen::CompileError& e) {
      if (const std::optional<std::string> reason = stated_refusal(table.name(), e.what())) {
        ++dropped_[*reason];
        return std::nullopt;
      }
      ADD_FAILURE() << test.name << " (target " << target.name << ", table " << table.name() << ", flavour "
                    << options.flavour << "): " << e.what();
      return std::nullopt;
    }
  }

  std::size_t compiled() const { return compiled_; }
  // How many tests were refused for `reason` (as stated_refusal names it), and for any reason.
  std::size_t dropped(const std::string& reason) const {
    const auto it = dropped_.find(reason);
    return it == dropped_.end() ? 0 : it->second;
  }
  std::size_t dropped() const {
    std::size_t all = 0;
    for (const auto& [reason, count] : dropped_) all += count;
    return all;
  }

 private:
  std::size_t compiled_ = 0;
  std::map<std::string, std::size_t> dropped_;
};

}  // namespace hsalit::test_support
