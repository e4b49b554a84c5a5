#include "option_checks.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>

#include "hsalit/support/parallel.hpp"

namespace hsalit::cli {

std::optional<std::uint64_t> parse_whole_number(std::string_view text) {
  if (text.empty() || text.front() < '0' || text.front() > '9') return std::nullopt;  // no sign, no space
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

namespace {

// CLI11 prefixes the message with the option's name: "--iterations: ...".
CLI::Validator whole_number_validator(std::uint64_t minimum, std::string description) {
  return CLI::Validator(
      [minimum](std::string& text) -> std::string {
        const std::optional<std::uint64_t> value = parse_whole_number(text);
        if (!value)
          return fmt::format("'{}' is not a whole number from {} to {}", text, minimum,
                             std::numeric_limits<std::uint64_t>::max());
        if (*value < minimum) return fmt::format("'{}' is below {}", text, minimum);
        return "";
      },
      std::move(description));
}

}  // namespace

const CLI::Validator& positive_count() {
  static const CLI::Validator v = whole_number_validator(1, "N >= 1");
  return v;
}

const CLI::Validator& jobs_count() {
  static const CLI::Validator v = whole_number_validator(0, "N >= 0");
  return v;
}

const CLI::Validator& seed_value() {
  static const CLI::Validator v = whole_number_validator(0, "0 <= N < 2^64");
  return v;
}

const CLI::Validator& seconds_value() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        // strtod reads "nan" and "inf" too: both are refused below, as is anything left over.
        const char* begin = text.c_str();
        char* end = nullptr;
        const double seconds = text.empty() ? NAN : std::strtod(begin, &end);
        if (text.empty() || end != begin + text.size() || !std::isfinite(seconds) || !(seconds > 0))
          return fmt::format("'{}' is not a finite number of seconds above 0", text);
        return "";
      },
      "SECONDS > 0");
  return v;
}

int jobs_or_cores(std::uint64_t jobs) {
  if (jobs == 0) return support::default_jobs();
  return static_cast<int>(std::min<std::uint64_t>(jobs, std::numeric_limits<int>::max()));
}

std::optional<model::ModelVariant> model_for_flavour(std::string_view model, std::string_view flavour,
                                                     std::string& error) {
  const std::string_view name = !model.empty() ? model : flavour == "opencl" ? "opencl" : "hsa";
  const std::optional<model::ModelVariant> variant = model::model_variant_from_string(name);
  if (!variant) error = fmt::format("unknown model '{}' (hsa, hrf-indirect, hrf-direct, opencl)", name);
  return variant;
}

}  // namespace hsalit::cli
