// Writing result files so that a reader never sees a partial one: a temporary file in the
// same folder, flushed and synced, then renamed over the target.
#pragma once

#include <filesystem>
#include <string_view>

namespace hsalit::results {

// Throws std::runtime_error naming the file when it cannot be written.
void write_file_atomically(const std::filesystem::path& target, std::string_view content);

}  // namespace hsalit::results
