// Finding litmus files and the expected verdicts that sit beside them.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hsalit::litmus {

// Expands files and folders (recursively, `*.litmus`, sorted) into a list of test files.
// A path that does not exist is returned as is so that the caller reports it, and so is a
// dangling symbolic link named *.litmus inside a folder (reading it says so).
std::vector<std::filesystem::path> collect_litmus_files(const std::vector<std::filesystem::path>& inputs);

// The expected verdict of one bundled test, per model name ("hsa", "hrf-direct", ...),
// from the `expected.json` sidecar of its folder.
struct ExpectedVerdict {
  std::map<std::string, std::string> by_model;  // model -> allowed | forbidden | racy
  std::string source;
  std::string why;

  // The verdict under `model` (hsa, hrf-indirect, hrf-direct, opencl): its own, or for the hrf
  // variants, which differ from HSA only where the sidecar says so, hsa's; null where there is
  // none (an OpenCL verdict is never HSA's).
  const std::string* verdict_under(std::string_view model) const;
};

// Reads `expected.json` of a folder: file name -> expectation. Throws std::runtime_error
// with the file and the offending entry when the sidecar is malformed.
std::map<std::string, ExpectedVerdict> read_expected_verdicts(const std::filesystem::path& folder);

}  // namespace hsalit::litmus
