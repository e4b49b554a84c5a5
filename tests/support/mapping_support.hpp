// Test helpers shared by the test executables: the shipped gfx6-9 mapping table, optionally
// edited into a deliberately broken one.
#pragma once

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/mapping.hpp"
#include "hsalit/codegen/target.hpp"
#include "hsalit/litmus/ast.hpp"

namespace hsalit::test_support {

// The shipped gfx6-9 table's document, as a user edits it.
inline nlohmann::json gfx69_document() {
  std::ifstream in(std::string(HSALIT_SOURCE_DIR) + "/codegen/mappings/gfx6-9.json");
  return nlohmann::json::parse(in);
}

// The shipped gfx6-9 table, changed by `edit` (a deliberately broken mapping).
inline codegen::MappingTable gfx69(const std::function<void(nlohmann::json&)>& edit = {}) {
  nlohmann::json doc = gfx69_document();
  if (edit) edit(doc);
  return codegen::MappingTable::from_json(doc, "gfx6-9 (edited)");
}

// The row `id` of a table document, for `gfx69`'s edits.
inline nlohmann::json& row(nlohmann::json& doc, const std::string& id) {
  for (nlohmann::json& r : doc["rows"])
    if (r["id"] == id) return r;
  throw std::runtime_error("no row " + id);
}

// `test` compiled for `target` with the target's shipped table.
inline codegen::CompiledTest compile_for(const litmus::Test& test, const std::string& target) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target& t = catalog.get(target);
  return codegen::compile(test, t, catalog, codegen::MappingTable::builtin(t.mapping));
}

}  // namespace hsalit::test_support
