// Running llc on the emitted LLVM IR, importing its assembly and tying it back to the litmus
// instructions (llc.hpp). The comparison with a table is in llc_compare.cpp.
#include "hsalit/codegen/llc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <sstream>

#include "hsalit/codegen/process.hpp"
#include "hsalit/litmus/printer.hpp"

namespace hsalit::codegen {

std::string debian_package_for(std::string_view tool) {
  std::string base(std::filesystem::path(std::string(tool)).filename().string());
  static const std::regex versioned(R"((llc|opt|llvm-[a-z-]+|clang)-(\d+))");
  static const std::regex mlir_versioned(R"(mlir-[a-z-]+-(\d+))");
  std::smatch m;
  if (std::regex_match(base, m, mlir_versioned)) return "mlir-" + m[1].str() + "-tools";
  if (std::regex_match(base, m, versioned)) {
    return m[1] == "clang" ? "clang-" + m[2].str() : "llvm-" + m[2].str();
  }
  if (base == "llc" || base == "opt" || base.rfind("llvm-", 0) == 0) return "llvm";
  return "";
}

namespace {

// `--help-hidden` of each llc binary, read once.
const std::string& llc_help(const std::filesystem::path& path) {
  static std::mutex mutex;
  static std::map<std::string, std::string> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(path.string());
  if (it != cache.end()) return it->second;
  ProcessResult r = run_process({path.string(), "--help-hidden"});
  return cache[path.string()] = r.out + r.err;
}

// `-march=amdgcn -mcpu=help` of each llc binary, read once.
const std::string& llc_cpu_help(const std::filesystem::path& path) {
  static std::mutex mutex;
  static std::map<std::string, std::string> cache;
  std::lock_guard lock(mutex);
  auto it = cache.find(path.string());
  if (it != cache.end()) return it->second;
  ProcessResult r = run_process({path.string(), "-march=amdgcn", "-mcpu=help"});
  return cache[path.string()] = r.out + r.err;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

LlcTool find_llc(std::string_view name) {
  LlcTool t;
  t.name = std::string(name);
  std::optional<std::filesystem::path> path = find_program(name);
  if (!path) {
    std::string package = debian_package_for(name);
    throw LlcError(package.empty() ? fmt::format("{} not found", name)
                                   : fmt::format("{} not found: install Debian package {}", name, package));
  }
  t.path = *path;
  ProcessResult v = run_process({t.path.string(), "--version"});
  static const std::regex version(R"(LLVM version (\d+))");
  std::smatch m;
  std::string text = v.out + v.err;
  if (!v.ok() || !std::regex_search(text, m, version))
    throw LlcError(fmt::format("{}: cannot read its version from `--version`", name));
  t.version = std::stoi(m[1]);
  const std::string& help = llc_help(t.path);
  // LLVM 14 reads `ptr` only in opaque-pointer mode; 15 and later use it by default.
  if (t.version < 15 && help.find("-opaque-pointers") != std::string::npos) t.flags.push_back("-opaque-pointers");
  // The atomic optimizer rewrites uniform atomic adds into a reduction and one atomic
  // (GCN-NOTES point 5): off, in whichever spelling this llc has.
  if (help.find("-amdgpu-atomic-optimizer-strategy") != std::string::npos)
    t.flags.push_back("-amdgpu-atomic-optimizer-strategy=None");
  else if (help.find("-amdgpu-atomic-optimizations") != std::string::npos)
    t.flags.push_back("-amdgpu-atomic-optimizations=false");
  return t;
}

std::vector<std::string> llc_processors(const LlcTool& llc) {
  // "  gfx942          - Select the gfx942 processor."
  static const std::regex line(R"(^\s*(\S+)\s+- Select the (\S+) processor\.)");
  std::vector<std::string> out;
  std::istringstream lines(llc_cpu_help(llc.path));
  std::string l;
  std::smatch m;
  while (std::getline(lines, l))
    if (std::regex_search(l, m, line) && m[1] == m[2]) out.push_back(m[1]);
  return out;
}

std::vector<std::string> llc_command(const LlcTool& llc, const Target& target) {
  std::vector<std::string> cmd = {llc.path.string(), "-march=amdgcn", "-mcpu=" + target.name, "-O2"};
  cmd.insert(cmd.end(), llc.flags.begin(), llc.flags.end());
  // The target's default wave size (wave32 on GFX10 and later), as the compiler's own code.
  const std::vector<std::string> flags = assembler_flags(target, target.wave_size);
  cmd.insert(cmd.end(), flags.begin(), flags.end());
  return cmd;
}

std::string run_llc(const LlcTool& llc, std::string_view ir, const Target& target) {
  TempDir dir("hsalit-llc");
  const std::filesystem::path input = dir.path() / "test.ll", output = dir.path() / "test.s";
  {
    std::ofstream out(input, std::ios::binary);
    out << ir;
    if (!out) throw LlcError(fmt::format("cannot write {}", input.string()));
  }
  std::vector<std::string> cmd = llc_command(llc, target);
  cmd.insert(cmd.end(), {input.string(), "-o", output.string()});
  ProcessResult r = run_process(cmd);
  if (auto unknown = r.err.find("is not a recognized processor"); unknown != std::string::npos)
    throw LlcError(fmt::format("{} does not know processor {} ({})", llc.name, target.name,
                               r.err.substr(0, r.err.find('\n', unknown))));
  if (!r.ok()) {
    std::string how = r.signal ? fmt::format("was killed by signal {}", r.signal)
                               : fmt::format("exited with status {}", r.exit_status);
    throw LlcError(fmt::format("{} {} for {}:\n{}", llc.name, how, target.name, r.err));
  }
  return read_text(output);
}

bool LlcThread::complete() const {
  return problems.empty() && std::none_of(tied.begin(), tied.end(), [](int i) { return i < 0; });
}

namespace {

bool is_model_instruction(const Instruction& ins) {
  switch (ins.kind()) {
    case InstrClass::Wait:
    case InstrClass::CacheInvalidate:
    case InstrClass::CacheWriteback:
    case InstrClass::Barrier: return true;
    default: return false;
  }
}

// The kind a litmus access needs from its memory instruction.
bool kind_matches(litmus::OpKind op, InstrClass c) {
  switch (op) {
    case litmus::OpKind::Load: return c == InstrClass::VectorLoad || c == InstrClass::LdsLoad;
    case litmus::OpKind::Store: return c == InstrClass::VectorStore || c == InstrClass::LdsStore;
    case litmus::OpKind::Rmw: return c == InstrClass::VectorAtomic || c == InstrClass::LdsAtomic;
    default: return false;
  }
}

std::string_view kind_word(litmus::OpKind op) {
  switch (op) {
    case litmus::OpKind::Load: return "load";
    case litmus::OpKind::Store: return "store";
    case litmus::OpKind::Rmw: return "rmw";
    default: return "?";
  }
}

// A memory instruction that moves more than one dword, or two addresses at once: llc's merge
// of neighbouring accesses (dwordx2, ds_read2, b64) shows as one of these.
bool looks_merged(const Instruction& ins) {
  const std::string& m = ins.mnemonic;
  return m.find("x2") != std::string::npos || m.find("x3") != std::string::npos || m.find("x4") != std::string::npos ||
         m.find("read2") != std::string::npos || m.find("write2") != std::string::npos ||
         m.find("load_2") != std::string::npos || m.find("store_2") != std::string::npos ||
         m.find("b64") != std::string::npos || m.find("b96") != std::string::npos ||
         m.find("b128") != std::string::npos;
}

struct Candidate {
  int instruction = -1;  // litmus index
  std::string role;      // after, fence, barrier, before
  bool acquire = false, release = false, leading_wait = false, barrier = false;
};

bool orders_acquire(litmus::MemoryOrder o) {
  return o == litmus::MemoryOrder::Acquire || o == litmus::MemoryOrder::AcquireRelease;
}
bool orders_release(litmus::MemoryOrder o) {
  return o == litmus::MemoryOrder::Release || o == litmus::MemoryOrder::AcquireRelease;
}

Candidate access_candidate(const litmus::Instruction& ins, int index, bool after) {
  Candidate c;
  c.instruction = index;
  c.role = after ? "after" : "before";
  bool atomic = ins.annots.atomic;
  c.acquire = after && atomic && orders_acquire(ins.annots.order);
  c.release = !after && atomic && orders_release(ins.annots.order);
  // A release, or a seq_cst access, starts with the waits that order what came before.
  c.leading_wait = !after && atomic && ins.annots.order != litmus::MemoryOrder::Relaxed &&
                   ins.annots.order != litmus::MemoryOrder::Acquire;
  return c;
}

// Gives the memory-model instructions at `positions` of `code` to the candidates (litmus
// instructions in program order: the access before, fences, barriers, the access after),
// following the shape of the legalizer's sequences:
//   - an invalidate ends an acquire: it goes to the first acquire candidate not yet passed
//     (the access before, or an acquire fence), and the candidates up to it are passed;
//   - a writeback starts a release: the first release candidate not yet passed (a fence, or
//     the access after);
//   - a wait followed by an invalidate belongs with that invalidate; otherwise a wait right
//     after an acquire access is that access's; otherwise it goes to the first candidate
//     that starts with waits (a fence, a barrier, a release or seq_cst access after);
//   - s_barrier goes to the litmus barrier;
//   - anything else stays with the current candidate.
void assign_gap(std::vector<Instruction>& code, const std::vector<int>& positions, const std::vector<Candidate>& cands,
                int thread) {
  if (cands.empty()) return;
  const int last = static_cast<int>(cands.size()) - 1;
  int c = 0, barrier_owner = -1;
  auto first_from = [&](int from, auto pred) {
    for (int j = from; j <= last; ++j)
      if (pred(cands[static_cast<std::size_t>(j)])) return j;
    return -1;
  };
  auto invalidate_owner = [&](int from) {
    int o = first_from(from, [](const Candidate& k) { return k.acquire; });
    return o < 0 ? from : o;
  };
  auto give = [&](int pos, int owner) {
    const Candidate& k = cands[static_cast<std::size_t>(owner)];
    code[static_cast<std::size_t>(pos)].origin = {thread, k.instruction, "", k.role};
  };
  for (std::size_t p = 0; p < positions.size(); ++p) {
    int pos = positions[p];
    switch (code[static_cast<std::size_t>(pos)].kind()) {
      case InstrClass::Barrier: {
        // GFX12's barrier is two instructions: s_barrier_wait stays with its signal.
        bool second = code[static_cast<std::size_t>(pos)].mnemonic.rfind("s_barrier_wait", 0) == 0;
        int o =
            second && barrier_owner >= 0 ? barrier_owner : first_from(c, [](const Candidate& k) { return k.barrier; });
        if (o < 0) o = c;
        give(pos, o);
        barrier_owner = o;
        c = std::min(o + 1, last);
        break;
      }
      case InstrClass::CacheInvalidate: {
        int o = invalidate_owner(c);
        give(pos, o);
        c = std::min(o + 1, last);
        break;
      }
      case InstrClass::CacheWriteback: {
        int o = first_from(c, [](const Candidate& k) { return k.release; });
        if (o < 0) o = c;
        give(pos, o);
        c = o;
        break;
      }
      default: {  // a wait
        std::optional<InstrClass> next;
        for (std::size_t q = p + 1; q < positions.size(); ++q) {
          InstrClass k = code[static_cast<std::size_t>(positions[q])].kind();
          if (k != InstrClass::Wait) {
            next = k;
            break;
          }
        }
        int o;
        if (next == InstrClass::CacheInvalidate) {
          o = invalidate_owner(c);
        } else if (cands[static_cast<std::size_t>(c)].role == "after" && cands[static_cast<std::size_t>(c)].acquire) {
          o = c;
        } else {
          o = first_from(c, [](const Candidate& k) { return k.leading_wait; });
          if (o < 0) o = c;
        }
        give(pos, o);
        c = o;
        break;
      }
    }
  }
}

// The candidates of the litmus range (from, to) exclusive, with the accesses at both ends.
std::vector<Candidate> gap_candidates(const litmus::Thread& t, int from, int to) {
  std::vector<Candidate> out;
  const int n = static_cast<int>(t.code.size());
  if (from >= 0 && from < n && t.code[static_cast<std::size_t>(from)].is_memory_access())
    out.push_back(access_candidate(t.code[static_cast<std::size_t>(from)], from, true));
  for (int i = from + 1; i < to && i < n; ++i) {
    const litmus::Instruction& ins = t.code[static_cast<std::size_t>(i)];
    if (ins.kind == litmus::OpKind::Fence) {
      Candidate k;
      k.instruction = i;
      k.role = "fence";
      k.acquire = orders_acquire(ins.annots.order);
      k.release = orders_release(ins.annots.order);
      k.leading_wait = true;
      out.push_back(k);
    } else if (ins.kind == litmus::OpKind::Barrier) {
      Candidate k;
      k.instruction = i;
      k.role = "barrier";
      k.leading_wait = k.barrier = true;
      out.push_back(k);
    }
  }
  if (to >= 0 && to < n && t.code[static_cast<std::size_t>(to)].is_memory_access())
    out.push_back(access_candidate(t.code[static_cast<std::size_t>(to)], to, false));
  return out;
}

struct KernelText {
  std::string body;
  int body_first_line = 0;
  bool begin = false, end = false;
  std::map<std::string, std::string> bases;  // "s[4:5]" -> location, from the begin marker
};

// The lines of kernel `name`'s body: after the begin marker, up to the end marker; code after
// an end marker (the exit block, possibly duplicated into predecessors) is left out up to
// the next label.
KernelText kernel_body(std::string_view assembly, const std::string& name) {
  KernelText k;
  enum class State { Outside, Prologue, Body, Epilogue } state = State::Outside;
  std::size_t pos = 0;
  int line_no = 0;
  const std::string header = name + ":";
  while (pos < assembly.size()) {
    std::size_t nl = assembly.find('\n', pos);
    std::string_view line = assembly.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? assembly.size() : nl + 1;
    ++line_no;
    std::string_view trimmed = line.substr(std::min(line.size(), line.find_first_not_of(" \t")));
    if (state == State::Outside) {
      if (trimmed.substr(0, header.size()) == header &&
          (trimmed.size() == header.size() || trimmed[header.size()] == ' ' || trimmed[header.size()] == '\t'))
        state = State::Prologue;
      continue;
    }
    if (trimmed.rfind(".Lfunc_end", 0) == 0 || trimmed.rfind(".end_amdhsa_kernel", 0) == 0) break;
    if (auto b = line.find(kBeginMarker); b != std::string_view::npos) {
      state = State::Body;
      k.begin = true;
      // "; hsalit begin P0 x=s[4:5] y=s[6:7] out=s[0:1]"
      std::istringstream words{std::string(line.substr(b + std::string_view(kBeginMarker).size()))};
      std::string w;
      while (words >> w)
        if (auto eq = w.find('='); eq != std::string::npos && w[0] != '@') k.bases[w.substr(eq + 1)] = w.substr(0, eq);
      continue;
    }
    if (line.find(kEndMarker) != std::string_view::npos) {
      state = State::Epilogue;
      k.end = true;
      continue;
    }
    bool label = !trimmed.empty() && trimmed.find(':') != std::string_view::npos &&
                 trimmed.substr(0, trimmed.find(':')).find_first_of(" \t;") == std::string_view::npos;
    if (state == State::Epilogue && label) state = State::Body;
    if (state != State::Body) continue;
    if (k.body.empty()) k.body_first_line = line_no;
    k.body += std::string(line) + "\n";
  }
  return k;
}

// The location an llc memory instruction accesses, when its base is one of the SGPR pairs the
// begin marker names and nothing in the body wrote that pair before it; "" when unknown (LDS
// and flat addresses are in VGPRs).
std::vector<std::string> access_locations(const std::vector<Instruction>& code, const std::vector<int>& memory,
                                          const std::map<std::string, std::string>& bases) {
  std::map<int, std::string> by_reg;  // first SGPR of a pair -> location
  for (const auto& [reg, loc] : bases) {
    std::string error;
    auto ins = parse_instruction("x " + reg, error);
    if (ins && ins->operands.size() == 1 && ins->operands[0].kind == Operand::Kind::Sgpr)
      by_reg[ins->operands[0].reg] = loc;
  }
  std::vector<std::string> out;
  for (int m : memory) {
    // Pairs written by an earlier instruction no longer hold the pointer.
    for (int i = 0; i < m; ++i) {
      const Instruction& w = code[static_cast<std::size_t>(i)];
      if (w.is_memory() || w.operands.empty() || w.operands[0].kind != Operand::Kind::Sgpr) continue;
      const Operand& d = w.operands[0];
      std::erase_if(by_reg, [&](const auto& e) { return e.first < d.reg + d.count && d.reg < e.first + 2; });
    }
    std::string loc;
    const Instruction& ins = code[static_cast<std::size_t>(m)];
    for (const Operand& o : ins.operands)
      if (o.kind == Operand::Kind::Sgpr && o.count == 2 && by_reg.count(o.reg)) loc = by_reg[o.reg];
    out.push_back(loc);
  }
  return out;
}

std::string_view space_word(InstrClass c, const std::string& mnemonic) {
  if (c == InstrClass::LdsLoad || c == InstrClass::LdsStore || c == InstrClass::LdsAtomic) return "lds";
  return mnemonic.rfind("flat_", 0) == 0 ? "flat" : "global";
}

void tie_thread(LlcThread& out, const litmus::Thread& t, const LlvmKernel& kernel, const litmus::Test& test,
                const std::map<std::string, std::string>& bases, bool generic) {
  std::vector<int> expected;
  for (int a : kernel.accesses)
    if (std::find(kernel.unreachable.begin(), kernel.unreachable.end(), a) == kernel.unreachable.end())
      expected.push_back(a);
  std::vector<int> memory;
  for (std::size_t i = 0; i < out.code.size(); ++i)
    if (out.code[i].is_memory()) memory.push_back(static_cast<int>(i));
  const std::vector<std::string> where = access_locations(out.code, memory, bases);
  const int ne = static_cast<int>(expected.size()), nm = static_cast<int>(memory.size());
  auto lit = [&](int e) -> const litmus::Instruction& {
    return t.code[static_cast<std::size_t>(expected[static_cast<std::size_t>(e)])];
  };
  auto llc = [&](int m) -> const Instruction& {
    return out.code[static_cast<std::size_t>(memory[static_cast<std::size_t>(m)])];
  };
  // An llc instruction can implement a litmus access when it is of its kind, in its space
  // (ds_ for group locations, global_/buffer_ for global ones, flat_ for any) and, when its
  // location is known, at its location.
  auto matches = [&](int e, int m) {
    const litmus::Instruction& a = lit(e);
    const Instruction& b = llc(m);
    if (!kind_matches(a.kind, b.kind())) return false;
    const std::string& loc = a.addr.base.name;
    std::string_view space = space_word(b.kind(), b.mnemonic);
    bool group = test.segment_of(loc) == litmus::Segment::Group;
    if (space == "lds" && (generic || !group)) return false;
    if (space == "global" && group && !generic) return false;
    const std::string& known = where[static_cast<std::size_t>(m)];
    return known.empty() || known == loc;
  };
  // Longest common subsequence, forward (F: prefixes) and backward (B: suffixes); a pair is
  // tied only when every longest alignment contains it, so nothing is guessed.
  std::vector<std::vector<int>> F(static_cast<std::size_t>(ne + 1),
                                  std::vector<int>(static_cast<std::size_t>(nm + 1), 0));
  std::vector<std::vector<int>> B = F;
  auto at = [](std::vector<std::vector<int>>& v, int i, int j) -> int& {
    return v[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
  };
  for (int i = 1; i <= ne; ++i)
    for (int j = 1; j <= nm; ++j)
      at(F, i, j) = std::max({at(F, i - 1, j), at(F, i, j - 1), matches(i - 1, j - 1) ? at(F, i - 1, j - 1) + 1 : 0});
  for (int i = ne - 1; i >= 0; --i)
    for (int j = nm - 1; j >= 0; --j)
      at(B, i, j) = std::max({at(B, i + 1, j), at(B, i, j + 1), matches(i, j) ? at(B, i + 1, j + 1) + 1 : 0});
  const int best = at(F, ne, nm);
  out.tied.assign(static_cast<std::size_t>(ne), -1);
  std::vector<bool> used(static_cast<std::size_t>(nm), false);
  for (int i = 0; i < ne; ++i) {
    int unmatched = 0;  // the longest alignment that leaves access i out
    for (int k = 0; k <= nm; ++k) unmatched = std::max(unmatched, at(F, i, k) + at(B, i + 1, k));
    if (unmatched >= best) continue;
    std::vector<int> options;
    for (int j = 0; j < nm; ++j)
      if (matches(i, j) && at(F, i, j) + 1 + at(B, i + 1, j + 1) == best) options.push_back(j);
    if (options.size() != 1) continue;
    out.tied[static_cast<std::size_t>(i)] = memory[static_cast<std::size_t>(options[0])];
    used[static_cast<std::size_t>(options[0])] = true;
  }

  // What could not be tied, said precisely.
  std::vector<int> loose_litmus, loose_llc;
  for (int i = 0; i < ne; ++i)
    if (out.tied[static_cast<std::size_t>(i)] < 0) loose_litmus.push_back(i);
  for (int j = 0; j < nm; ++j)
    if (!used[static_cast<std::size_t>(j)]) loose_llc.push_back(j);
  if (!loose_litmus.empty() || !loose_llc.empty()) {
    auto llc_text = [&](int j) {
      const std::string& loc = where[static_cast<std::size_t>(j)];
      return fmt::format("{}{}", llc(j).mnemonic, loc.empty() ? "" : " (" + loc + ")");
    };
    std::string a, b;
    for (int i : loose_litmus)
      a += fmt::format("{}P{}:{} {}", a.empty() ? "" : ", ", t.id, expected[static_cast<std::size_t>(i)],
                       litmus::print_instruction(lit(i)));
    for (int j : loose_llc) b += (b.empty() ? "" : ", ") + llc_text(j);
    std::string why;
    if (nm < ne)
      why = fmt::format(
          "llc emitted {} memory instruction{} for {} litmus accesses: it removed or merged "
          "accesses{}",
          nm, nm == 1 ? "" : "s", ne,
          std::any_of(memory.begin(), memory.end(),
                      [&](int m) { return looks_merged(out.code[static_cast<std::size_t>(m)]); })
              ? " (some of its accesses are wider: merged)"
              : "");
    else if (nm > ne)
      why = fmt::format("llc emitted {} memory instructions for {} litmus access{}", nm, ne, ne == 1 ? "" : "es");
    else
      why =
          "llc's memory instructions do not follow the litmus accesses in kind, space or location "
          "(reordered, or "
          "an access became another kind)";
    // An access that became another kind at a known location (e.g. an idempotent rmw as a load).
    for (int i : loose_litmus)
      for (int j : loose_llc)
        if (where[static_cast<std::size_t>(j)] == lit(i).addr.base.name && !kind_matches(lit(i).kind, llc(j).kind()))
          why += fmt::format("; P{}:{} ({} {}) looks implemented by {}", t.id, expected[static_cast<std::size_t>(i)],
                             kind_word(lit(i).kind), lit(i).addr.base.name, llc(j).mnemonic);
    std::string untied = loose_litmus.empty() ? "" : fmt::format(" Untied: {}.", a);
    std::string left = loose_llc.empty() ? "" : fmt::format(" Left over in llc: {}.", b);
    // A left-over instruction that could be any of several untied accesses: not guessed.
    for (int j : loose_llc) {
      std::string could;
      int n = 0;
      for (int i : loose_litmus)
        if (matches(i, j))
          could += fmt::format("{}P{}:{}", n++ ? ", " : "", t.id, expected[static_cast<std::size_t>(i)]);
      if (n > 1)
        left +=
            fmt::format(" {} could implement any of {}: which one is ambiguous, so none is tied.", llc_text(j), could);
    }
    out.problems.push_back(fmt::format("P{}: {}.{}{}", t.id, why, untied, left));
  }
  for (std::size_t i = 0; i < out.tied.size(); ++i)
    if (out.tied[i] >= 0) out.code[static_cast<std::size_t>(out.tied[i])].origin = {t.id, expected[i], "", "access"};

  // The gaps between consecutive tied accesses (and before the first, after the last).
  struct Anchor {
    int code, litmus;
  };
  std::vector<Anchor> anchors = {{-1, -1}};
  for (std::size_t i = 0; i < out.tied.size(); ++i)
    if (out.tied[i] >= 0) anchors.push_back({out.tied[i], expected[i]});
  anchors.push_back({static_cast<int>(out.code.size()), static_cast<int>(t.code.size())});
  for (std::size_t g = 0; g + 1 < anchors.size(); ++g) {
    std::vector<int> positions;
    for (int i = anchors[g].code + 1; i < anchors[g + 1].code; ++i)
      if (is_model_instruction(out.code[static_cast<std::size_t>(i)])) positions.push_back(i);
    assign_gap(out.code, positions, gap_candidates(t, anchors[g].litmus, anchors[g + 1].litmus), t.id);
  }
  for (Instruction& ins : out.code)
    if (ins.origin.thread < 0) ins.origin.thread = t.id;
}

}  // namespace

LlcResult import_llc_assembly(std::string_view assembly, const litmus::Test& test, const LlvmModule& module,
                              const Target& target) {
  LlcResult r;
  r.target = target.name;
  r.assembly = std::string(assembly);
  for (const LlvmKernel& kernel : module.kernels) {
    LlcThread th;
    th.thread = kernel.thread;
    KernelText k = kernel_body(assembly, kernel.name);
    if (!k.begin || !k.end) {
      th.problems.push_back(fmt::format("P{}: kernel {} {} in llc's output", kernel.thread, kernel.name,
                                        !k.begin ? "has no begin marker (or is missing)" : "has no end marker"));
    }
    ParsedProgram parsed = parse_assembly(k.body);
    for (const std::string& e : parsed.errors) {
      // parse_assembly numbers lines from the start of the body.
      int n = 0;
      std::sscanf(e.c_str(), "line %d", &n);
      th.problems.push_back(fmt::format("P{}: cannot read llc's assembly, line {}{}", kernel.thread,
                                        n + k.body_first_line - 1, e.substr(e.find(':'))));
    }
    th.code = std::move(parsed.instructions);
    th.unreachable = kernel.unreachable;
    tie_thread(th, test.threads[static_cast<std::size_t>(kernel.thread)], kernel, test, k.bases, module.generic);
    r.threads.push_back(std::move(th));
  }
  return r;
}

LlcResult compile_via_llc(const litmus::Test& test, const Target& target, const LlcTool& llc,
                          const LlvmIrOptions& options) {
  LlvmModule module = emit_llvm_ir(test, options);
  std::string assembly = run_llc(llc, module.text, target);
  LlcResult r = import_llc_assembly(assembly, test, module, target);
  r.llc = llc.name;
  r.llvm_version = llc.version;
  r.ir = std::move(module.text);
  return r;
}

}  // namespace hsalit::codegen
