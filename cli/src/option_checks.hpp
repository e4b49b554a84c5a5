// The checks that every subcommand applies to its numeric options, so that a bad value is a
// usage error (exit 2) naming the option, the same way in every command:
//   --iterations, --max, --instances, ...  a whole number, at least 1
//   -j/--jobs                              a whole number, 0 meaning one per core
//   --seed                                 a whole number from 0 to 2^64 - 1
//   --timeout, --time-limit                a finite number of seconds above 0
// and the default of --model where a command runs a mapping table's flavour.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hsalit/model/program.hpp"

namespace hsalit::cli {

// A decimal number without sign, spaces or exponent that fits in 64 bits.
std::optional<std::uint64_t> parse_whole_number(std::string_view text);

const CLI::Validator& positive_count();  // 1, 2, ...
const CLI::Validator& jobs_count();      // 0 (one per core), 1, 2, ...
const CLI::Validator& seed_value();      // 0 ... 18446744073709551615
const CLI::Validator& seconds_value();   // finite, > 0

// The threads a `-j N` asks for: N, or one per core for 0.
int jobs_or_cores(std::uint64_t jobs);

// The model that judges a run of a table's `flavour`: `model` when given, else the one the
// flavour was written for (opencl for the opencl flavour, hsa otherwise; docs/mappings.md).
// nullopt, with `error` set, for a name that is no model.
std::optional<model::ModelVariant> model_for_flavour(std::string_view model, std::string_view flavour,
                                                     std::string& error);

}  // namespace hsalit::cli
