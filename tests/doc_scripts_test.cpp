// The Slurm array scripts of docs/clusters.md, run as a task would run them with a stand-in
// hsalit: a task fails only on an error (exit status 2), not on a finding (1), in both the
// campaign array and the verification array.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using test_support::Outcome;
using test_support::quote;
using test_support::read_file;

// The `#!/usr/bin/env bash` scripts of a Markdown page, in order.
std::vector<std::string> bash_scripts(const std::string& page) {
  std::vector<std::string> out;
  const std::string open = "```sh\n#!/usr/bin/env bash\n";
  for (std::size_t at = page.find(open); at != std::string::npos; at = page.find(open, at + 1)) {
    const std::size_t start = at + 6;  // after "```sh\n"
    out.push_back(page.substr(start, page.find("```", start) - start));
  }
  return out;
}

class DocScripts : public test_support::CliFolder {};

TEST_F(DocScripts, ClusterArraysFailATaskOnlyOnAnError) {
  const std::vector<std::string> scripts =
      bash_scripts(read_file(fs::path(HSALIT_SOURCE_DIR) / "docs" / "clusters.md"));
  ASSERT_EQ(scripts.size(), 2u) << "the campaign array and the verification array";
  // A stand-in for build/bin/hsalit that records its arguments and exits with $STUB_STATUS.
  write("build/bin/hsalit", "#!/bin/sh\necho \"$@\" >> \"$STUB_LOG\"\nexit \"$STUB_STATUS\"\n");
  fs::permissions(dir_ / "build" / "bin" / "hsalit", fs::perms::owner_all);
  for (std::size_t s = 0; s < scripts.size(); ++s) {
    const std::string script = write("task" + std::to_string(s) + ".sh", scripts[s]);
    for (int status : {0, 1, 2}) {
      SCOPED_TRACE("script " + std::to_string(s) + ", hsalit exits " + std::to_string(status));
      fs::remove(dir_ / "calls");
      const std::string env = "SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_ID=2 SLURM_CPUS_PER_TASK=2 CAMPAIGN_DIR=" +
                              quote((dir_ / "c").string()) + " VERIFY_DIR=" + quote((dir_ / "v").string()) +
                              " STUB_LOG=" + quote((dir_ / "calls").string()) +
                              " STUB_STATUS=" + std::to_string(status);
      Outcome r = run("/bin/sh", {"-c", "cd " + quote(dir_.string()) + " && " + env + " bash " + quote(script)});
      if (status == 2)
        EXPECT_NE(r.status, 0) << "an error must fail the task";
      else
        EXPECT_EQ(r.status, 0) << r.err;
      const std::string calls = read_file(dir_ / "calls");
      EXPECT_NE(calls.find("2/"), std::string::npos) << "the task's shard is not passed: " << calls;
    }
  }
}

}  // namespace
