#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "hsalit/results/campaign.hpp"

namespace hsalit::results {

CampaignResults merge_results(std::span<const CampaignResults> parts, std::span<const std::string> sources) {
  if (parts.empty()) throw ResultsError("error: nothing to merge");
  auto source = [&](std::size_t i) { return i < sources.size() ? sources[i] : fmt::format("part {}", i + 1); };
  CampaignResults merged;
  merged.info = parts[0].info;
  const nlohmann::json key = parts[0].info.configuration_key();
  std::map<std::string, std::size_t> owner;  // test file -> part
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
    merged.info.started = std::min(merged.info.started, info.started);
    merged.info.finished = std::max(merged.info.finished, info.finished);
    merged.info.wall_seconds = std::max(merged.info.wall_seconds, info.wall_seconds);
    for (const TestRecord& t : parts[i].tests) {
      auto [it, inserted] = owner.emplace(t.file, i);
      if (!inserted)
        throw ResultsError(
            fmt::format("{}: error: test {} is also in {}; refusing to merge", source(i), t.file, source(it->second)));
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
