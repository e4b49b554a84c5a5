// The real assembler as referee: every program generated for every bundled test and every
// target assembles with Debian's llvm-mc of a version that knows the target, and so does
// every row of every shipped mapping table.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>

#include "compile_support.hpp"
#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"

namespace hsalit::codegen {
namespace {

namespace fs = std::filesystem;

struct ToolResult {
  int status = -1;
  std::string output;
};

// Runs llvm-mc-VERSION (the target's, or `llvm`) on `text` for the target with `flags` (the
// target's assembler flags at its default wave size unless given); the output holds its
// diagnostics.
ToolResult assemble(const Target& target, const std::string& text, int llvm = 0,
                    std::optional<std::vector<std::string>> flags = std::nullopt) {
  fs::path dir = fs::temp_directory_path() / fmt::format("hsalit-asm-{}-{}", ::getpid(), target.name);
  fs::create_directories(dir);
  fs::path source = dir / "test.s";
  std::ofstream(source) << text;
  std::string command = fmt::format(
      "llvm-mc-{} -triple=amdgcn-amd-amdhsa -mcpu={} {} -filetype=obj -o /dev/null {} 2>&1", llvm ? llvm : target.llvm,
      target.name, fmt::join(flags ? *flags : assembler_flags(target, target.wave_size), " "), source.string());
  ToolResult r;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return r;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) r.output.append(buffer, n);
  r.status = ::pclose(pipe);
  fs::remove_all(dir);
  return r;
}

std::string first_lines(const std::string& s, int n = 12) {
  std::string out;
  std::size_t at = 0;
  for (int i = 0; i < n && at < s.size(); ++i) {
    std::size_t nl = s.find('\n', at);
    out += s.substr(at, nl == std::string::npos ? std::string::npos : nl - at + 1);
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

std::vector<litmus::Test> library() {
  std::vector<litmus::Test> out;
  for (const fs::path& f : litmus::collect_litmus_files({fs::path(HSALIT_SOURCE_DIR) / "litmus/library"})) {
    litmus::ParseResult r = litmus::parse_litmus_file(f);
    EXPECT_TRUE(r.ok()) << f;
    if (r.ok()) out.push_back(std::move(*r.test));
  }
  return out;
}

// Operations a shipped table has no row for because its source document has none, and the
// tgsplit flavour's refusal of group locations (compile_support.hpp): the compiler must say
// so (and does: the message names the operation), not invent a sequence.
bool known_gap(const std::string& table, const std::string& error) {
  return test_support::stated_refusal(table, error).has_value();
}

class EveryTarget : public ::testing::TestWithParam<std::string> {};

// Each bundled test with the target's own table, in every flavour, and through generic
// addresses, as one text with labels made unique per test; `programs` counts them.
std::string bundled_programs(const Target& target, bool wave64, int& programs) {
  const TargetCatalog& catalog = TargetCatalog::builtin();
  MappingTable table = MappingTable::builtin(target.mapping);
  std::vector<litmus::Test> tests = library();
  EXPECT_FALSE(tests.empty());
  std::string all;
  programs = 0;
  for (const std::string& flavour : table.flavours())
    for (bool generic : {false, true}) {
      if (generic && !target.flat) continue;  // GFX6 has no flat instructions
      for (std::size_t k = 0; k < tests.size(); ++k) {
        CompiledTest c;
        CompileOptions options{flavour, generic};
        options.wave64 = wave64;
        try {
          c = compile(tests[k], target, catalog, table, options);
        } catch (const CompileError& e) {
          if (!known_gap(table.name(), e.what()))
            ADD_FAILURE() << tests[k].name << " (" << flavour << (generic ? ", generic" : "") << "): " << e.what();
          continue;
        }
        std::string text = emit_assembly(c, tests[k]);
        text = std::regex_replace(text, std::regex("\\bP([0-9]+)_"), fmt::format("T{}_P$1_", programs));
        all += text;
        ++programs;
      }
    }
  return all;
}

// One assembler run per target, at its default wave size (wave32 from GFX10).
TEST_P(EveryTarget, BundledTestsAssemble) {
  const Target& target = TargetCatalog::builtin().get(GetParam());
  int programs = 0;
  const std::string all = bundled_programs(target, false, programs);
  if (target.llvm == 0) {
    // No Debian LLVM knows this target yet; say so, and notice when one does.
    Target newest = target;
    newest.llvm = 19;
    EXPECT_NE(assemble(newest, "s_endpgm\n").output.find("is not a recognized processor"), std::string::npos)
        << "llvm-mc-19 now knows " << target.name << ": set its \"llvm\" in codegen/targets.json";
    GTEST_SKIP() << target.name << ": no Debian 12 llvm-mc assembles it";
  }
  ToolResult r = assemble(target, all);
  EXPECT_EQ(r.status, 0) << "llvm-mc-" << target.llvm << " on " << programs << " programs for " << target.name << ":\n"
                         << first_lines(r.output);
}

// Every row of every shipped table, expanded for each of its targets and flavours around a
// stand-in access: the instructions and cache bits exist on the target.
TEST_P(EveryTarget, EveryTableRowAssembles) {
  const TargetCatalog& catalog = TargetCatalog::builtin();
  const Target& target = catalog.get(GetParam());
  if (target.llvm == 0) GTEST_SKIP() << target.name << ": no Debian 12 llvm-mc assembles it";
  std::string all;
  int rows = 0;
  for (const std::string& name : MappingTable::builtin_names()) {
    MappingTable table = MappingTable::builtin(name);
    if (!table.supports_target(target.name)) continue;
    for (const MappingRow& row : table.rows()) {
      if (!row.targets.empty() && !row.targets.count(target.name)) continue;
      for (const std::string& flavour : table.flavours()) {
        std::optional<Instruction> access;
        if (!row.operations.count(Operation::Fence)) {
          MemoryOperation op;
          op.operation = *row.operations.begin();
          op.space = *row.spaces.begin();
          if (op.space == AddressSpace::Generic && !target.flat) continue;
          if (op.space == AddressSpace::Private || op.space == AddressSpace::Constant) op.space = AddressSpace::Global;
          access = sample_access(op, target, catalog);
        }
        all += fmt::format("; {} {} {}\n", name, row.id, flavour);
        for (const Instruction& i : expand_row(row, target, access, flavour)) all += "  " + print(i) + "\n";
        ++rows;
      }
    }
  }
  ASSERT_GT(rows, 0) << "no table row applies to " << target.name;
  ToolResult r = assemble(target, all);
  EXPECT_EQ(r.status, 0) << "llvm-mc-" << target.llvm << " on " << rows << " expanded rows for " << target.name << ":\n"
                         << first_lines(r.output);
}

// The targets with two wave sizes (GFX10 and later); the others have one, 64.
std::vector<std::string> targets_with_two_wave_sizes() {
  std::vector<std::string> out;
  for (const std::string& name : TargetCatalog::builtin().names())
    if (TargetCatalog::builtin().get(name).generation >= 10) out.push_back(name);
  return out;
}

class TwoWaveSizes : public ::testing::TestWithParam<std::string> {};

// GFX10 and later: stock `llvm-mc-19 -mcpu=TARGET`, with no -mattr, assembles the default
// (wave32) code; the wave64 code assembles with -mattr=+wavefrontsize64.
TEST_P(TwoWaveSizes, BundledTestsAssembleWithStockLlvmMc19InBothWaveSizes) {
  const Target& target = TargetCatalog::builtin().get(GetParam());
  int programs = 0;
  const std::string wave32 = bundled_programs(target, false, programs);
  ToolResult r = assemble(target, wave32, 19, std::vector<std::string>{});
  EXPECT_EQ(r.status, 0) << "llvm-mc-19 -mcpu=" << target.name << " on " << programs << " wave32 programs:\n"
                         << first_lines(r.output);
  const std::string wave64 = bundled_programs(target, true, programs);
  ToolResult r64 = assemble(target, wave64, 19, assembler_flags(target, 64));
  EXPECT_EQ(r64.status, 0) << "llvm-mc-19 -mcpu=" << target.name << " -mattr=+wavefrontsize64 on " << programs
                           << " wave64 programs:\n"
                           << first_lines(r64.output);
  // The wave32 code is not wave64 code: the assembler tells them apart.
  EXPECT_NE(assemble(target, wave32, 19, assembler_flags(target, 64)).status, 0);
}

INSTANTIATE_TEST_SUITE_P(Targets, EveryTarget, ::testing::ValuesIn(TargetCatalog::builtin().names()),
                         [](const auto& info) { return info.param; });
INSTANTIATE_TEST_SUITE_P(Targets, TwoWaveSizes, ::testing::ValuesIn(targets_with_two_wave_sizes()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hsalit::codegen
