// libFuzzer entry point for the bound specs of `verify-mapping --generate` and `gen --spec`
// (`threads=3,accesses=3,shard=0/64`). The bytes are parsed with `parse_generate_spec` and the
// options checked with `validate`, as the commands do: any input must be accepted or rejected
// with std::invalid_argument that says why, without a crash, a hang or a leak.
//
// For an accepted spec the generator then runs, with bounded work per input: `generate`
// stops after the first few tests (a legitimately huge bound is not a finding), and the
// first few variation spaces build their first and last choice and their keys (bounds of
// more than 6 accesses in all, threads times accesses, are only parsed, see below). A spec that
// makes the generator loop or allocate without bound before the first test is reached shows
// as a timeout or an out-of-memory report; a generated test that fails check_test
// (std::logic_error) or any other exception aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/printer.hpp"

namespace {

constexpr std::size_t kTestsPerInput = 8;
constexpr std::size_t kSpacesPerInput = 4;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "spec_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

struct Enough {};  // thrown by a visitor to stop the generator early

void generate_a_few(const hsalit::litmus::GenerateOptions& options) {
  using namespace hsalit::litmus;
  std::size_t seen = 0;
  try {
    generate(options, [&](GeneratedTest&& t) {
      if (t.canonical_key.empty() || t.cycle.empty()) finding("a generated test without a key or cycle", "");
      if (print_litmus(t.test).empty()) finding("a generated test prints empty", t.cycle);
      if (++seen == kTestsPerInput) throw Enough{};
    });
  } catch (const Enough&) {
  } catch (const std::length_error&) {
    // past `max`: the documented stop
  }
}

void build_a_few_spaces(const hsalit::litmus::GenerateOptions& options) {
  using namespace hsalit::litmus;
  std::size_t spaces = 0;
  try {
    for_each_variation_space(options, [&](const VariationSpace& space) {
      std::vector<std::size_t> first(space.slots().size(), 0), last;
      for (const Slot& slot : space.slots()) {
        if (slot.choices.empty()) finding("a slot without a choice", space.cycle());
        last.push_back(slot.choices.size() - 1);
      }
      for (const auto& choice : {first, last}) {
        GeneratedTest built = space.build(choice);
        if (built.canonical_key != space.canonical_key(choice)) finding("two keys for one choice", space.cycle());
        (void)space.program_key(choice);
        SpaceTests tests(space);
        (void)tests.test(choice);
      }
      if (++spaces == kSpacesPerInput) throw Enough{};
    });
  } catch (const Enough&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hsalit::litmus;
  const std::string_view spec(reinterpret_cast<const char*>(data), size);
  GenerateOptions options;
  try {
    options = parse_generate_spec(spec);
    validate(options);
  } catch (const std::invalid_argument& e) {
    if (std::string_view(e.what()).empty()) finding("rejected without a message", "");
    return 0;
  } catch (const std::exception& e) {
    finding("the spec parser threw something other than std::invalid_argument", e.what());
  }
  // Larger bounds are legitimate but take longer than the fuzzer's timeout under the
  // sanitizers (docs/fuzzing.md): the depth-first search for the first cycle of a 4 x 4 bound,
  // or the whole of a 3 x 3 bound when no space has a choice (orders=scacq). Their specs are
  // parsed and checked, not generated from.
  if (options.cycles.empty() && options.max_threads * options.max_accesses > 6) return 0;
  try {
    generate_a_few(options);
    build_a_few_spaces(options);
  } catch (const std::exception& e) {
    finding("generating from an accepted spec threw", e.what());
  }
  return 0;
}
