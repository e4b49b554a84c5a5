// Writing result files so that a reader never sees a partial one: a temporary file in the
// same folder, flushed and synced, then renamed over the target.
#pragma once

#include <cstdio>
#include <filesystem>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

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

// Many files into one folder (`gen --out`'s thousands of tests), each appearing whole or not
// at all as write_file_atomically's do, with one sync for all of them instead of two per
// file: write() puts a file's content in a temporary file beside its target; commit() syncs
// the file system that holds the folder once (syncfs(2)), then renames every temporary file
// over its target and syncs the folder. So a crash leaves each target either as it was or
// whole. Destroyed without a commit, it removes its temporary files and leaves the targets as
// they were. Throws std::runtime_error naming the file and the reason when one cannot be
// written.
class AtomicFolderWriter {
 public:
  explicit AtomicFolderWriter(std::filesystem::path folder) : folder_(std::move(folder)) {}
  ~AtomicFolderWriter();
  AtomicFolderWriter(const AtomicFolderWriter&) = delete;
  AtomicFolderWriter& operator=(const AtomicFolderWriter&) = delete;

  // `target` is a file in the folder; writing one target twice keeps the second content.
  void write(const std::filesystem::path& target, std::string_view content);
  void commit();

 private:
  std::filesystem::path folder_;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> pending_;  // temporary, target
  std::set<std::filesystem::path> targets_;
};

}  // namespace hsalit::results
