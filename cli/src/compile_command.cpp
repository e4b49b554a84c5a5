// `hsalit compile`: a litmus test as GCN assembly per thread, from a mapping table.
// `hsalit mappings`: list and check mapping tables. `hsalit targets`: list targets.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/llc.hpp"
#include "hsalit/codegen/llvm_ir.hpp"
#include "hsalit/codegen/mapping.hpp"
#include "hsalit/codegen/mlir.hpp"
#include "hsalit/codegen/target.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "output_file.hpp"
#include "test_files.hpp"

namespace hsalit::cli {

namespace {

struct CompileCommandOptions {
  std::vector<std::string> inputs;
  std::string target = "gfx900";
  std::string mapping_file;
  std::string table;
  std::string flavour = "hsa";
  bool sc_orders = false;
  std::string emit = "asm";
  bool generic = false;
  bool wave64 = false;
  bool volatile_ordinary = false;
  std::string via_llc;            // an llc to compare the table with, e.g. llc-19
  std::string via_mlir;           // an mlir-opt whose pipeline's code is compared, e.g. mlir-opt-19
  std::string mlir_ops = "llvm";  // --emit mlir, --via-mlir: llvm or amdgpu operations
};

// The table a command uses: a file given by the user, a shipped one by name, or the
// target's default.
codegen::MappingTable load_table(const std::string& file, const std::string& name, const codegen::Target& target) {
  if (!file.empty()) return codegen::MappingTable::from_file(file);
  return codegen::MappingTable::builtin(name.empty() ? target.mapping : name);
}

int run_compile(const CompileCommandOptions& opt) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target* target = catalog.find(opt.target);
  if (!target) {
    fmt::print(stderr, "hsalit compile: error: unknown target '{}' (known: {})\n", opt.target,
               fmt::join(catalog.names(), ", "));
    return kExitBadInput;
  }
  if (opt.emit != "asm" && opt.emit != "json" && opt.emit != "llvm-ir" && opt.emit != "mlir") {
    fmt::print(stderr, "hsalit compile: error: --emit takes asm, json, llvm-ir or mlir\n");
    return kExitBadInput;
  }
  const bool source_only = opt.emit == "llvm-ir" || opt.emit == "mlir";
  if (source_only && (!opt.via_llc.empty() || !opt.via_mlir.empty())) {  // the source alone is printed
    fmt::print(stderr, "hsalit compile: error: --via-llc and --via-mlir exclude --emit {}\n", opt.emit);
    return kExitBadInput;
  }
  if (!opt.via_mlir.empty() && opt.generic) {
    fmt::print(stderr, "hsalit compile: error: --generic is not supported with --via-mlir\n");
    return kExitBadInput;
  }
  const std::optional<codegen::MlirOps> mlir_ops = codegen::mlir_ops_from_string(opt.mlir_ops);
  if (!mlir_ops) {
    fmt::print(stderr, "hsalit compile: error: --mlir-ops takes llvm or amdgpu\n");
    return kExitBadInput;
  }
  if (opt.generic && opt.emit == "mlir") {
    fmt::print(stderr, "hsalit compile: error: --generic is not supported with --emit mlir\n");
    return kExitBadInput;
  }
  std::optional<codegen::MappingTable> table;
  try {
    table = load_table(opt.mapping_file, opt.table, *target);
  } catch (const codegen::MappingError& e) {
    // With --via-llc or --via-mlir, a target without a shipped table still shows the compiler's code.
    bool no_builtin = opt.mapping_file.empty() && opt.table.empty();
    if ((opt.via_llc.empty() && opt.via_mlir.empty()) || !no_builtin) {
      fmt::print(stderr, "{}\n", e.what());
      return kExitBadInput;
    }
    fmt::print(stderr, "hsalit compile: note: {}: showing {}'s code without a table\n", e.what(),
               opt.via_mlir.empty() ? opt.via_llc : opt.via_mlir);
  }
  // --via-llc: the llc to compare with, found before any test is read.
  std::optional<codegen::LlcTool> llc;
  if (!opt.via_llc.empty() && !source_only) {
    try {
      llc = codegen::find_llc(opt.via_llc);
    } catch (const codegen::LlcError& e) {
      fmt::print(stderr, "hsalit compile: error: {}\n", e.what());
      return kExitBadInput;
    }
  }
  // --via-mlir: the MLIR pipeline of that version.
  std::optional<codegen::MlirTools> mlir;
  if (!opt.via_mlir.empty() && !source_only) {
    try {
      mlir = codegen::find_mlir_tools(opt.via_mlir);
    } catch (const codegen::LlcError& e) {
      fmt::print(stderr, "hsalit compile: error: {}\n", e.what());
      return kExitBadInput;
    }
  }
  const codegen::LlvmIrOptions ir_options{opt.generic, opt.volatile_ordinary, opt.sc_orders};
  const codegen::MlirOptions mlir_options{*mlir_ops, opt.volatile_ordinary, opt.sc_orders};
  codegen::CompileOptions table_options{opt.flavour, opt.generic, opt.sc_orders};
  table_options.wave64 = opt.wave64;
  bool bad = false, differs = false;
  auto print_comparison = [&](const codegen::Comparison& cmp) {
    differs |= cmp.difference_count() > 0 || cmp.problem_count() > 0;
    if (opt.emit == "json")
      fmt::print("{}\n", codegen::to_json(cmp).dump());
    else
      fmt::print("{}\n", codegen::render_comparison(cmp));
  };
  std::vector<std::filesystem::path> inputs(opt.inputs.begin(), opt.inputs.end());
  for (const auto& file : litmus::collect_litmus_files(inputs)) {
    litmus::ParseResult parsed = litmus::parse_litmus_file(file);
    fmt::print(stderr, "{}", parsed.diagnostics.render(file.string()));
    if (!parsed.ok() || !fits_backend_constants(file, *parsed.test)) {
      bad = true;
      continue;
    }
    try {
      if (opt.emit == "llvm-ir") {
        fmt::print("{}", codegen::emit_llvm_ir(*parsed.test, ir_options).text);
        continue;
      }
      if (opt.emit == "mlir") {
        fmt::print("{}", codegen::emit_mlir(*parsed.test, mlir_options).text);
        continue;
      }
      if (mlir) {
        // The MLIR pipeline's code beside llc's for the same test (--via-llc), beside the
        // table's, or alone.
        codegen::LlcResult r = codegen::compile_via_mlir(*parsed.test, *target, *mlir, mlir_options);
        if (llc) {
          // llc's kernels' bodies (between the markers, tied to the litmus instructions) stand
          // where the table's code would.
          codegen::CompiledTest reference;
          reference.test = parsed.test->name;
          reference.target = target->name;
          reference.table = llc->name;
          for (const codegen::LlcThread& t : codegen::compile_via_llc(*parsed.test, *target, *llc, ir_options).threads)
            reference.threads.push_back({t.thread, t.code, {}, {}, 0, 0});
          print_comparison(codegen::compare_with_table(*parsed.test, reference, r, *target));
        } else if (table) {
          print_comparison(codegen::compare_with_table(
              *parsed.test, codegen::compile(*parsed.test, *target, catalog, *table, table_options), r, *target));
        } else {
          print_comparison(codegen::describe_llc(*parsed.test, r, false));
        }
        continue;
      }
      if (llc && !table) {
        codegen::LlcResult r = codegen::compile_via_llc(*parsed.test, *target, *llc, ir_options);
        print_comparison(codegen::describe_llc(*parsed.test, r, opt.generic));
        continue;
      }
      codegen::CompiledTest c = codegen::compile(*parsed.test, *target, catalog, *table, table_options);
      if (llc) {
        codegen::LlcResult r = codegen::compile_via_llc(*parsed.test, *target, *llc, ir_options);
        print_comparison(codegen::compare_with_table(*parsed.test, c, r, *target));
      } else if (opt.emit == "json") {
        fmt::print("{}\n", codegen::to_json(c).dump());
      } else {
        fmt::print("{}\n", codegen::emit_assembly(c, *parsed.test));
      }
    } catch (const codegen::CompileError& e) {
      fmt::print(stderr, "{}: error: {}\n", file.string(), e.what());
      bad = true;
    } catch (const codegen::LlcError& e) {
      fmt::print(stderr, "{}: error: {}\n", file.string(), e.what());
      bad = true;
    }
  }
  if (bad) return kExitBadInput;
  return differs ? kExitCheckFailed : kExitOk;
}

}  // namespace

