// Writing result files so that a reader never sees a partial one: a temporary file in the
// same folder, flushed and synced, then renamed over the target.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string_view>

namespace hsalit::results {

// Throws std::runtime_error `cannot write FILE: REASON` (the reason as strerror words it:
// `No space left on device`) when it cannot be written.
void write_file_atomically(const std::filesystem::path& target, std::string_view content);

// The same for a file written piece by piece (one too large to hold): the pieces go to the
// temporary file, and commit() renames it over the target. Destroyed without a commit, it
// removes the temporary file and leaves the target as it was. Throws std::runtime_error
// naming the target and the reason when it cannot be written (a folder at the target's
// path: as it is constructed).
class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path target);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  void write(std::string_view piece);
  void commit();

 private:
  std::filesystem::path target_, temporary_;
  std::FILE* file_ = nullptr;
  bool ok_ = true;
};

}  // namespace hsalit::results
