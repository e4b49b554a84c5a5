// The output folder (results/include/hsalit/results/output_folder.hpp): file names from
// hostile test names, writes refused outside the folder, the folder's lock, the refusal of
// another run's results, and write failures that say why.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "hsalit/results/atomic_file.hpp"
#include "hsalit/results/journal.hpp"
#include "hsalit/results/output_folder.hpp"

namespace {

namespace fs = std::filesystem;
using namespace hsalit::results;

class OutputFolder : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / (std::string("hsalit-output-") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// A stem is one plain name: no separator, no NUL, not `.`/`..`, not hidden, not empty.
void expect_plain(const std::string& stem) {
  EXPECT_FALSE(stem.empty());
  EXPECT_EQ(stem.find('/'), std::string::npos) << stem;
  EXPECT_EQ(stem.find('\\'), std::string::npos) << stem;
  EXPECT_EQ(stem.find('\0'), std::string::npos) << stem;
  EXPECT_NE(stem.front(), '.') << stem;
  EXPECT_NE(stem.back(), '.') << stem;
  EXPECT_LE(stem.size(), kMaxFileStem);
  for (char c : stem)
    EXPECT_TRUE(static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f) << stem;
}

TEST(SafeFileStem, KeepsPlainNamesAndDisarmsTheRest) {
  for (const char* name : {"MP+agent+agent_diff-wg", "SB+scacq.rlx_same-wg+group-x", "CoRR", "x1"})
    EXPECT_EQ(safe_file_stem(name), name);
  EXPECT_EQ(safe_file_stem("../../../tmp/escaped"), "___.._.._tmp_escaped");
  EXPECT_EQ(safe_file_stem("/tmp/escaped"), "_tmp_escaped");
  EXPECT_EQ(safe_file_stem(std::string("A\0B", 3)), "A_B");
  EXPECT_EQ(safe_file_stem("."), "_");
  EXPECT_EQ(safe_file_stem(".."), "__");
  EXPECT_EQ(safe_file_stem(".hidden."), "_hidden_");
  EXPECT_EQ(safe_file_stem(""), "_");
  EXPECT_EQ(safe_file_stem("a\\b:c*d\te\nf g"), "a_b_c_d_e_f_g");
  EXPECT_EQ(safe_file_stem("caf\xc3\xa9"), "caf__");
  for (const std::string& name : {std::string("../x"), std::string(1, '\0'), std::string("..\\..\\x"),
                                  std::string(10000, '/'), std::string("\x01\x7f")})
    expect_plain(safe_file_stem(name));
}

TEST(SafeFileStem, LongNamesAreCutAndStayDistinct) {
  const std::string a = std::string(10000, 'a') + "1", b = std::string(10000, 'a') + "2";
  EXPECT_EQ(safe_file_stem(a).size(), kMaxFileStem);
  EXPECT_NE(safe_file_stem(a), safe_file_stem(b));
  EXPECT_EQ(safe_file_stem(a), safe_file_stem(a));  // deterministic
  EXPECT_EQ(safe_file_stem(std::string(kMaxFileStem, 'x')), std::string(kMaxFileStem, 'x'));
}

TEST(OutputNames, SameNamesGetNumberedFilesIgnoringCase) {
  OutputNames names;
  EXPECT_EQ(names.claim("Same", ".dot"), "Same.dot");
  EXPECT_EQ(names.claim("Same", ".dot"), "Same~2.dot");
  EXPECT_EQ(names.claim("same", ".dot"), "same~3.dot");  // one file on a case-insensitive file system
  EXPECT_EQ(names.claim("a/b", ".dot"), "a_b.dot");
  EXPECT_EQ(names.claim("a_b", ".dot"), "a_b~2.dot");
  EXPECT_EQ(names.claim("Same", ".litmus"), "Same.litmus");
  OutputNames again;  // the same order gives the same names
  EXPECT_EQ(again.claim("Same", ".dot"), "Same.dot");
  EXPECT_EQ(again.claim("Same", ".dot"), "Same~2.dot");
}

TEST_F(OutputFolder, PathInFolderRefusesAnythingButOnePlainName) {
  EXPECT_EQ(path_in_folder(dir_, "MP.dot"), dir_ / "MP.dot");
  for (const std::string& bad : {std::string(""), std::string("."), std::string(".."), std::string("../x.dot"),
                                 std::string("/tmp/x.dot"), std::string("a/b"), std::string("a\0b", 3)}) {
    try {
      path_in_folder(dir_, bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ResultsError& e) {
      EXPECT_NE(std::string(e.what()).find("refusing to write"), std::string::npos) << e.what();
    }
  }
}

TEST_F(OutputFolder, ASecondWriterFailsFastNamingTheLockAndItsHolder) {
  {
    FolderLock first(dir_ / "out");
    try {
      FolderLock second(dir_ / "out");
      ADD_FAILURE() << "a second lock was granted";
    } catch (const ResultsError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find((dir_ / "out" / kLockFile).string()), std::string::npos) << what;
      EXPECT_NE(what.find("pid " + std::to_string(::getpid())), std::string::npos) << what;
    }
  }
  FolderLock after(dir_ / "out");  // released with its holder
}

TEST_F(OutputFolder, TheLockOfAKilledProcessIsReleased) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  if (child == 0) {
    FolderLock held(dir_ / "out");
    char c = 1;
    (void)!::write(ready[1], &c, 1);
    ::pause();
    ::_exit(0);
  }
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  EXPECT_THROW(FolderLock(dir_ / "out"), ResultsError);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  EXPECT_NO_THROW(FolderLock(dir_ / "out"));
}

TEST_F(OutputFolder, AWriteFailureSaysWhy) {
  std::ofstream(dir_ / "file") << "a file, not a folder";
  try {
    write_file_atomically(dir_ / "file" / "results.json", "{}");
    ADD_FAILURE() << "wrote below a file";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find((dir_ / "file" / "results.json").string()), std::string::npos) << what;
    EXPECT_NE(what.find("Not a directory"), std::string::npos) << what;
  }
  fs::create_directories(dir_ / "folder");
  try {
    write_file_atomically(dir_ / "folder", "{}");
    ADD_FAILURE() << "wrote over a folder";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Is a directory"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(fs::is_directory(dir_ / "folder"));
  // A writer of a long run's file (--space-costs) says so when it opens, not at its commit.
  EXPECT_THROW(AtomicFileWriter(dir_ / "folder"), std::runtime_error);
  EXPECT_FALSE(fs::exists(dir_ / ("folder.tmp." + std::to_string(::getpid()))));
}

TEST_F(OutputFolder, ALinkPlantedAtTheTemporaryNameIsNotFollowed) {
  const fs::path target = dir_ / "results.json";
  const fs::path temporary = dir_ / ("results.json.tmp." + std::to_string(::getpid()));
  std::ofstream(dir_ / "victim") << "untouched";
  fs::create_symlink(dir_ / "victim", temporary);
  write_file_atomically(target, "{}");
  std::ifstream victim(dir_ / "victim");
  std::string text((std::istreambuf_iterator<char>(victim)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "untouched");
}

CampaignResults results_of(bool verification, const std::string& target) {
  CampaignResults r;
  r.info.target = target;
  r.info.inputs = {"tests"};
  if (verification) r.verification = Verification{};
  return r;
}

TEST_F(OutputFolder, ResultsOfAnotherRunAreRefusedUnlessForced) {
  const CampaignInfo mine = results_of(true, "gfx900").info;
  EXPECT_EQ(results_of_another_run(dir_, ResultsKind::Verification, mine), std::nullopt);  // empty
  write_results(dir_ / kResultsFile, results_of(true, "gfx900"));
  EXPECT_EQ(results_of_another_run(dir_, ResultsKind::Verification, mine), std::nullopt);  // the same run again
  EXPECT_NE(results_of_another_run(dir_, ResultsKind::Campaign, mine), std::nullopt);      // another kind
  CampaignInfo other = mine;
  other.target = "gfx90a";
  EXPECT_NE(results_of_another_run(dir_, ResultsKind::Verification, other), std::nullopt);
  other = mine;
  other.inputs = {"--generate threads=3"};
  EXPECT_NE(results_of_another_run(dir_, ResultsKind::Verification, other), std::nullopt);
  EXPECT_THROW(refuse_results_of_another_run(dir_, ResultsKind::Verification, other, false), ResultsError);
  EXPECT_NO_THROW(refuse_results_of_another_run(dir_, ResultsKind::Verification, other, true));
  Journal::create(dir_ / kJournalFile, mine);  // a campaign's folder
  auto campaign = results_of_another_run(dir_, ResultsKind::Verification, mine);
  ASSERT_NE(campaign, std::nullopt);
  EXPECT_NE(campaign->find("campaign"), std::string::npos) << *campaign;
  std::ofstream(dir_ / kResultsFile) << "not json";
  fs::remove(dir_ / kJournalFile);
  EXPECT_NE(results_of_another_run(dir_, ResultsKind::Verification, mine), std::nullopt);
}

TEST_F(OutputFolder, StaleResultsAreRemovedAndNothingElse) {
  for (const char* name : {"journal.jsonl", "verify.txt", "mutation.txt", "mutation.json", "results.json", "notes.txt"})
    std::ofstream(dir_ / name) << "x";
  fs::create_directories(dir_ / "counterexamples");
  std::ofstream(dir_ / "counterexamples" / "MP.litmus") << "x";
  remove_stale_results(dir_);
  for (const char* name : {"journal.jsonl", "verify.txt", "mutation.txt", "mutation.json", "counterexamples"})
    EXPECT_FALSE(fs::exists(dir_ / name)) << name;
  EXPECT_TRUE(fs::exists(dir_ / "results.json"));  // replaced atomically by the new run
  EXPECT_TRUE(fs::exists(dir_ / "notes.txt"));
}

}  // namespace
