// libFuzzer entry point for the readers of a campaign's stored results: results.json
// (`read_results`, which `hsalit report` and `hsalit merge` use) and the journal
// (`read_journal`, which `--resume` uses). The bytes are written to a scratch file and given to
// both readers, as the commands give them a file. Any input must be accepted or rejected with
// a ResultsError that says why, without a crash, a hang, a leak or another exception.
//
// An accepted results set (for a journal: its header and records, sorted as a finished
// campaign sorts them) must then render its four reports (Markdown, HTML, JUnit, log) and
// survive the JSON form: to_json, read back in memory and through text (as results.json is
// written), gives the same JSON and the same reports. Any disagreement aborts, so the fuzzer
// reports it as a crash.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "hsalit/results/campaign.hpp"
#include "hsalit/results/journal.hpp"
#include "hsalit/results/report.hpp"

namespace {

using hsalit::results::CampaignResults;

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "results_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// The file both readers read: one per process, in the temporary folder.
const std::filesystem::path& scratch_file() {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("hsalit-results-fuzzer-" + std::to_string(::getpid()) + ".json");
  return file;
}

void write_scratch(std::string_view bytes) {
  std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) finding("cannot write the scratch file", scratch_file().string());
}

// No Graphviz: the reports must not depend on it being installed, and the fuzzer must not
// spawn processes. A fixed drawing stands in for it so that the drawing's path is used too.
std::optional<std::string> fake_dot(std::string_view dot) {
  if (dot.empty()) return std::nullopt;
  return std::string("<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>");
}

struct Reports {
  std::string markdown, html, junit, log;
  friend bool operator==(const Reports&, const Reports&) = default;
};

Reports render(const CampaignResults& results) {
  using namespace hsalit::results;
  Reports r{render_markdown(results), render_html(results, fake_dot), render_junit(results), render_log(results)};
  (void)settings_text(results.info);
  (void)results.summary();
  (void)results.info.configuration_key().dump();
  if (results.verification) {
    (void)verification_text(*results.verification);
    (void)results.verification->verdict();
  }
  return r;
}

CampaignResults read_back(const nlohmann::json& doc, const char* how) {
  try {
    return hsalit::results::campaign_results_from_json(doc, "");
  } catch (const std::exception& e) {
    finding(how, std::string(e.what()) + "\n" + doc.dump(1, ' ', true));
  }
}

void check_accepted(const CampaignResults& results) {
  const Reports reports = render(results);
  const nlohmann::json doc = hsalit::results::to_json(results);
  std::string text;
  try {
    text = doc.dump(1);  // as write_results writes results.json
  } catch (const nlohmann::json::exception& e) {
    finding("to_json(results).dump() throws", e.what());
  }
  const CampaignResults in_memory = read_back(doc, "campaign_results_from_json(to_json(r)) throws");
  if (hsalit::results::to_json(in_memory) != doc) finding("to_json(from_json(to_json(r))) != to_json(r)", text);
  if (render(in_memory) != reports) finding("the reports differ after a JSON round trip in memory", text);
  const CampaignResults through_text =
      read_back(nlohmann::json::parse(text), "the written results.json does not read back");
  if (hsalit::results::to_json(through_text) != doc) finding("the written results.json reads back different", text);
  if (render(through_text) != reports) finding("the reports differ after writing and reading results.json", text);
}

template <typename Read>
std::optional<typename std::invoke_result_t<Read>> accept_or_reject(const char* reader, Read read) {
  try {
    return read();
  } catch (const hsalit::results::ResultsError& e) {
    if (std::string_view(e.what()).empty()) finding(reader, "rejected without a message");
    return std::nullopt;
  } catch (const std::exception& e) {
    finding(reader, std::string("threw something other than ResultsError: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hsalit::results;
  write_scratch(std::string_view(reinterpret_cast<const char*>(data), size));

  if (auto results = accept_or_reject("read_results", [] { return read_results(scratch_file()); }))
    check_accepted(*results);

  if (auto journal = accept_or_reject("read_journal", [] { return read_journal(scratch_file()); })) {
    if (journal->valid_bytes > size) finding("read_journal: valid_bytes past the end", std::to_string(size));
    CampaignResults results;
    results.info = journal->info;
    results.tests = journal->records;
    std::stable_sort(results.tests.begin(), results.tests.end(),
                     [](const TestRecord& a, const TestRecord& b) { return a.file < b.file; });
    check_accepted(results);
  }
  return 0;
}
