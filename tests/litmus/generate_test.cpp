#include "hsalit/litmus/generate.hpp"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/support/saturating.hpp"

namespace hsalit::litmus {
namespace {

GenerateOptions spec(std::string_view text) { return parse_generate_spec(text); }

TEST(Generate, ClassicFamiliesHaveTheirCriticalOutcome) {
  const std::map<std::string, std::string> expected = {
      {"MP", "exists (1:r0=1 /\\ 1:r1=0)"},
      {"SB", "exists (0:r0=0 /\\ 1:r0=0)"},
      {"LB", "exists (0:r0=1 /\\ 1:r0=1)"},
      {"S", "exists (1:r0=1 /\\ x=2)"},
      {"R", "exists (1:r0=0 /\\ y=2)"},
      {"2+2W", "exists (x=2 /\\ y=2)"},
      {"CoRR", "exists (0:r0=1 /\\ 0:r1=0)"},
      {"CoRW1", "exists (0:r0=1)"},
      {"CoWW", "exists (x=2)"},
      {"ISA2", "exists (1:r0=1 /\\ 2:r0=1 /\\ 2:r1=0)"},
      {"IRIW", "exists (0:r0=1 /\\ 0:r1=0 /\\ 2:r0=1 /\\ 2:r1=0)"},
  };
  for (const auto& [family, condition] : expected) {
    std::vector<GeneratedTest> tests =
        generate_tests(spec("family=" + family + ",orders=rlx,scopes=agent,placements=diff-agent,segments=global"));
    ASSERT_EQ(tests.size(), 1u) << family;
    const std::string text = print_litmus(tests[0].test);
    EXPECT_NE(text.find("\n" + condition + "\n"), std::string::npos) << text;
    EXPECT_EQ(tests[0].test.name.rfind(family + "+rlx-agent", 0), 0u) << tests[0].test.name;
  }
}

TEST(Generate, NamesFollowTheLibraryConvention) {
  std::vector<GeneratedTest> tests =
      generate_tests(spec("family=MP,orders=na+screl+scacq,scopes=agent,placements=diff-wg,segments=global"));
  std::set<std::string> names;
  for (const auto& t : tests) names.insert(t.test.name);
  EXPECT_TRUE(names.count("MP+na.screl-agent+scacq-agent.na_diff-wg"));
  EXPECT_TRUE(names.count("MP+na_diff-wg"));
  tests = generate_tests(spec("family=MP,orders=rlx,scopes=wg,placements=same-wg,segments=group"));
  ASSERT_EQ(tests.size(), 1u);
  EXPECT_EQ(tests[0].test.name, "MP+rlx-wg_same-wg+group-x-y");
}

// Counts for small bounds; each number is checked by hand in docs/generation.md.
TEST(Generate, CountsForSmallBounds) {
  // MP: 4 accesses, each of 2 orders, no symmetry.
  EXPECT_EQ(count_tests(spec("family=MP,orders=rlx+scacq+screl,scopes=agent,placements=diff-wg,segments=global")), 16u);
  // SB: 4 orders per thread, threads interchangeable: 4 * 5 / 2.
  EXPECT_EQ(count_tests(spec("family=SB,orders=rlx+scacq+screl,scopes=agent,placements=diff-wg,segments=global")), 10u);
  EXPECT_EQ(count_tests(spec("family=SB,orders=na+rlx+scacq+screl,scopes=agent,placements=diff-wg,segments=global")),
            45u);
  // Two threads: same-wg, diff-wg, diff-agent; group memory only in one work-group.
  EXPECT_EQ(count_tests(spec("family=MP,orders=rlx,scopes=wg")), 3u + 3u);
  // Fences on MP's two program-order edges (none or 3 orders at 1 scope): 4 * 4.
  EXPECT_EQ(count_tests(spec("family=MP,orders=rlx,scopes=agent,placements=diff-wg,segments=global,fences=scacq+"
                             "screl+scar")),
            16u);
  // Dependencies on MP's reading edge: none, addr, ctrl (data needs a store).
  EXPECT_EQ(count_tests(spec("family=MP,orders=rlx,scopes=agent,placements=diff-wg,segments=global,deps=addr+data+"
                             "ctrl")),
            3u);
  // IRIW's four threads in the 60 placements, up to its one symmetry (swapping x and y,
  // the readers and the writers), which fixes 20 of them: (60 + 20) / 2.
  EXPECT_EQ(count_tests(spec("family=IRIW,orders=rlx,scopes=agent,segments=global")), 40u);
}

TEST(Generate, SymmetricDuplicatesAreRemoved) {
  GenerateOptions o = spec("orders=rlx+scacq+screl,scopes=agent,placements=diff-wg,segments=global");
  o.cycles = {parse_cycle("PodWR Fre PodWR Fre")};
  const std::size_t one = count_tests(o);
  o.cycles = {parse_cycle("PodWR Fre PodWR Fre"), parse_cycle("Fre PodWR Fre PodWR")};
  EXPECT_EQ(count_tests(o), one);
  // SB+rlx+screl and SB+screl+rlx are one test up to thread permutation.
  std::set<std::string> names;
  for (const auto& t : generate_tests(o)) names.insert(t.test.name);
  EXPECT_EQ(names.count("SB+rlx-agent+rlx-agent.scacq-agent_diff-wg") +
                names.count("SB+rlx-agent.scacq-agent+rlx-agent_diff-wg"),
            1u);
  // Location and value renaming: 2+2W from either rotation is the same test.
  o.cycles = {parse_cycle("PodWW Wse PodWW Wse"), parse_cycle("Wse PodWW Wse PodWW")};
  EXPECT_EQ(count_tests(o), count_tests(spec("family=2+2W,orders=rlx+scacq+screl,scopes=agent,placements=diff-wg,"
                                             "segments=global")));
}

TEST(Generate, NamesAreDeterministicUniqueAndTestsParseBack) {
  const GenerateOptions o =
      spec("threads=2,accesses=2,orders=na+rlx+screl+scacq,scopes=agent,placements=diff-wg,segments=global");
  std::vector<GeneratedTest> first = generate_tests(o);
  std::vector<GeneratedTest> second = generate_tests(o);
  ASSERT_EQ(first.size(), second.size());
  ASSERT_GT(first.size(), 100u);
  std::set<std::string> names, keys;
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].test.name, second[i].test.name);
    EXPECT_TRUE(names.insert(first[i].test.name).second) << "duplicate name " << first[i].test.name;
    EXPECT_TRUE(keys.insert(first[i].canonical_key).second);
    const std::string text = print_litmus(first[i].test);
    ParseResult parsed = parse_litmus(text);
    ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render(first[i].test.name) << text;
    EXPECT_EQ(*parsed.test, first[i].test) << text;
  }
}

