// Verifying every variation of a generated bound (docs/verification.md, "Every variation of
// a bound"). A bound of `hsalit gen` holds, per cycle, placement and segment assignment, the
// product of the choices of every access (ordinary, or atomic with an order and a scope) and
// every program-order gap (nothing, a fence, a dependency): millions of tests at three
// threads. Five facts make a few checked tests
// enough; a sixth and a seventh spare model queries, an eighth simulations, and a ninth and
// a tenth decide whole spaces without a search:
//
//  1. The table maps each litmus instruction on its own, so a test's code is fixed by the
//     code of each of its slots: choices of a slot that compile to the same instructions
//     form a code class, and tests whose slots' choices lie in the same classes compile to
//     the same program and reach the same final states on the simulator.
//  2. The HSA model is monotone in the annotations: making an access or a fence stronger
//     (na < rlx < scacq/screl < scar, a wider scope, a fence where there was none) only adds
//     synchronisation, so a race-free test stays race-free and its allowed final states can
//     only shrink (HSA SysArch 3.8-3.12: synchronizes-with and happens-before grow, the
//     orders the model asks for must respect more edges, and heterogeneous races need a
//     pair the scopes do not both include).
//  3. The simulator is monotone in the code: adding a wait, an L1 invalidation or a `glc` bit
//     on a load only removes runs (docs/simulator.md rules 1, 5, 6: a wait only blocks, an
//     invalidation is evictions the L1 may do at any time, a glc load is a load that missed).
//     It holds while lines may be evicted at any time and there is one L2, so it is only used
//     then (not under `no-l1-fill` or `l2-per-agent`).
//  4. In the HSA model (with scope inclusion) a scope acts only through the threads its
//     instance holds (3.3.6; model/src/relations.cpp: an operation specifies the instances
//     of its thread at its scope and below, two operations match when the instance of the
//     narrower of their scopes holds both). Where a thread's instance at a narrower scope
//     holds the same threads as at a wider one (one work-group placed alone in its agent,
//     or every thread in one work-group: there wg, agent and system hold the same threads),
//     an access or fence of that thread gets the same answer from the model with either
//     scope. When the wider scope's code strengthens the narrower's (fact 3), the test with
//     the wider scope reaches a subset of the final states of the test with the narrower one
//     and is decided by it.
//  5. Work-groups in several agents are decided by the same work-groups in one agent. The
//     model only synchronises more when they share an agent (an agent-scope operation's
//     instance then holds more threads: synchronizes-with, happens-before and the orders
//     the model asks for grow, and fewer pairs race, as in fact 2), and with one L2 the
//     simulator runs work-groups of different agents exactly as those of one agent on
//     separate CUs, which the one-agent placement explores among others (docs/simulator.md,
//     "Placement"). So a test race-free in several agents is race-free in one, and its
//     final states there, a superset of its final states in several agents, lie within a
//     subset of the allowed ones: the space with the agents merged (every pair that was in
//     different agents in different work-groups of one, a diff-wg placement) decides the
//     space, and when the space has a counterexample, so does that one (for the same test
//     and final state). Not used with `l2-per-agent`.
//  6. In one work-group the HSA model cannot tell a location's segments apart. A special
//     operation on a group location with agent or system scope acts with work-group scope
//     (HSA SysArch 3.3.6), a group location has one copy per work-group, and with every
//     thread in one work-group the instances at work-group scope and above hold every
//     thread: with scope inclusion the model reads nothing else of a segment. So the spaces
//     of a cycle and one-work-group placement that differ only in their segments (the same
//     slots and choices) get the same answer for the same choices, and share them.
//
//  7. The model allows every SC final state of a race-free test, under every variant: an SC
//     interleaving is a valid candidate execution whose coherence and sc orders are the
//     interleaving and whose happens-before only points forward along it (HSA SysArch 3.8 to
//     3.12). The tests below a prefix share their SC final states (orders, scopes and fences
//     change no value), which model::sc_outcomes finds by running the interleavings; a
//     weakest-code simulation that reaches only those decides its subtree without a model
//     question.
//  8. Code that keeps program order on the machine (runner::keeps_program_order: each
//     thread's accesses performed in its order, each at the one copy of its location) reaches
//     only SC final states, so a weakest program whose code does so decides its subtree as
//     such a simulation would, without being simulated.
//  9. On one CU (every thread in one work-group, each on a wave of its own) the machine
//     performs each thread's accesses in program order but for an LDS access followed by a
//     vector memory access that no wait orders (runner::one_cu_unordered_pairs); an
//     interleaving that keeps every pair the HSA model needs in order (an acquire before what
//     follows it, what precedes a release before it, two synchronizing atomics, a fence
//     between, and with fences in the test the release sequences of sso's third shape and
//     the acquires of its second; docs/verification.md, fact 9) is a valid candidate
//     execution. So a space whose code, for every test, keeps those pairs in order is sound
//     up to races, without a search. Where work-groups may split over CUs (WGP, tgsplit), the
//     same holds in one work-group or several with the pairs several CUs may reorder
//     (runner::several_cus_unordered_pairs, which also names a cached load before an access
//     not completed, or whose line may be older than the L2 where other threads write its
//     location), judged over the race-free choices where fact 10's product is known.
// 10. In a program without branches, barriers, compare-and-swaps or dependencies, two
//     accesses of different threads to one cell, one a write, race unless both are atomic
//     with scopes holding both threads (model::certain_race), so the race-free tests lie in a
//     product of choices per access. Where every thread's code keeps program order
//     (runner::thread_keeps_program_order) for every choice of that product, every race-free
//     test reaches only SC final states (facts 7 and 8), without a search.
//
// So, within a product of code classes, a test whose choices are maximal in their classes
// (by `at_least_as_strong`) decides every test below it: if it is racy so are they; if the
// simulator's final states are within its allowed set, they are within theirs. The
// verification checks exactly the maximal tests (a class whose strength order has several
// maxima contributes each). Facts 2 and 3 also decide whole subtrees: below a prefix of
// choices, if the test with every later slot at its strongest choice is racy, every test
// below is; if it is race-free and the program with every later slot at its weakest code
// reaches only final states it allows, every test below is sound or racy. The monotonicities are properties of the
// model and of the simulator that tests check (tests/verify/bound_test.cpp) rather than assumptions hidden in the code.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>