Command add_compile_command(CLI::App& app) {
  auto opt = std::make_shared<CompileCommandOptions>();
  CLI::App* cmd =
      app.add_subcommand("compile", "Compile litmus tests to GCN assembly for a target, from a mapping table");
  cmd->add_option("inputs", opt->inputs, "litmus files or folders")->required();
  cmd->add_option("--target,--mcpu", opt->target, "processor, e.g. gfx900, gfx90a, gfx942, gfx1030 (default gfx900)");
  CLI::Option* mapping =
      cmd->add_option("--mapping", opt->mapping_file, "a mapping table file (docs/mapping-tables.md)");
  cmd->add_option("--table", opt->table, "a shipped mapping table by name (default: the target's)")->excludes(mapping);
  cmd->add_flag("--sc-orders", opt->sc_orders,
                "select seq_cst rows for scacq and screl (HSA SysArch 3.3.1) instead of acquire and release");
  cmd->add_option("--flavour", opt->flavour, "the table's flavour, e.g. hsa (default) or opencl");
  cmd->add_flag("--generic", opt->generic, "access every location through flat (generic) addresses");
  cmd->add_flag("--wave64", opt->wave64,
                "GFX10 and later: wave64 code (vcc; assemble with -mattr=+wavefrontsize64) instead of the "
                "target's default wave32 (vcc_lo)");
  cmd->add_option("--via-llc", opt->via_llc,
                  "also compile the test with this llc (e.g. llc-19) from LLVM IR and show, per memory "
                  "operation, the table's sequence beside llc's with DIFF lines; exit status 1 when they "
                  "differ");
  cmd->add_option("--via-mlir", opt->via_mlir,
                  "also compile the test through this mlir-opt's pipeline (e.g. mlir-opt-19: mlir-opt, mlir-translate "
                  "and llc of its version) and show its code per memory operation beside the table's, or beside "
                  "llc's with --via-llc; exit status 1 when they differ");
  cmd->add_flag("--volatile", opt->volatile_ordinary, "LLVM IR and MLIR: make ordinary (non-atomic) accesses volatile");
  cmd->add_option("--mlir-ops", opt->mlir_ops,
                  "--emit mlir and --via-mlir: llvm (memref and llvm dialect operations, the default) or amdgpu "
                  "(amdgpu.raw_buffer_* for global accesses, amdgpu.lds_barrier for barriers)");
  add_output_file_option(cmd);
  cmd->add_option("--emit", opt->emit,
                  "asm (default), json, llvm-ir (the test as LLVM IR, one kernel per thread) or mlir (the test as "
                  "an MLIR gpu.module, one gpu.func kernel per thread; docs/mlir.md)");
  return {cmd, [opt] { return run_compile(*opt); }};
}