TEST(Generate, DependenciesFencesAndGroupSegmentsParseBack) {
  const GenerateOptions o = spec("family=LB/MP/SB,orders=rlx+screl+scacq,scopes=wg,fences=scar,deps=addr+data+ctrl");
  std::size_t n = generate(o, [](GeneratedTest&& t) {
    ParseResult parsed = parse_litmus(print_litmus(t.test));
    ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render(t.test.name);
    EXPECT_EQ(*parsed.test, t.test);
  });
  EXPECT_GT(n, 1000u);
}

TEST(Generate, BadOptionsAreRefusedWithTheReason) {
  EXPECT_THROW(validate(parse_generate_spec("threads=0")), std::invalid_argument);
  EXPECT_THROW(validate(parse_generate_spec("threads=9")), std::invalid_argument);
  EXPECT_THROW(parse_generate_spec("orders=acquire"), std::invalid_argument);
  EXPECT_THROW(parse_generate_spec("family=XY"), std::invalid_argument);
  EXPECT_THROW(parse_generate_spec("bogus=1"), std::invalid_argument);
  EXPECT_THROW(parse_generate_spec("threads"), std::invalid_argument);
  EXPECT_THROW(parse_cycle("PodWR PodWR"), std::invalid_argument);  // one location change per Pod
  EXPECT_THROW(parse_cycle("Rfe PodWR"), std::invalid_argument);    // kinds do not chain
  EXPECT_THROW(parse_cycle("Rfe Fre"), std::invalid_argument);      // no program order
  try {
    parse_generate_spec("orders=rlx+acquire");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'acquire'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(count_tests(spec("threads=2,accesses=2,max=10")), std::length_error);
  // A limit is a size_t: counts beyond a 32-bit int are limits, negative ones are refused
  // (they once wrapped to a huge size_t), and one beyond size_t says so.
  EXPECT_EQ(parse_generate_spec("max=40000000000").max_tests, 40'000'000'000u);
  EXPECT_THROW(parse_generate_spec("max=-5"), std::invalid_argument);
  EXPECT_THROW(parse_generate_spec("max=5x"), std::invalid_argument);
  try {
    parse_generate_spec("max=99999999999999999999999");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  }
}

TEST(Generate, BoundsEnumerateTheClassicShapes) {
  std::set<std::string> families;
  for (const Cycle& c : enumerate_cycles(spec("threads=2,accesses=2")))
    if (auto f = family_of(c)) families.insert(*f);
  EXPECT_EQ(families,
            (std::set<std::string>{"MP", "SB", "LB", "S", "R", "2+2W", "CoRR", "CoWR", "CoRW1", "CoRW2", "CoWW"}));
}

// Every thread of every cycle keeps to the access bound (an rmw counts once), the first
// thread of a multi-thread cycle included.
TEST(Generate, EveryThreadKeepsToTheAccessBound) {
  for (const char* bound : {"threads=1,accesses=3", "threads=2,accesses=2", "threads=3,accesses=2"}) {
    const GenerateOptions o = spec(bound);
    std::size_t spaces = 0;
    for_each_variation_space(o, [&](const VariationSpace& space) {
      ++spaces;
      std::map<int, int> accesses;
      for (const Slot& slot : space.slots())
        if (!slot.gap) ++accesses[slot.thread];
      for (const auto& [thread, n] : accesses)
        EXPECT_LE(n, o.max_accesses) << bound << ": " << space.cycle() << ", thread " << thread;
      EXPECT_LE(static_cast<int>(accesses.size()), o.max_threads) << bound << ": " << space.cycle();
    });
    EXPECT_GT(spaces, 0u) << bound;
  }
}

// Every cycle of the issue's bound is valid, its own canonical rotation and met once, and
// there are as many as docs/PERFORMANCE.md records (123,469 with Pos edges, 279 without),
// which the enumeration found when it still built every rotation and every error message.
TEST(Generate, TheCyclesOfABoundAreValidCanonicalAndDistinct) {
  for (const auto& [bound, count] : {std::pair<const char*, std::size_t>{"threads=3,accesses=3", 123469},
                                     std::pair<const char*, std::size_t>{"threads=3,accesses=3,edges=-Pos", 279}}) {
    const std::vector<Cycle> cycles = enumerate_cycles(spec(bound));
    EXPECT_EQ(cycles.size(), count) << bound;
    EXPECT_EQ(std::set<Cycle>(cycles.begin(), cycles.end()).size(), cycles.size()) << bound;
    for (const Cycle& c : cycles) {
      EXPECT_FALSE(cycle_error(c)) << bound << ": " << print_cycle(c);
      EXPECT_EQ(canonical_rotation(c), c) << bound << ": " << print_cycle(c);
    }
  }
}

// A space's size is the product of its slots' choice counts, and says so when that passes
// 2^64 instead of wrapping (support/saturating.hpp): a six-thread cycle of three accesses each
// holds far more tests than a 64-bit count.
TEST(Generate, ASpaceTooLargeToCountSaysSo) {
  for (const char* cycle : {"PodWW Rfe PodRR Fre",
                            "PosWW PodWR Fre PosWW PodWR Fre PosWW PodWR Fre PosWW PodWR Fre "
                            "PosWW PodWR Fre PosWW PodWR Fre"}) {
    GenerateOptions o = spec("placements=diff-wg,segments=global,fences=scacq+screl+scar,deps=addr+data+ctrl");
    o.cycles = {parse_cycle(cycle)};
    std::size_t spaces = 0, saturated = 0;
    for_each_variation_space(o, [&](const VariationSpace& space) {
      ++spaces;
      long double product = 1;
      for (const Slot& slot : space.slots()) product *= static_cast<long double>(slot.choices.size());
      if (product > static_cast<long double>(support::kSaturated)) {
        EXPECT_EQ(space.size(), support::kSaturated) << cycle << ": " << product;
        ++saturated;
      } else {
        EXPECT_EQ(static_cast<long double>(space.size()), product) << cycle;
      }
    });
    EXPECT_GT(spaces, 0u) << cycle;
    EXPECT_EQ(saturated > 0, std::string_view(cycle).size() > 30) << cycle;  // the six-thread cycle only
  }
  EXPECT_EQ(support::saturating_add(support::kSaturated - 1, 2), support::kSaturated);
  EXPECT_EQ(support::saturating_add(3, 4), 7u);
  EXPECT_EQ(support::saturating_multiply(std::uint64_t{1} << 40, std::uint64_t{1} << 30), support::kSaturated);
  EXPECT_EQ(support::saturating_multiply(0, support::kSaturated), 0u);
}

// The enumeration's order is part of a bound's sharding (shard=I/N takes every N-th cycle), so
// skipping prefixes that cannot be canonical must keep the same cycles in the same order: the
// FNV-1a digests of the edge sequences below are those of the enumeration that visited every
// prefix (13,360 cycles at 4 x 2; 8,694,982 with digest 08e305ada56902bf at 4 x 3, not run here).
TEST(Generate, PruningKeepsTheCyclesAndTheirOrder) {
  for (const auto& [bound, count, digest] :
       {std::tuple<const char*, std::size_t, std::uint64_t>{"threads=4,accesses=2", 13360, 0x8d168dae94c20321ull},
        std::tuple<const char*, std::size_t, std::uint64_t>{"threads=3,accesses=3", 123469, 0xa3437a8a9287ea95ull}}) {
    const std::vector<Cycle> cycles = enumerate_cycles(spec(bound));
    std::uint64_t h = 1469598103934665603ull;
    for (const Cycle& c : cycles) {
      for (EdgeKind e : c) h = (h ^ static_cast<std::uint64_t>(e)) * 1099511628211ull;
      h = (h ^ 0xff) * 1099511628211ull;
    }
    EXPECT_EQ(cycles.size(), count) << bound;
    EXPECT_EQ(h, digest) << bound;
  }
}

// A one-thread cycle is written from just after a communication edge: its other edges then
// run forward in program order and the last one goes back to the first event.
TEST(Generate, OneThreadCyclesFollowProgramOrder) {
  EXPECT_EQ(print_cycle(canonical_rotation(parse_cycle("PosWW Rfi PosRW"))), "PosRW PosWW Rfi");
  GenerateOptions o = spec("orders=rlx,scopes=agent,segments=global");
  o.cycles = {parse_cycle("PosWW Rfi PosRW")};
  std::vector<GeneratedTest> tests = generate_tests(o);
  ASSERT_EQ(tests.size(), 1u);
  const std::vector<Instruction>& code = tests[0].test.threads.at(0).code;
  ASSERT_EQ(code.size(), 3u);
  EXPECT_EQ(code[0].kind, OpKind::Load);  // R x; W x; W x, the read seeing the last write
  EXPECT_EQ(code[1].kind, OpKind::Store);
  EXPECT_EQ(code[2].kind, OpKind::Store);
  // An rmw whose read sees its thread's next write: two accesses, not three.
  bool found = false;
  for (const Cycle& c : enumerate_cycles(spec("threads=1,accesses=2")))
    found = found || print_cycle(c) == "Rmw PosWW Rfi";
  EXPECT_TRUE(found);
}

// Cycles that differ only in what their condition asks (here the two readers' roles) give
// spaces with one program key; the tests' canonical keys still tell them apart.
TEST(Generate, ProgramKeysIgnoreOnlyTheCondition) {
  GenerateOptions o = spec("orders=rlx,scopes=agent,placements=diff-wg,segments=global");
  o.cycles = {parse_cycle("PosWW Rfe PosRW Rfe PosRR Rmw Wse"), parse_cycle("PosWW Rfe PosRR Rmw Rfe PosRW Wse")};
  std::vector<VariationSpace> spaces;
  for_each_variation_space(o, [&](const VariationSpace& s) { spaces.push_back(s); });
  ASSERT_EQ(spaces.size(), 2u);
  EXPECT_EQ(spaces[0].program_key(), spaces[1].program_key());
  const std::vector<std::size_t> first(spaces[0].slots().size(), 0);
  EXPECT_EQ(spaces[0].program_key(first), spaces[1].program_key(first));
  EXPECT_NE(spaces[0].canonical_key(first), spaces[1].canonical_key(first));
  // Another placement or segment is another program.
  o.placements = {ThreadRelation::DifferentWorkGroup, ThreadRelation::DifferentAgent};
  std::set<std::string> keys;
  std::size_t n = 0;
  for_each_variation_space(o, [&](const VariationSpace& s) {
    ++n;
    keys.insert(s.program_key());
  });
  EXPECT_GT(keys.size(), 1u);
  EXPECT_LT(keys.size(), n);
}

// VariationSpace::test leaves out the checks that build() makes: the tests it builds are
// build()'s, which pass them, with the scope tree resolved, on spaces with every kind of gap
// (fences, each dependency, guards) and both segments.
TEST(Generate, TheTestsOfASpaceAreTheCheckedOnes) {
  const GenerateOptions o =
      spec("threads=3,accesses=2,fences=scar+screl,deps=addr+data+ctrl+guard,segments=global+group,shard=3/400");
  std::size_t spaces = 0;
  for_each_variation_space(o, [&](const VariationSpace& space) {
    ++spaces;
    std::vector<std::size_t> choice(space.slots().size(), 0);
    for (int n = 0; n < 16; ++n) {
      for (std::size_t k = 0; k < choice.size(); ++k)
        choice[k] = (choice[k] + 1 + k * static_cast<std::size_t>(n)) % space.slots()[k].choices.size();
      const hsalit::litmus::Test test = space.test(choice);
      EXPECT_TRUE(test.scopes.resolved());
      EXPECT_EQ(print_litmus(test), print_litmus(space.build(choice).test)) << space.cycle();
    }
  });
  EXPECT_GT(spaces, 10u);
}

// SpaceTests builds a layout per choice of the gaps' contents and sets the orders and scopes
// of the others: its tests are VariationSpace::test's (name included, or left empty when not
// `named`), whatever choices came before, with fences of every order and scope, each
// dependency, guards, both segments and every placement; `prepare` is applied to each layout
// once.
TEST(Generate, SpaceTestsAreTheSpacesTests) {
  const GenerateOptions o = spec(
      "threads=3,accesses=2,orders=na+rlx+scacq+screl,scopes=wg+agent,fences=scar+screl,deps=addr+data+ctrl+guard,"
      "segments=global+group,shard=5/300");
  std::size_t spaces = 0, reused = 0;
  for_each_variation_space(o, [&](const VariationSpace& space) {
    ++spaces;
    int prepared = 0;
    SpaceTests tests(space, [&](hsalit::litmus::Test t) {
      ++prepared;
      t.locations.push_back({std::nullopt, "x", {}});
      return t;
    });
    SpaceTests unnamed(space, {}, false);
    std::vector<std::size_t> choice(space.slots().size(), 0);
    for (int n = 0; n < 40; ++n) {
      for (std::size_t k = 0; k < choice.size(); ++k)
        choice[k] = (choice[k] + 1 + k * static_cast<std::size_t>(n)) % space.slots()[k].choices.size();
      const std::size_t before = tests.layouts();
      hsalit::litmus::Test expected = space.test(choice);
      hsalit::litmus::Test expected_unnamed = expected;
      expected_unnamed.name.clear();
      expected_unnamed.description.clear();
      EXPECT_EQ(unnamed.test(choice), expected_unnamed) << space.cycle();
      expected.locations.push_back({std::nullopt, "x", {}});
      const hsalit::litmus::Test& got = tests.test(choice);
      EXPECT_EQ(got, expected) << space.cycle() << "\n" << print_litmus(got) << "\n" << print_litmus(expected);
      if (tests.layouts() == before) ++reused;
    }
    EXPECT_EQ(static_cast<std::size_t>(prepared), tests.layouts());
  });
  EXPECT_GT(spaces, 10u);
  EXPECT_GT(reused, spaces * 10);
  // A bad choice is refused as VariationSpace::test refuses it.
  for_each_variation_space(spec("threads=2,accesses=2,shard=0/50"), [&](const VariationSpace& space) {
    SpaceTests tests(space);
    EXPECT_THROW(tests.test(std::vector<std::size_t>(space.slots().size() + 1, 0)), std::invalid_argument);
    std::vector<std::size_t> past(space.slots().size(), 0);
    past[0] = space.slots()[0].choices.size();
    EXPECT_THROW(tests.test(past), std::out_of_range);
  });
}

// Shards split the cycles of a bound between them, each cycle in exactly one.
TEST(Generate, ShardsPartitionTheCycles) {
  const std::vector<Cycle> all = enumerate_cycles(spec("threads=2,accesses=2"));
  std::multiset<Cycle> met;
  for (int i = 0; i < 3; ++i) {
    const std::vector<Cycle> part = enumerate_cycles(spec("threads=2,accesses=2,shard=" + std::to_string(i) + "/3"));
    EXPECT_LE(part.size(), all.size() / 3 + 1);
    met.insert(part.begin(), part.end());
  }
  EXPECT_EQ(met, std::multiset<Cycle>(all.begin(), all.end()));
  EXPECT_EQ(enumerate_cycles(spec("threads=2,accesses=2,shard=0/1")), all);
  for (const char* bad : {"shard=3/3", "shard=1", "shard=a/2", "shard=0/0", "shard=-1/2", "shard=1/2/3"})
    EXPECT_THROW(spec(bad), std::invalid_argument) << bad;
}

// The test limit applies before the bound's every cycle is listed: cycles are generated as
// the spaces need them (found by fuzz/spec_fuzzer.cpp: `threads=4,accesses=3,max=3` listed
// every cycle first, 35 s and 560 MB, before the limit could stop it). The child process has
// 256 MiB of heap beyond what it holds at the start, which listing every cycle exceeds.
// Generates `threads=4,accesses=3,max=3` with 256 MiB of heap beyond what the process holds;
// exits 0 when the limit stops it (std::length_error), 1 otherwise.
[[noreturn]] void generate_four_by_three_in_little_memory() {
  long pages = 0, resident = 0, shared = 0, text = 0, library = 0, data = 0;
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (!statm || std::fscanf(statm, "%ld %ld %ld %ld %ld %ld", &pages, &resident, &shared, &text, &library, &data) != 6)
    std::_Exit(2);
  std::fclose(statm);
  const rlim_t heap = static_cast<rlim_t>(data) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE)) + (rlim_t{256} << 20);
  const rlimit limit{heap, heap};
  if (::setrlimit(RLIMIT_DATA, &limit) != 0) std::_Exit(3);
  try {
    generate_tests(spec("threads=4,accesses=3,max=3"));
  } catch (const std::length_error&) {
    std::_Exit(0);
  } catch (...) {
  }
  std::_Exit(1);
}

