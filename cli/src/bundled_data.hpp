// Where the data shipped with hsalit lies: the litmus library, the mapping tables, the target
// descriptions and the JSON schemas, under PREFIX/share/hsalit beside PREFIX/bin/hsalit. The
// build folder mirrors that layout (build/share/hsalit links to the sources), so the same
// lookup serves a build, an installed prefix and a prefix moved elsewhere.
#pragma once

#include <filesystem>
#include <optional>

namespace hsalit::cli {

// EXE/../share/hsalit for the running executable, when it holds the litmus library;
// nullopt otherwise (an executable copied out of its prefix).
std::optional<std::filesystem::path> bundled_data_dir();

// The bundled litmus library (share/hsalit/litmus/library); throws std::runtime_error naming
// where it was looked for when it is missing.
std::filesystem::path bundled_library();

}  // namespace hsalit::cli
