// The model's rules on single events and pairs that do not depend on an execution: the
// effective scope (HSA SysArch 3.3.6), Match, membership of sc_S domains (3.10) and the
// conflict kinds (3.12). Both engines call these, so the rules have one definition.
#pragma once

#include <cstdint>
#include <optional>

#include "hsalit/model/program.hpp"

namespace hsalit::model {

// The scope an event acts with when it synchronises through a location of `segment`:
// group-segment operations act at most at work-group scope (3.3.6). For an access the
// segment is its own; for a fence it is the segment of the location it synchronises through.
Scope effective_scope(const StaticEvent& e, std::optional<Segment> segment);

// Does `e` specify scope instance `s` (directly, or through inclusion for hsa/hrf-direct)?
bool specifies(const Program& p, const StaticEvent& e, const ScopeInstance& s, std::optional<Segment> segment,
               ModelVariant variant);

// Match(SI(x), SI(y)) of 3.3.6: same thread, or a common scope instance.
bool match(const Program& p, const StaticEvent& x, const StaticEvent& y, std::optional<Segment> segment,
           ModelVariant variant);

// Membership of Dom(sc_S) (3.10): synchronizing operations of threads in S that specify S.
bool in_sc_domain(const Program& p, const StaticEvent& e, const ScopeInstance& s, ModelVariant variant);

// The domains of the sc_S orders that can constrain an execution (3.10). A domain within one
// thread is dropped: its order is po, which hhb, coh and every other order contain already.
// Instances with the same domain are kept once: their orders must agree on every pair anyway.
struct ScDomain {
  int instance = 0;         // index into Program::scope_instances()
  std::vector<int> events;  // static event ids, ascending
};
std::vector<ScDomain> sc_domains(const Program& p, ModelVariant variant);

// OpenCL 2.0's inclusive scopes (`incl` of the formalisation, docs/model.md "The OpenCL
// model"): two atomics or fences of different threads with the same scope, work-group,
// device or all-svm-devices, both in one instance of it. Work-item scope (HSA's wi and wave)
// includes no other thread. The formalisation's conservative `incl`: a work-group-scope and a
// device-scope atomic of one work-group are not inclusive.
bool opencl_inclusive(const Program& p, const StaticEvent& x, const StaticEvent& y);

enum class Conflict : std::uint8_t { None, Ordinary, Special };
std::string_view to_string(Conflict c);

// The conflict kind of two accesses by different threads to the same memory cell (3.12):
// ordinary when one writes and one is ordinary; special when both are atomic and they differ
// in size, or one writes and they do not Match. Under the OpenCL model: ordinary when one
// writes and one is not atomic, special when one writes and they are not inclusive
// (`opencl_inclusive`), the formalisation's `dr` without its hb part.
// `x_writes`/`y_writes` say whether each access writes in the execution at hand (a failed
// compare-and-swap only reads).
Conflict conflict(const Program& p, const StaticEvent& x, bool x_writes, const StaticEvent& y, bool y_writes,
                  ModelVariant variant);

// Two conflicting accesses (static event ids, first < second).
struct RaceWitness {
  int first = -1, second = -1;
  Conflict kind = Conflict::None;
};

// Where two accesses must be to count in first_conflict: possibly one cell (the same
// location, or an address held in a register), or certainly one (the same location, and
// for a group location the same work-group's copy).
enum class SameCell : std::uint8_t { Possibly, Certainly };

// The first pair of accesses of different threads in `where` that conflict, taking every
// access that may write as writing.
std::optional<RaceWitness> first_conflict(const Program& p, ModelVariant variant, SameCell where);

// Whether some candidate execution of `p` may race: two accesses of different threads that
// may touch one cell conflict (first_conflict, SameCell::Possibly). When false, no execution
// races, whatever hhb orders: a conflict needs such a pair (3.12), and one that writes less
// conflicts less.
bool may_race(const Program& p, ModelVariant variant);

// No execution of `p` races (`may_race` is false) and every access names its location, so
// that no consistent execution touches an address that is not one: which of some outcomes
// the program allows is then answered by the executions with those outcomes alone.
bool cannot_race(const Program& p, ModelVariant variant);

}  // namespace hsalit::model
