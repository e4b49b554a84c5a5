// Mutation score of a test set against a mapping table (docs/verification.md): each
// mutant removes one instruction of one row's sequence, or clears one cache-policy bit
// (glc, slc, sc0, sc1, nt, dlc) of one element; a test set kills a mutant when verifying
// the mutated table finds a counterexample. A surviving mutant is either redundant (the
// mutated table is still sound) or a sign of a missing test; verifying it on a larger
// bound tells the two apart, up to that bound.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hsalit/codegen/mapping.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/verify/verify.hpp"

namespace hsalit::verify {

// The table as a `hsalit-mapping/1` document (rows with `same_as` written out), such that
// MappingTable::from_json gives back an equivalent table.
nlohmann::json table_to_json(const codegen::MappingTable& table);

struct Mutant {
  std::string row;       // the row id
  std::string change;    // `remove element 2 (s_waitcnt vmcnt(0))`, `clear glc of the access`
  nlohmann::json table;  // the mutated table document
};

// Every mutant of the given rows, in table order, element order, bit order. With a flavour,
// not the elements the flavour leaves out (`omit_in`): removing them changes no code.
std::vector<Mutant> mutants(const codegen::MappingTable& table, std::span<const std::string> rows,
                            std::string_view flavour = {});

struct MutantResult {
  std::string row, change;
  bool killed = false;
  std::string killed_by;  // the test and the forbidden outcome
  // For a survivor checked on a larger bound: whether a counterexample appeared there.
  std::optional<bool> killed_at_larger_bound;
  std::string larger_killed_by;
};

struct MutationReport {
  std::vector<MutantResult> mutants;
  std::string bound, larger_bound;  // descriptions, for the text
  std::size_t killed() const;
};

// Verifies every mutant on `tests` (and each survivor on `larger`, when not empty). A test
// kills a mutant only if the unmutated table passes it: a test the table itself fails (a
// finding) says nothing about the mutated instruction.
// Tests are judged once by the model (the cache); only compilation and simulation repeat.
MutationReport run_mutation(std::span<const litmus::Test> tests, std::span<const litmus::Test> larger,
                            const codegen::MappingTable& table, std::span<const std::string> rows,
                            const VerifyOptions& options, VerificationCache& cache);

// The same on generated bounds: each mutant is verified on every variation of `bound` (one
// test per class of the mutated table's code, as verify_bound does), stopping at its first
// counterexample; a survivor is verified on `larger` when given.
MutationReport run_mutation(const litmus::GenerateOptions& bound, const std::optional<litmus::GenerateOptions>& larger,
                            const codegen::MappingTable& table, std::span<const std::string> rows,
                            const VerifyOptions& options);

std::string render_text(const MutationReport& report);
nlohmann::json to_json(const MutationReport& report);

}  // namespace hsalit::verify
