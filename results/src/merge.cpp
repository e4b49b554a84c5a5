#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <set>

#include "hsalit/results/campaign.hpp"
#include "hsalit/support/saturating.hpp"

namespace hsalit::results {

namespace {

// The verification of two disjoint parts of a bound: counts add up (a test that two shards
// meet counts in both), rows used join.
void join(Verification& into, const Verification& part) {
  into.tests += part.tests;
  into.sound += part.sound;
  into.counterexamples += part.counterexamples;
  into.racy += part.racy;
  into.unsupported += part.unsupported;
  into.unknown += part.unknown;
  std::vector<std::string> rows;
  std::set_union(into.rows_used.begin(), into.rows_used.end(), part.rows_used.begin(), part.rows_used.end(),
                 std::back_inserter(rows));
  into.rows_used = std::move(rows);
  // Saturating: a bound's variations can pass 2^64 (support/saturating.hpp).
  for (const auto& [name, value] : part.statistics)
    into.statistics[name] = support::saturating_add(into.statistics[name], value);
  into.cpu_seconds += part.cpu_seconds;
}

}  // namespace

CampaignResults merge_results(std::span<const CampaignResults> parts, std::span<const std::string> sources) {
  if (parts.empty()) throw ResultsError("error: nothing to merge");
  auto source = [&](std::size_t i) { return i < sources.size() ? sources[i] : fmt::format("part {}", i + 1); };
  CampaignResults merged;
  merged.info = parts[0].info;
  merged.verification = parts[0].verification;
  const nlohmann::json key = parts[0].info.configuration_key();
  std::map<std::string, std::pair<std::size_t, std::size_t>> owner;  // test file -> part, index in merged.tests
  std::set<unsigned> shard_indices;
  std::optional<unsigned> shard_count;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const CampaignInfo& info = parts[i].info;
    nlohmann::json other = info.configuration_key();
    for (const auto& [field, value] : key.items())
      if (other.value(field, nlohmann::json()) != value)
        throw ResultsError(fmt::format("{}: error: {} is {} there but {} in {}; refusing to merge", source(i), field,
                                       other.value(field, nlohmann::json()).dump(), value.dump(), source(0)));
    if (info.inputs != merged.info.inputs)
      throw ResultsError(
          fmt::format("{}: error: the inputs differ from those of {}; refusing to merge", source(i), source(0)));
    if (info.shard) {
      if (shard_count && *shard_count != info.shard->count)
        throw ResultsError(fmt::format("{}: error: a shard of {} where {} has shards of {}", source(i),
                                       info.shard->count, source(0), *shard_count));
      shard_count = info.shard->count;
      if (!shard_indices.insert(info.shard->index).second)
        throw ResultsError(
            fmt::format("{}: error: shard {}/{} is given twice", source(i), info.shard->index, info.shard->count));
    }
    if (parts[i].verification.has_value() != parts[0].verification.has_value())
      throw ResultsError(fmt::format("{}: error: {} a verification where {} {}; refusing to merge", source(i),
                                     parts[i].verification ? "holds" : "does not hold", source(0),
                                     parts[0].verification ? "does" : "does not"));
    if (i > 0 && parts[i].verification) {
      if (parts[i].verification->bound != merged.verification->bound)
        throw ResultsError(fmt::format("{}: error: a verification of {} where {} verifies {}; refusing to merge",
                                       source(i), parts[i].verification->bound, source(0), merged.verification->bound));
      join(*merged.verification, *parts[i].verification);
    }
    merged.info.started = std::min(merged.info.started, info.started);
    merged.info.finished = std::max(merged.info.finished, info.finished);
    merged.info.wall_seconds = std::max(merged.info.wall_seconds, info.wall_seconds);
    for (const TestRecord& t : parts[i].tests) {
      auto [it, inserted] = owner.try_emplace(t.file, i, merged.tests.size());
      if (!inserted) {
        // Two shards of a bound may meet one test (two cycles can give it, docs/generation.md):
        // the same test, decided the same way, is kept once.
        const TestRecord& first = merged.tests[it->second.second];
        if (parts[i].verification && first.content_hash == t.content_hash && first.verdict == t.verdict) continue;
        throw ResultsError(fmt::format("{}: error: test {} is also in {}; refusing to merge", source(i), t.file,
                                       source(it->second.first)));
      }
      merged.tests.push_back(t);
    }
  }
  // Every shard present: the merge is the whole campaign. Otherwise it stays partial.
  merged.info.shard.reset();
  if (shard_count && shard_indices.size() != *shard_count) {
    std::vector<unsigned> missing;
    for (unsigned k = 0; k < *shard_count; ++k)
      if (!shard_indices.contains(k)) missing.push_back(k);
    throw ResultsError(
        fmt::format("error: shards {} of {} are missing; merge them all", fmt::join(missing, ", "), *shard_count));
  }
  std::sort(merged.tests.begin(), merged.tests.end(),
            [](const TestRecord& a, const TestRecord& b) { return a.file < b.file; });
  return merged;
}

}  // namespace hsalit::results
