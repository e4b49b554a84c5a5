// The end every verification shares (verify-mapping's tests, verify-llc's code).
#pragma once

#include <optional>

#include "hsalit/verify/verify.hpp"

namespace hsalit::verify::detail {

// Judges `v.compiled` for `v.test` (which observes everything), `m` being the model's
// race-free, decided answer for it: simulates exhaustively and compares. Sets `v.sim`,
// `v.forbidden`, the status and the reason, not the counterexample (its rows and code are
// the caller's: a table's rows or llc's instructions). A counterexample is checked again with
// `confirm_engine` when given: a disagreement makes the test Unknown, naming both engines.
// Code the simulator cannot execute, a simulation cut short, and outcome sets that cannot be
// compared make the test Unknown with the reason.
void judge(TestVerification& v, const model::CheckResult& m, const runner::SimOptions& sim,
           const model::CheckOptions& model, std::optional<model::Engine> confirm_engine, VerificationCache& cache);

}  // namespace hsalit::verify::detail
