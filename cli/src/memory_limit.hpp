// `--memory-limit SIZE`, shared by the commands that search (run, check, campaign,
// verify-mapping): past it a search says `unknown: memory limit` instead of exhausting the
// machine.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "hsalit/support/memory.hpp"

namespace hsalit::cli {

// Adds the option to `cmd`, writing the limit in bytes to `bytes` (left at its default,
// support::default_memory_limit(), when the option is absent). A value that is not a size is
// a usage error.
inline CLI::Option* add_memory_limit_option(CLI::App* cmd, std::uint64_t& bytes) {
  bytes = support::default_memory_limit();
  return cmd
      ->add_option_function<std::string>(
          "--memory-limit", [&bytes](const std::string& text) { bytes = support::parse_byte_size(text).value_or(0); },
          "memory the process may use, e.g. 512M or 8G (default: half of physical memory, " +
              support::format_byte_size(support::default_memory_limit()) + " here); past it a search is unknown")
      ->check(CLI::Validator(
          [](const std::string& text) -> std::string {
            return support::parse_byte_size(text) ? "" : "not a size: digits, then optionally K, M, G or T";
          },
          "SIZE"));
}

}  // namespace hsalit::cli