#include "hsalit/codegen/gcn.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/verify/verify.hpp"

namespace hsalit::verify {

// Whether `a` is at least as strong as `b` in the HSA model (both choices of one slot):
// ordinary < rlx < scacq, screl < scar (rmws; a load is at most scacq and a store at most
// screl); among atomics and fences a wider scope includes more threads (HSA SysArch 3.3.6,
// wave < wg < agent < system); no fence < any fence; a dependency compares only with itself.
bool at_least_as_strong(const litmus::Variation& a, const litmus::Variation& b);
// The same in `model`. Only HSA's scope inclusion makes a wider scope stronger: in the hrf
// models and OpenCL's, two atomics synchronise only at the same scope (an agent-scope release
// does not synchronise with a work-group-scope acquire that a work-group-scope release does),
// so there atomics and fences of different scopes are not comparable.
bool at_least_as_strong(const litmus::Variation& a, const litmus::Variation& b, model::ModelVariant model);

// Whether `strong` is `weak` with instructions that only restrict the simulator added: waits
// inserted or made to wait for more (a wait only blocks, docs/simulator.md rule 1; a wait
// for more counters, or to lower counts, is the weaker wait and one more), L1 invalidations
// (`buffer_wbinvl1_vol`, `buffer_wbinvl1`) inserted (every line evicted, which rule 6 allows
// at any time) and `glc` set on a load (a load that misses the L1, rule 5, as after an
// eviction). Every run of the strong program is then a run of the weak one with those steps
// replaced by waiting or evictions, so its final states are among the weak program's
// (fact 3; only while lines may be evicted at any time and there is one L2).
bool code_at_least(std::span<const codegen::Instruction> strong, std::span<const codegen::Instruction> weak);

// What verifying one space cost: where a bound's time goes (BoundOptions::on_space,
// `verify-mapping --space-costs`).
struct SpaceCost {
  std::string cycle;
  std::vector<int> workgroup_of_thread, agent_of_thread;
  bool global = false, group = false;  // whether its locations include global ones, group ones
  double seconds = 0;                  // the space's search (wall, on one thread)
  double classes_seconds = 0;          // finding its shape's code classes (next to 0 when a space before had)
  // Tests asked of the model by the search (upper tests, live classes, critical-slot
  // scoring; answers the space had already are counted too), how many were racy, and how
  // many were answered by answers kept (the space's own, or with fact 6 those of a space
  // that differs only in its segments) instead of the engine; and how many of the questions
  // the engine was asked were narrowed by answers kept (BoundOptions::answers_by_strength).
  std::size_t model_queries = 0, racy_answers = 0, kept_answers = 0, narrowed_questions = 0;
  double model_seconds = 0;
  std::size_t simulations = 0;  // weakest-code simulations
  double simulation_seconds = 0;
  // Weakest programs decided without a simulation: their code keeps program order (fact 8).
  std::size_t in_program_order = 0;
  // Weakest-code simulations that decided their subtree without a model question: every
  // final state SC (BoundOptions::sc_final_states), or reached and allowed above.
  std::size_t decided_unasked = 0;
  // Weakest-code simulations answered by the run kept of a weakest program with the same
  // code classes (BoundOptions::weakest_runs_by_class), without building or compiling.
  std::size_t kept_weakest = 0;
  std::size_t checked = 0;  // tests verified one by one
  double checked_seconds = 0;
  // Decided without a search by fact 9 (every thread's code keeps in order what the model
  // needs) or fact 10 (every thread's code keeps program order in every
  // race-free test); 0 for a space searched.
  int decided_by_fact = 0;
};

struct BoundOptions {
  // The whole search's time: when it has passed, the workers stop (each after its current
  // model question or simulation), the spaces left are not searched and the report's
  // `stopped` says `time limit of S s reached after N of M spaces`, so the verdict is
  // unknown. None: no limit.
  std::optional<double> time_limit_seconds;
  // The process's resident memory (bytes, 0: none): past it the search stops the same way,
  // `memory limit of SIZE reached after N of M spaces` (the records of the tests judged, one
  // per unsupported test of a table that lacks rows, are what grows besides the searches,
  // which stop at the same limit on their own).
  std::uint64_t memory_limit = 0;
  // Check every test of the bound on its own instead of one per class (for cross-checks
  // and for measuring what the reduction saves).
  bool every_variation = false;
  // Skip the tests below a prefix when the program with every later slot at its weakest
  // code reaches only final states the strongest test below allows (fact 3 above).
  bool code_dominance = true;
  // Build the weakest program of a prefix (code_dominance) from each later slot's live code
  // classes only: a class all of whose maximal choices make the strongest test below racy
  // holds only racy tests (fact 2 above), so its code need not be covered.
  bool live_classes = true;
  // Where a prefix's weakest code fails, branch next on its critical slot: the open slot
  // whose weakening alone, in the strongest test below, allows most of the final states
  // that the weakest code reaches and that test forbids (docs/verification.md, "Critical
  // slots first"). Any order of the slots gives the same verdicts; this one splits the
  // tests that need different code before those that do not.
  bool critical_slots_first = true;
  // With critical_slots_first, where no slot weakened alone allows a forbidden final state of
  // the weakest code, branch on a slot of the first pair that does (docs/verification.md).
  bool critical_pairs = true;
  // Try the weakest code again below a slot fixed at its upper choice: the strongest test
  // below is the parent's, but the weakest program now has that slot's upper code
  // (docs/verification.md, "The upper choice's subtree"). Off, such a subtree is searched
  // slot by slot at once.
  bool weakest_code_below_upper_choice = true;
  // Below the root, ask the upper test only about the final states that the failed
  // weakest-code simulation nearest above reached beyond its own upper test: the rest is
  // allowed already (fact 2), so the answer decides the same, and it is often one a scoring
  // query gave (docs/verification.md, "Partial upper answers"). Off: the upper test is asked
  // about every final state of the weakest code that sc_final_states does not allow.
  bool partial_upper_answers = true;
  // Take the final states of the program's SC interleavings as allowed without asking the
  // model: every race-free test allows them (fact 7 above, model/sc.hpp). Off: the model is
  // asked about every final state of a weakest-code simulation.
  bool sc_final_states = true;
  // With sc_final_states, take a weakest program whose code keeps program order on the
  // machine (runner::keeps_program_order) as reaching only SC final states, without
  // simulating it (fact 8 above). Off: it is simulated.
  bool program_order_kept = true;
  // With program_order_kept, simulate such programs anyway and throw std::logic_error when
  // one reaches a final state that is not SC (a self-check for tests; it undoes the saving).
  bool check_program_order = false;
  // Ask the engine only what the space's answers kept do not decide already (fact 2): a test
  // allows what a stronger race-free test allows and nothing that a weaker one forbids, so
  // outcomes so decided are left out of the question (docs/verification.md, "Answers by
  // strength"). Off: each question is asked as it comes.
  bool answers_by_strength = true;
  // With answers_by_strength, also ask each narrowed question as it came and throw
  // std::logic_error when the answers differ (a self-check for tests; it undoes the saving).
  bool check_narrowed_answers = false;
  // Find a slot's code classes once per thread context and choices (its thread with the
  // locations renamed, their segments), shared by every shape whose thread is the same,
  // instead of once per shape (fact 1 above; docs/verification.md).
  bool shared_slot_classes = true;
  // Skip a choice whose scope a narrower one of the same slot equals in the placement, with
  // weaker code (fact 4 above; only for the `hsa` model, and where fact 3 holds).
  bool equivalent_scopes = true;
  // Skip a space whose work-groups lie in several agents when the bound also holds the
  // space with them in one agent (fact 5 above; not with `l2-per-agent`).
  bool one_agent = true;
  // Share the model's answers between the spaces of a cycle and one-work-group placement
  // that differ only in their segments (fact 6 above; only for the `hsa` model).
  bool answers_across_segments = true;
  // Keep each weakest program's simulation for its space by the code classes of its choices,
  // so that another weakest program with the same classes (the same code: a slot's classes
  // group its choices by the instructions they compile to) is neither built nor compiled
  // again; and compile a weakest program a thread at a time, each thread kept for the space
  // by the classes of its slots (a thread compiles on its own). Off: by its choices.
  bool weakest_runs_by_class = true;
  // With weakest_runs_by_class, also compile each such repeat and each weakest program whole
  // and throw std::logic_error when its code is not the kept run's or the kept threads' (a
  // self-check for tests; it undoes the saving).
  bool check_weakest_runs = false;
  // Decide a space whose threads share one work-group, each on a wave of its own, without a
  // search when every thread's code on one CU keeps in program order each pair of accesses
  // that some test of the space needs in order (fact 9 above; only for the `hsa` model).
  bool preserved_order = true;
  // Decide a space of a program without branches, barriers or dependencies, across
  // work-groups, without a search when every thread's code keeps program order for every
  // choice of its slots that a race-free test may hold (fact 10 above; only for the `hsa`
  // model). `verify-mapping --search-every-space` turns this and preserved_order off.
  bool race_free_in_order = true;
  // Search the spaces preserved_order or race_free_in_order decide anyway, and throw
  // std::logic_error when one holds a counterexample or an unknown test (a self-check for
  // tests; it undoes the saving).
  bool check_unsearched_spaces = false;
  // When set, verification stops at the first counterexample, in enumeration order, for
  // which it returns true (mutation testing needs one that the unmutated table passes): the
  // same one for every number of threads. It is called one call at a time, possibly also
  // for counterexamples after that one (found by other threads meanwhile).
  std::function<bool(const TestVerification&)> stop_at;
  // When set, called once per space verified to the end (not for the spaces decided by
  // another, nor those abandoned after stop_at), one call at a time.
  std::function<void(const SpaceCost&)> on_space;
};

struct BoundStatistics {
  std::size_t spaces = 0;               // cycle x placement x segments
  std::size_t same_program_spaces = 0;  // spaces whose programs an earlier space holds (not verified)
  // Spaces with work-groups in several agents, decided by the space with them in one agent
  // (fact 5 above; not verified).
  std::size_t decided_in_one_agent = 0;
  std::uint64_t variations = 0;     // tests in the bound, before symmetry reduction (saturating:
                                    // support::kSaturated means more than it can say)
  std::size_t classes = 0;          // products of code classes and maximal choices reached
  std::size_t checked = 0;          // distinct tests verified
  std::size_t symmetric = 0;        // products skipped as the same program as a checked test
  std::size_t racy_below_racy = 0;  // products skipped below a stronger test found racy
  // Products skipped because weaker code stays within a stronger test's allowed set.
  std::size_t decided_below_weaker = 0;
  // Products skipped because a choice's scope holds the same threads as a narrower one
  // with weaker code (fact 4 above).
  std::size_t decided_by_narrower_scope = 0;
  // Programs with the open slots at their weakest code, judged (simulated, or shown to keep
  // program order: fact 8 above).
  std::size_t weaker_code_simulations = 0;
  std::size_t weaker_code_in_program_order = 0;  // of those, the ones shown to keep program order
  // Such simulations not made: at a depth of a space where four failed and none
  // decided (verify_bound), they cost the most and decide nothing; leaving one out only
  // loses a pruning.
  std::size_t weaker_code_left_out = 0;
  std::size_t critical_branchings = 0;  // prefixes below which a critical slot was taken next
  // Spaces decided by fact 9 above (code that keeps in order every pair of accesses the
  // model needs in order: one work-group, or any number where they may split), without a
  // search.
  std::size_t decided_by_preserved_order = 0;
  // Spaces decided by fact 10 above (code that keeps program order in every race-free test),
  // without a search.
  std::size_t decided_race_free_in_order = 0;
  std::size_t compiles = 0;        // single-slot compilations that found the code classes
  double seconds_total = 0;        // wall
  double cpu_seconds_workers = 0;  // summed over the verifying threads
};

struct BoundVerification {
  // The checked tests, in enumeration order. Sound and racy ones are only counted (a bound
  // holds millions); counterexamples keep their test, outcomes and Counterexample; unknown
  // and unsupported ones keep everything.
  VerifyReport report;
  std::vector<std::string> rows_used;  // the table rows the code of the bound's tests uses
  // The counterexample BoundOptions::stop_at stopped at. The report then holds the tests of
  // the spaces up to it; the statistics count whatever the threads verified before they
  // stopped.
  std::optional<TestVerification> stopped_at;
  BoundStatistics statistics;
};

// Verifies the bound with VerifyOptions::jobs threads (one space at a time each). `progress`
// (optional) is called after each checked test, one call at a time. Races prune: before a
// slot's choices are enumerated, the test with the choices so far and every later slot at
// its strongest choice is checked, and if it is racy the tests below it are not (they are
// racy too, by the monotonicity above). Throws std::invalid_argument for bad
// generation options or an unknown target.
BoundVerification verify_bound(const litmus::GenerateOptions& bound, const codegen::MappingTable& table,
                               const VerifyOptions& options, const BoundOptions& bound_options,
                               const std::function<void(const TestVerification&)>& progress = {});

// The statistics as text for the end of `verify-mapping`'s report.
std::string render_statistics(const BoundStatistics& statistics);

}  // namespace hsalit::verify