Command add_mappings_command(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* cmd = app.add_subcommand("mappings", "List the shipped mapping tables, or check table files");
  CLI::App* check = cmd->add_subcommand(
      "check",
      "Check mapping table files: schema, targets, no overlapping rows, and each row's instructions, "
      "counts and cache bits against its targets (docs/mapping-tables.md)");
  check->add_option("files", *files, "mapping table files")->required();
  cmd->add_subcommand("list", "List the shipped tables with their targets and row counts");
  cmd->require_subcommand(1);
  return {cmd, [cmd, files] {
            if (cmd->got_subcommand("list")) {
              for (const std::string& name : codegen::MappingTable::builtin_names()) {
                codegen::MappingTable t = codegen::MappingTable::builtin(name);
                fmt::print("{:<18} {:>4} rows  targets: {}  flavours: {}\n", name, t.rows().size(),
                           fmt::join(t.targets(), " "), fmt::join(t.flavours(), " "));
              }
              return kExitOk;
            }
            bool bad = false;
            for (const std::string& f : *files) {
              try {
                codegen::MappingTable t = codegen::MappingTable::from_file(f);
                for (const std::string& target : t.targets())
                  if (!codegen::TargetCatalog::builtin().find(target)) {
                    fmt::print(stderr, "{}: error: /targets: unknown target '{}'\n", f, target);
                    bad = true;
                  }
                fmt::print("{}: ok: table {}, {} rows\n", f, t.name(), t.rows().size());
              } catch (const codegen::MappingError& e) {
                fmt::print(stderr, "{}\n", e.what());
                bad = true;
              }
            }
            return bad ? kExitBadInput : kExitOk;
          }};
}

}  // namespace hsalit::cli
