// The bundled library (litmus/library/) against its expected verdicts: one test per file,
// under every model variant, with both engines. The verdict is `racy` when the model finds
// a race, else `allowed` when some outcome satisfies the condition's proposition, else
// `forbidden`; it must equal the file's entry in its folder's expected.json (the variant's
// key, or "hsa" when the entry has none), and the two engines must list the same outcomes.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "differential.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/model/checker.hpp"

namespace hsalit::testing {
namespace {

namespace fs = std::filesystem;
using model::ModelVariant;

const fs::path kLibrary = fs::path(HSALIT_SOURCE_DIR) / "litmus" / "library";

struct LibraryFile {
  fs::path path;
  std::string name;  // a GoogleTest name: folder_file with every other character as '_'
};

void PrintTo(const LibraryFile& f, std::ostream* os) { *os << fs::relative(f.path, kLibrary).string(); }

std::string sanitise(const std::string& text) {
  std::string out;
  for (char c : text) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

std::vector<LibraryFile> library_files() {
  std::vector<LibraryFile> files;
  std::set<std::string> names;
  for (const fs::path& p : litmus::collect_litmus_files({kLibrary})) {
    if (!fs::exists(p)) continue;  // collect_litmus_files returns a missing input as is
    std::string base = sanitise(fs::relative(p, kLibrary).replace_extension().string());
    std::string name = base;
    for (int k = 2; !names.insert(name).second; ++k) name = fmt::format("{}_{}", base, k);
    files.push_back({p, name});
  }
  return files;
}

// expected.json of a folder, read once.
const std::map<std::string, litmus::ExpectedVerdict>& expectations(const fs::path& folder) {
  static std::map<fs::path, std::map<std::string, litmus::ExpectedVerdict>> cache;
  auto it = cache.find(folder);
  if (it == cache.end()) it = cache.emplace(folder, litmus::read_expected_verdicts(folder)).first;
  return it->second;
}

TEST(LibraryVerdicts, LibraryIsNotEmpty) {
  ASSERT_TRUE(fs::is_directory(kLibrary)) << kLibrary;
  EXPECT_FALSE(library_files().empty()) << "no .litmus files under " << kLibrary;
}

// Every test has an expectation and every expectation names a test.
TEST(LibraryVerdicts, SidecarsMatchTheFiles) {
  std::map<fs::path, std::set<std::string>> files_by_folder;
  for (const LibraryFile& f : library_files()) files_by_folder[f.path.parent_path()].insert(f.path.filename().string());
  ASSERT_FALSE(files_by_folder.empty());
  for (const auto& [folder, files] : files_by_folder) {
    const auto& expected = expectations(folder);
    for (const std::string& f : files)
      EXPECT_TRUE(expected.count(f)) << folder / "expected.json"
                                     << " has no entry for " << f;
    for (const auto& [f, e] : expected) {
      EXPECT_TRUE(files.count(f)) << folder / "expected.json"
                                  << " names " << f << ", which is not in the folder";
      EXPECT_TRUE(e.by_model.count("hsa")) << f << " has no \"hsa\" verdict";
      for (const auto& [m, v] : e.by_model) {
        EXPECT_TRUE(model::model_variant_from_string(m).has_value()) << f << ": model " << m;
        EXPECT_TRUE(v == "allowed" || v == "forbidden" || v == "racy") << f << ": " << v;
      }
    }
  }
}

// CheckOptions::stop_at_race (what verify-mapping's bounds ask): every test races exactly
// when it races without it, a race-free test keeps its outcomes, and a racy one reports a
// race and some of its outcomes (fewer for some tests: the enumeration did stop).
TEST(LibraryVerdicts, StoppingAtTheFirstRaceKeepsWhetherATestRaces) {
  std::size_t racy = 0, cut_short = 0;
  for (const LibraryFile& file : library_files()) {
    SCOPED_TRACE(file.name);
    litmus::ParseResult parsed = litmus::parse_litmus_file(file.path);
    ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render(file.path.string());
    model::CheckOptions o;
    o.engine = model::Engine::Enum;
    const model::CheckResult whole = model::check(*parsed.test, o);
    o.stop_at_race = true;
    const model::CheckResult fast = model::check(*parsed.test, o);
    ASSERT_FALSE(whole.unknown() || fast.unknown());
    ASSERT_EQ(fast.racy, whole.racy);
    if (!whole.racy) {
      EXPECT_EQ(fast.outcomes, whole.outcomes);
      continue;
    }
    ++racy;
    EXPECT_TRUE(fast.race.has_value());
    EXPECT_TRUE(
        std::includes(whole.outcomes.begin(), whole.outcomes.end(), fast.outcomes.begin(), fast.outcomes.end()));
    cut_short += fast.outcomes.size() < whole.outcomes.size() ? 1 : 0;
  }
  EXPECT_GT(racy, 10u);
  EXPECT_GT(cut_short, 0u);
}

// Why the hrf variants cannot give `test` another verdict than hsa's, or nullopt where that
// needs an argument of its own. The variants differ from hsa only where scoped operations of
// different effective scopes meet (no scope inclusion: Match and the sc domains), and in
// hhb chains across scope instances (hrf-direct); they only ever take synchronisation away.
std::optional<std::string> variants_cannot_differ(const litmus::Test& test, const std::string& hsa_verdict) {
  // Fewer Match pairs and fewer hhb edges keep every consistent execution and every race:
  // a test racy under hsa is racy under both variants.
  if (hsa_verdict == "racy") return "racy under hsa";
  using litmus::Scope;
  using litmus::Segment;
  // Per segment, the effective scopes of the operations that may Match there (atomics on its
  // locations, fences, barriers); and the effective scopes of the synchronising operations
  // (acquire, release or sc atomics, fences), which make the sc domains and sso.
  std::map<Segment, std::set<Scope>> matching;
  std::set<Scope> synchronising;
  std::set<int> synchronising_threads;
  auto effective = [](Scope s, Segment segment) {
    return segment == Segment::Group ? std::min(s, Scope::WorkGroup) : s;
  };
  bool scoped = false;
  for (const litmus::Thread& t : test.threads)
    for (const litmus::Instruction& i : t.code) {
      const bool fence = i.kind == litmus::OpKind::Fence, barrier = i.kind == litmus::OpKind::Barrier;
      const bool atomic = i.is_memory_access() && i.annots.atomic;
      if (!fence && !barrier && !atomic) continue;
      scoped = true;
      // A location reached through a register may be in either segment.
      std::vector<Segment> segments{Segment::Global, Segment::Group};
      if (atomic && i.addr.base.is_location()) segments = {test.segment_of(i.addr.base.name)};
      for (Segment segment : segments)
        matching[segment].insert(barrier ? Scope::WorkGroup : effective(i.annots.scope, segment));
      if (fence || (atomic && i.annots.order != litmus::MemoryOrder::Relaxed)) {
        for (Segment segment : segments)
          synchronising.insert(fence ? i.annots.scope : effective(i.annots.scope, segment));
        synchronising_threads.insert(t.id);
      }
    }
  if (!scoped) return "no atomic, fence or barrier";
  for (const auto& [segment, scopes] : matching)
    if (scopes.size() > 1) return std::nullopt;       // inclusion may decide a Match
  if (synchronising.size() > 1) return std::nullopt;  // sso of two levels: hrf-direct may cut a chain
  if (synchronising.empty()) return "one scope per segment, no synchronisation";
  // The sc domains of one scope S: under hsa an instance of a narrower scope holding two
  // synchronising threads is a domain too, unless it holds every synchronising thread (the
  // same events as the S instance's domain).
  const Scope only = *synchronising.begin();
  for (int level = static_cast<int>(Scope::Wavefront); level < static_cast<int>(only); ++level)
    for (int a : synchronising_threads)
      for (int b : synchronising_threads)
        if (a < b && test.scopes.same_instance(a, b, static_cast<Scope>(level)))
          for (int c : synchronising_threads)
            if (!test.scopes.same_instance(a, c, static_cast<Scope>(level))) return std::nullopt;
  return "one scope per segment and one synchronising scope";
}

// The classes of litmus/library/README.md, "Tests whose verdict the hrf variants cannot
// change": per class (`- `class` (N): ...`), the tests named in backquotes up to the next one.
std::map<std::string, std::vector<std::string>> listed_in_readme() {
  std::ifstream in(kLibrary / "README.md");
  std::map<std::string, std::vector<std::string>> out;
  std::string line, reason;
  bool in_section = false;
  while (std::getline(in, line)) {
    if (line.starts_with("## ")) in_section = line == "## Tests whose verdict the hrf variants cannot change";
    if (!in_section) continue;
    std::size_t from = 0;
    if (line.starts_with("- `")) {
      reason = line.substr(3, line.find('`', 3) - 3);
      out[reason];
      from = line.find(':');
    } else if (!line.starts_with("  `") || reason.empty()) {
      continue;
    }
    for (std::size_t open; (open = line.find('`', from)) != std::string::npos; from = line.find('`', open + 1) + 1)
      out[reason].push_back(line.substr(open + 1, line.find('`', open + 1) - open - 1));
  }
  return out;
}

// The library's expected.json gives an hrf verdict only where it differs from hsa's. Each test
// without one is a test whose verdict the variants cannot change (variants_cannot_differ), or
// its `why` argues it for the variants; the list is in litmus/library/README.md.
TEST(LibraryVerdicts, VariantsTakeTheHsaVerdictOnlyWhereTheyCannotChangeIt) {
  std::map<std::string, std::vector<std::string>> by_reason;
  std::size_t changed = 0;
  for (const LibraryFile& file : library_files()) {
    const auto& entry = expectations(file.path.parent_path()).at(file.path.filename().string());
    litmus::ParseResult parsed = litmus::parse_litmus_file(file.path);
    ASSERT_TRUE(parsed.ok()) << file.path;
    const std::string name = fs::relative(file.path, kLibrary).replace_extension().string();
    if (entry.by_model.count("hrf-indirect") || entry.by_model.count("hrf-direct")) {
      // The classification is sound on the tests whose verdict a variant does change.
      const auto reason = variants_cannot_differ(*parsed.test, entry.by_model.at("hsa"));
      EXPECT_FALSE(reason.has_value()) << name << ": a variant changes its verdict, yet " << *reason;
      ++changed;
      continue;
    }
    if (const auto reason = variants_cannot_differ(*parsed.test, entry.by_model.at("hsa"))) {
      by_reason[*reason].push_back(name);
      continue;
    }
    by_reason["argued in its why"].push_back(name);
    EXPECT_NE(entry.why.find("variants"), std::string::npos)
        << name << ": without an hrf verdict, its why must argue that the variants give the hsa verdict";
  }
  EXPECT_GT(changed, 10u);  // the classification was held against tests a variant changes
  EXPECT_EQ(by_reason, listed_in_readme()) << "litmus/library/README.md lists other tests per class";
}

class LibraryVerdict : public ::testing::TestWithParam<LibraryFile> {};

TEST_P(LibraryVerdict, BothEnginesGiveTheExpectedVerdict) {
  const LibraryFile& file = GetParam();
  litmus::ParseResult parsed = litmus::parse_litmus_file(file.path);
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render(file.path.string());
  const litmus::Test& test = *parsed.test;
  const auto& expected = expectations(file.path.parent_path());
  auto entry = expected.find(file.path.filename().string());
  ASSERT_NE(entry, expected.end()) << "no entry in expected.json";
  for (ModelVariant v : {ModelVariant::Hsa, ModelVariant::HrfIndirect, ModelVariant::HrfDirect}) {
    SCOPED_TRACE(fmt::format("model {}", to_string(v)));
    const std::string* want = entry->second.verdict_under(to_string(v));
    ASSERT_NE(want, nullptr) << "no \"hsa\" verdict";
    EngineComparison c = compare_engines(test, v);
    for (const model::CheckResult* r : {&c.z3, &c.enumeration}) {
      ASSERT_FALSE(r->unknown()) << to_string(r->engine) << ": " << *r->unknown_reason;
      EXPECT_EQ(library_verdict(*r), *want)
          << to_string(r->engine) << " engine: " << describe_result(*r)
          << (r->race ? fmt::format("\n  race: {} / {}", r->race->first, r->race->second) : "")
          << "\n  why (expected.json): " << entry->second.why;
    }
    EXPECT_TRUE(c.agree) << c.difference;
  }
}

INSTANTIATE_TEST_SUITE_P(Library, LibraryVerdict, ::testing::ValuesIn(library_files()),
                         [](const ::testing::TestParamInfo<LibraryFile>& info) { return info.param.name; });

}  // namespace
}  // namespace hsalit::testing
