// libFuzzer entry point for the mapping-table reader. The bytes are written to a scratch file
// and read with `MappingTable::from_file`, as the commands read `--mapping FILE`: any input
// must be accepted or rejected with a MappingError that says why, without a crash, a hang or
// a leak, and with no other exception escaping (the API promises MappingError naming the row at fault). An
// accepted table is then used as the compiler uses it: a few small litmus tests are compiled
// with it for each of its targets that the catalog knows, in each of its flavours, with and
// without generic addressing, and printed as assembly and JSON. The compiler may refuse an
// operation the table has no row for (CompileError); anything else aborts, so the fuzzer
// reports a table that loads but crashes the compiler.
#include <unistd.h>

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
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/mapping.hpp"
#include "hsalit/codegen/target.hpp"
#include "hsalit/litmus/check.hpp"
#include "hsalit/litmus/parser.hpp"

namespace {

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "mapping_fuzzer: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// Small tests that between them use every kind of row: ordinary and atomic loads and stores
// in global and group memory, fences, read-modify-writes (cas, exchange, add), barriers.
constexpr std::string_view kTests[] = {
    R"(LISA MP
{ x = 0; flag = 0; 1:r1 = -1; }
 P0                        | P1                            ;
 w[] x 42                  | r[atomic,scacq,agent] r0 flag ;
 w[atomic,screl,wg] flag 1 | b[ne] r0, 1, Skip             ;
                           | r[] r1 x                      ;
                           | Skip:                         ;
scopes: (agent (wg 0 1))
regions: x:global, flag:global
~exists (1:r0=1 /\ 1:r1=0)
)",
    R"(LISA SB
{ x = 0; y = 0; }
 P0                          | P1                          ;
 w[atomic,rlx,system] x 1    | w[atomic,rlx,wave] y 1      ;
 f[scar,agent]               | f[scacq,system]             ;
 f[screl,wg]                 | f[scar,wave]                ;
 r[atomic,rlx,agent] r0 y    | r[atomic,scar,system] r0 x  ;
scopes: (agent (wg 0) (wg 1))
exists (0:r0=0 /\ 1:r0=0)
)",
    R"(LISA RMW
{ x = 0; }
 P0                                  | P1                                     ;
 rmw[cas,atomic,scar,agent] r0 0 1 x | rmw[atomic,scar,agent] r0 (add r0 1) x ;
 rmw[atomic,screl,system] r1 4 x     | rmw[atomic,rlx,wg] r1 2 x              ;
scopes: (agent (wg 0 1))
forall (x=3 \/ x=2 \/ x=1 \/ x=4)
)",
    R"(LISA Group
{ z = 0; y = 0; }
 P0                      | P1                      ;
 w[atomic,screl,wg] z 1  | r[atomic,scacq,wg] r0 z ;
 barrier                 | barrier                 ;
 w[] y 1                 | r[] r1 y                ;
 rmw[atomic,scar,wg] r2 3 z | rmw[cas,atomic,rlx,wg] r3 1 2 y ;
scopes: (agent (wg 0 1))
regions: z:group, y:group
exists (1:r0=1)
)",
};

struct Fixture {
  std::vector<hsalit::litmus::Test> tests;
  const hsalit::codegen::TargetCatalog* catalog = nullptr;
};

const Fixture& fixture() {
  static const Fixture f = [] {
    Fixture out;
    out.catalog = &hsalit::codegen::TargetCatalog::builtin();
    for (std::string_view text : kTests) {
      hsalit::litmus::ParseResult parsed = hsalit::litmus::parse_litmus(text);
      if (!parsed.ok()) finding("a fixture test does not parse", parsed.diagnostics.render("fixture"));
      out.tests.push_back(std::move(*parsed.test));
    }
    return out;
  }();
  return f;
}

// The file the reader reads: one per process, in the temporary folder.
const std::filesystem::path& scratch_file() {
  static const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("hsalit-mapping-fuzzer-" + std::to_string(::getpid()) + ".json");
  return file;
}

void write_scratch(std::string_view bytes) {
  std::ofstream out(scratch_file(), std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) finding("cannot write the scratch file", scratch_file().string());
}

void compile_with(const hsalit::codegen::MappingTable& table) {
  using namespace hsalit::codegen;
  const Fixture& f = fixture();
  // A fuzzed table may list many targets and flavours; a few of each are enough.
  std::size_t targets = 0;
  for (const std::string& name : table.targets()) {
    const Target* target = f.catalog->find(name);
    if (!target) continue;
    if (++targets > 3) break;
    std::size_t flavours = 0;
    for (const std::string& flavour : table.flavours()) {
      if (++flavours > 2) break;
      for (bool generic : {false, true}) {
        for (const hsalit::litmus::Test& test : f.tests) {
          CompileOptions options{flavour, generic, generic};
          try {
            CompiledTest compiled = compile(test, *target, *f.catalog, table, options);
            std::string assembly = emit_assembly(compiled, test);
            std::string json = to_json(compiled).dump();
            if (assembly.empty() || json.empty()) finding("empty output", name);
          } catch (const CompileError& e) {
            if (std::string_view(e.what()).empty()) finding("CompileError without a message", name);
          }
        }
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace hsalit::codegen;
  write_scratch(std::string_view(reinterpret_cast<const char*>(data), size));
  std::optional<MappingTable> table;
  try {
    table = MappingTable::from_file(scratch_file());
  } catch (const MappingError& e) {
    if (std::string_view(e.what()).empty()) finding("rejected without a message", "");
    return 0;
  } catch (const std::exception& e) {
    finding("from_file threw something other than MappingError", e.what());
  }
  try {
    compile_with(*table);
  } catch (const std::exception& e) {
    finding("compiling with an accepted table threw", e.what());
  }
  return 0;
}
