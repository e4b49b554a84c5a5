// Random litmus tests for differential testing of the model engines and for property tests.
//
// A test is a deterministic function of its seed and options: the generator draws from
// std::mt19937_64 (whose output sequence the C++ standard fixes) through distributions
// implemented here, so a seed names the same test on every platform and standard library.
// Every generated test passes check_test, and print_litmus writes it as a file that reads
// back as the same test, so a failing seed can be kept as a .litmus file.
#pragma once

#include <cstdint>
#include <string>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::litmus {

struct RandomTestOptions {
  // Shape. Instructions count memory accesses and fences; the mov, branch and label of a
  // control dependency, the mov of a data dependency, and barriers come on top.
  int min_threads = 2, max_threads = 4;            // 1..8
  int min_instructions = 1, max_instructions = 4;  // per thread, 1..8
  int min_locations = 2, max_locations = 3;        // 1..4 (x, y, z, u)
  // Over all threads, 1..64 and at least max_threads * min_instructions: per-thread counts
  // are drawn, then lowered at random until they fit. The enumeration engine's time grows
  // steeply with the number of accesses (a 4x4 test can take minutes), hence 10.
  int max_total_instructions = 10;

  // What may appear.
  bool ordinary_accesses = true;  // r[] and w[] (no order, work-item scope)
  bool relaxed_atomics = true;    // false: every atomic is scacq, screl or scar
  bool rmws = true;               // exchange, fetch-and-add and compare-and-swap
  bool fences = true;
  bool group_segment = true;         // some locations in the group segment
  bool data_dependencies = true;     // stores of a register read earlier (or of r xor 1)
  bool control_dependencies = true;  // a forward branch over one or two later instructions
  bool barriers = true;              // one barrier in every thread of some work-groups
  // Each barrier is preceded by f[screl,wg] and followed by f[scacq,wg], the idiom that
  // makes a barrier order memory (HSA PRM 9.3); a bare barrier is a pair of relaxed atomics.
  bool barrier_fences = false;

  // Limits that keep the enumeration engine fast (it takes milliseconds on most tests, but
  // minutes on a few without these limits).
  // Fetch-and-adds per test (0..8): each makes the values a location can hold grow, and
  // the enumeration engine forks every load over those values.
  int max_fetch_adds = 1;
  // Whether a test with a fetch-and-add may also have barriers (the engine forks every
  // barrier arrival over the counter's values too).
  bool barriers_with_fetch_adds = false;
  // Threads that execute barriers, over all work-groups (0..8).
  int max_barrier_threads = 3;

  // OpenCL's annotations too (docs/model.md, "The OpenCL model"): some atomics and fences
  // that acquire or release are seq_cst (`sc`), and some fences order one segment only
  // (`global` or `group`). Off, no draw is made for them, so every other test is unchanged.
  bool opencl_annotations = false;

  // Adds a `locations [...]` line with every register a load or RMW writes and every
  // location, so that outcomes report the whole final state, not only what the condition
  // names.
  bool observe_everything = false;

  std::string name_prefix = "random";  // the test is named PREFIX-SEED
};

// Throws std::invalid_argument when an option is out of its bounds (see above) or a
// minimum exceeds its maximum.
void validate(const RandomTestOptions& options);

// The test of `seed`: checked (its scope tree resolved), ready for the model. Throws
// std::invalid_argument for bad options, and std::logic_error, with the printed test, if
// the test it built fails check_test (a bug of the generator).
Test random_test(std::uint64_t seed, const RandomTestOptions& options = {});

}  // namespace hsalit::litmus