TEST(Generate, TheTestLimitAppliesBeforeEveryCycleIsListed) {
  EXPECT_EXIT(generate_four_by_three_in_little_memory(), ::testing::ExitedWithCode(0), "");
}

// The space keys against the tests': two spaces have one program key exactly when their
// tests are the same programs, read as the set of the tests' own program keys (every choice
// of the space, computed by canonical serialisation over every thread order); and where two
// cycles have one skeleton key, every space of one has the program key of a space of the
// other. The bound has guards (the values a guarded read compares enter the keys),
// symmetric threads, every placement and both segments.
TEST(Generate, SpaceKeysAgreeWithTheTestsPrograms) {
  const GenerateOptions o = spec("threads=3,accesses=2,orders=na+rlx,scopes=agent,deps=guard");
  std::map<std::string, std::set<std::string>> programs_by_key;   // space program key -> its tests' programs
  std::map<std::string, std::set<std::string>> keys_by_skeleton;  // skeleton key -> its spaces' program keys
  std::map<std::string, std::set<std::string>> cycles_by_skeleton;
  std::size_t spaces = 0;
  for_each_variation_space(o, [&](const VariationSpace& s) {
    ++spaces;
    EXPECT_EQ(s.program_key(), s.skeleton_key() + "@" + s.arrangement_key());
    std::set<std::string> programs;
    std::vector<std::size_t> choice(s.slots().size(), 0);
    for (;;) {
      programs.insert(s.program_key(choice));
      std::size_t k = 0;
      while (k < choice.size() && ++choice[k] == s.slots()[k].choices.size()) choice[k++] = 0;
      if (k == choice.size()) break;
    }
    const auto [it, fresh] = programs_by_key.try_emplace(s.program_key(), programs);
    if (!fresh) {
      EXPECT_EQ(it->second, programs) << s.cycle() << ": one key, other programs";
    }
    keys_by_skeleton[s.skeleton_key()].insert(s.program_key());
    cycles_by_skeleton[s.skeleton_key()].insert(s.cycle());
  });
  // Different keys, different programs.
  std::set<std::set<std::string>> distinct;
  for (const auto& [key, programs] : programs_by_key) distinct.insert(programs);
  EXPECT_EQ(distinct.size(), programs_by_key.size());
  EXPECT_LT(programs_by_key.size(), spaces);  // the bound has symmetric spaces
  // Cycles with one skeleton key: every space of each is a space of the others.
  std::size_t shared = 0;
  for (const auto& [skeleton, cycles] : cycles_by_skeleton) {
    if (cycles.size() < 2) continue;
    ++shared;
    GenerateOptions one = o;
    std::vector<std::set<std::string>> keys;
    for (const std::string& c : cycles) {
      one.cycles = {parse_cycle(c)};
      std::set<std::string>& mine = keys.emplace_back();
      for_each_variation_space(one, [&](const VariationSpace& s) { mine.insert(s.program_key()); });
    }
    for (const auto& k : keys) EXPECT_EQ(k, keys.front()) << skeleton;
  }
  EXPECT_GT(shared, 0u);  // cycles that differ only in their condition
}

}  // namespace
}  // namespace hsalit::litmus
