// Recursive-descent parser for herd7's LISA dialect with HSA annotations
// (docs/litmus-format.md is the reference for what is accepted).
#include "hsalit/litmus/parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "c_parser.hpp"
#include "hsalit/litmus/check.hpp"
#include "lexer.hpp"

namespace hsalit::litmus {
namespace {

using detail::Lexer;
using detail::SyntaxError;
using detail::Token;
using detail::TokenKind;

// What may start a trailer: a trailer's keyword, or the final condition in any of herd7's
// forms (`~exists`, `not exists`, `final`, a bare `(...)`).
bool is_trailer_keyword(const Token& t) {
  if (t.kind == TokenKind::Tilde || t.kind == TokenKind::End || t.kind == TokenKind::LParen) return true;
  if (t.kind != TokenKind::Ident) return false;
  return t.text == "scopes" || t.text == "regions" || t.text == "locations" || t.text == "filter" ||
         t.text == "exists" || t.text == "forall" || t.text == "not" || t.text == "final";
}

// A thread name in a condition, `P12`: herd7's lexer reads it as a thread number.
bool is_thread_name(const Token& t) {
  return t.kind == TokenKind::Ident && t.text.size() > 1 && t.text[0] == 'P' &&
         t.text.find_first_not_of("0123456789", 1) == std::string::npos;
}

class Parser {
 public:
  Parser(std::string_view text, const ParseLimits& limits) : lex_(text), limits_(limits) {}
  // A parser for the trailers of a test whose header and body another front end has read.
  Parser(Lexer lexer, Test test, const ParseLimits& limits)
      : lex_(std::move(lexer)), limits_(limits), test_(std::move(test)) {}

  Test parse() {
    parse_header();
    parse_init();
    tok_ = lex_.next();
    parse_program();
    parse_trailers();
    return std::move(test_);
  }

  void allow_named_registers(bool allow) { named_registers_ = allow; }

  Test parse_trailers_only() {
    tok_ = lex_.next();
    parse_trailers();
    return std::move(test_);
  }

  // What the input is read as where herd7 reads it so too but a reader may not expect it.
  struct Warning {
    SourcePos pos;
    std::string message;
  };
  const std::vector<Warning>& warnings() const { return warnings_; }

 private:
  // ---- token helpers -------------------------------------------------------------------
  void advance() { tok_ = lex_.next(); }

  [[noreturn]] void fail(SourcePos pos, std::string message) { throw SyntaxError{pos, std::move(message)}; }

  [[noreturn]] void unexpected(std::string_view wanted) {
    std::string got = tok_.kind == TokenKind::End ? "end of file" : fmt::format("'{}'", tok_.text);
    fail(tok_.pos, fmt::format("expected {}, found {}", wanted, got));
  }

  bool at(TokenKind k) const { return tok_.kind == k; }
  bool at_ident(std::string_view text) const { return tok_.kind == TokenKind::Ident && tok_.text == text; }

  Token expect(TokenKind k, std::string_view wanted = {}) {
    if (tok_.kind != k) unexpected(wanted.empty() ? detail::describe(k) : wanted);
    Token t = std::move(tok_);
    advance();
    return t;
  }

  void skip_optional_comma() {
    if (at(TokenKind::Comma)) advance();
  }

  void enter(SourcePos pos) {
    if (++depth_ > limits_.max_nesting) fail(pos, fmt::format("nesting deeper than {} levels", limits_.max_nesting));
  }
  void leave() { --depth_; }

  // ---- header ----------------------------------------------------------------------------
  void parse_header() {
    if (lex_.peek_char() == '\0') fail(lex_.position(), "empty file: expected 'LISA NAME'");
    SourcePos pos = lex_.position();
    std::string arch = lex_.raw_word_on_line();
    if (arch != "LISA") {
      static const std::set<std::string> kHerdArchitectures = {
          "AArch64", "ARM", "BPF", "CPP", "GPU_PTX", "JAVA", "MIPS", "PPC", "PTX", "RISCV", "X86", "X86_64", "Bell"};
      if (kHerdArchitectures.count(arch))
        fail(pos, fmt::format("'{}' tests are not supported: hsalit reads LISA and C tests", arch));
      fail(pos, fmt::format("expected 'LISA' at the start of the file, found '{}'", arch));
    }
    test_.arch = arch;
    test_.name = lex_.raw_word_on_line();
    if (test_.name.empty()) fail(lex_.position(), "expected a test name after 'LISA'");
    if (!lex_.finish_line()) fail(lex_.position(), "unexpected text after the test name (a test name has no blanks)");

    // Optional description, then optional Key=value metadata lines, up to '{'.
    if (lex_.peek_char() == '"') {
      Token d = lex_.next();
      test_.description = d.text;
      if (!lex_.finish_line()) fail(lex_.position(), "unexpected text after the description");
    }
    for (;;) {
      char c = lex_.peek_char();
      if (c == '{') return;
      SourcePos line_pos = lex_.position();
      if (c == '\0') fail(line_pos, "expected '{' to start the initial state");
      std::string line = lex_.raw_rest_of_line();
      auto eq = line.find('=');
      if (eq == std::string::npos)
        fail(line_pos, "expected '{' to start the initial state (or a Key=value metadata line)");
      auto trim = [](std::string s) {
        auto b = s.find_first_not_of(" \t\r");
        auto e = s.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
      };
      std::string key = trim(line.substr(0, eq));
      if (!detail::is_metadata_key(key))
        fail(line_pos, fmt::format("malformed metadata line: '{}' is not a key (a key is a name "
                                   "such as Cycle, before '=')",
                                   key));
      test_.metadata.push_back({key, trim(line.substr(eq + 1))});
    }
  }

  // ---- initial state -------------------------------------------------------------------
  void parse_init() {
    tok_ = lex_.next();
    expect(TokenKind::LBrace, "'{'");
    while (!at(TokenKind::RBrace)) {
      if (at(TokenKind::Semi)) {
        advance();
        continue;
      }
      InitEntry entry;
      entry.pos.at = tok_.pos;
      if (at(TokenKind::Number)) {
        entry.thread = thread_number(tok_);
        advance();
        expect(TokenKind::Colon, "':' after a thread number");
        entry.name = expect(TokenKind::Register, "a register after 'N:'").text;
      } else if (at(TokenKind::Ident)) {
        entry.name = tok_.text;
        advance();
        if (at(TokenKind::Ident) || at(TokenKind::Number) || at(TokenKind::Register))
          fail(entry.pos.at, fmt::format("type declarations ('{} ...') are not supported in the "
                                         "initial state: write 'x = 0' or '0:r1 = 0'",
                                         entry.name));
      } else if (at(TokenKind::End)) {
        unexpected("'}' to close the initial state");
      } else {
        unexpected("a location or 'N:register' in the initial state");
      }
      expect(TokenKind::Equals, "'='");
      if (at(TokenKind::Number)) {
        entry.value = Expr::constant(tok_.number, tok_.pos);
      } else if (at(TokenKind::Ident)) {
        entry.value = Expr::location(tok_.text, tok_.pos);
      } else {
        unexpected("a number or a location name");
      }
      advance();
      test_.init.push_back(std::move(entry));
      if (!at(TokenKind::Semi) && !at(TokenKind::RBrace)) unexpected("';' or '}'");
    }
  }

  // A thread number written as a number token or as the digits of `P12`.
  int thread_number(SourcePos pos, std::string_view digits, std::int64_t value) {
    if (value < 0 || value >= limits_.max_threads)
      fail(pos, fmt::format("thread number {} is out of range (at most {} threads)", digits, limits_.max_threads));
    return static_cast<int>(value);
  }
  int thread_number(const Token& t) { return thread_number(t.pos, t.text, t.number); }
  // The number of a thread written `P12`.
  int thread_name_number(const Token& t) {
    std::string_view digits = std::string_view(t.text).substr(1);
    std::int64_t value = digits.size() > 9 ? limits_.max_threads : std::stoll(t.text.substr(1));
    return thread_number(t.pos, digits, value);
  }

  // ---- program -------------------------------------------------------------------------
  void parse_program() {
    if (at(TokenKind::Semi)) advance();  // herd accepts a ';' before the header row
    for (;;) {
      Token t = expect(TokenKind::Ident, "a thread name 'P0'");
      int expected_id = static_cast<int>(test_.threads.size());
      if (t.text != fmt::format("P{}", expected_id))
        fail(t.pos, fmt::format("expected thread name 'P{}', found '{}' (threads are numbered "
                                "P0, P1, ... in column order)",
                                expected_id, t.text));
      if (expected_id >= limits_.max_threads)
        fail(t.pos, fmt::format("too many threads (the limit is {})", limits_.max_threads));
      Thread thread;
      thread.id = expected_id;
      thread.pos.at = t.pos;
      test_.threads.push_back(std::move(thread));
      if (at(TokenKind::Pipe)) {
        advance();
        continue;
      }
      expect(TokenKind::Semi, "'|' or ';' after the thread names");
      break;
    }
    while (!is_trailer_keyword(tok_)) parse_row();
  }

  void parse_row() {
    std::size_t column = 0;
    for (;;) {
      if (column >= test_.threads.size())
        fail(tok_.pos, fmt::format("this row has more columns than the {} thread{}", test_.threads.size(),
                                   test_.threads.size() == 1 ? "" : "s"));
      parse_cell(test_.threads[column], column == 0);
      if (at(TokenKind::Pipe)) {
        advance();
        ++column;
        continue;
      }
      if (at(TokenKind::Semi)) {
        advance();
        return;
      }
      unexpected("'|' or ';' after an instruction");
    }
  }

  void push_instruction(Thread& thread, Instruction ins) {
    if (static_cast<int>(thread.code.size()) >= limits_.max_instructions_per_thread)
      fail(ins.pos.at,
           fmt::format("thread P{} has more than {} instructions", thread.id, limits_.max_instructions_per_thread));
    thread.code.push_back(std::move(ins));
  }

  void parse_cell(Thread& thread, bool starts_row) {
    if (at(TokenKind::Pipe) || at(TokenKind::Semi)) return;
    // `LABEL:` alone or before an instruction.
    if (at(TokenKind::Ident) && !is_opcode(tok_.text)) {
      Token name = tok_;
      advance();
      // A row that starts with an unknown word followed by what cannot be an operand is
      // more likely a misspelt trailer (`exist (0:r0=1)`).
      bool trailer_like = starts_row && (at(TokenKind::LParen) || at(TokenKind::LBrack) || at(TokenKind::Tilde) ||
                                         at(TokenKind::Number));
      if (!at(TokenKind::Colon))
        fail(name.pos, fmt::format("unknown instruction '{}'{}", name.text,
                                   trailer_like ? " (or a misspelt scopes:, regions:, locations, "
                                                  "filter, exists, ~exists or forall)"
                                                : ""));
      advance();
      Instruction label;
      label.kind = OpKind::Label;
      label.label = name.text;
      label.pos.at = name.pos;
      push_instruction(thread, std::move(label));
      if (at(TokenKind::Pipe) || at(TokenKind::Semi)) return;
    }
    push_instruction(thread, parse_instruction());
  }

  static bool is_opcode(std::string_view w) {
    return w == "r" || w == "w" || w == "rmw" || w == "f" || w == "b" || w == "mov" || w == "barrier" || w == "call";
  }

  struct Word {
    std::string text;
    SourcePos pos;
  };

  std::vector<Word> parse_annotation_list() {
    std::vector<Word> words;
    if (!at(TokenKind::LBrack)) return words;
    advance();
    while (!at(TokenKind::RBrack)) {
      if (!at(TokenKind::Ident)) unexpected("an annotation or ']'");
      words.push_back({tok_.text, tok_.pos});
      advance();
      if (at(TokenKind::Comma)) {
        advance();
        if (at(TokenKind::RBrack)) unexpected("an annotation after ','");
      } else if (!at(TokenKind::RBrack)) {
        unexpected("',' or ']' in the annotation list");
      }
    }
    advance();
    return words;
  }

  // `global` or `group` on a fence or barrier: the one segment it orders (OpenCL); once.
  void set_fence_segment(Annotations& a, const Word& w, std::string_view what) {
    if (a.fence_segment) fail(w.pos, fmt::format("two segment annotations on one {} (write neither for both)", what));
    a.fence_segment = segment_from_string(w.text);
  }

  // Resolves the annotation words of a memory access or fence. Whether the combination is
  // legal under the HSA model is decided by check_test, which sees JSON input too.
  Annotations resolve_annotations(const std::vector<Word>& words, OpKind kind) {
    Annotations a;
    std::optional<Word> order, scope, atomicity, size;
    auto once = [&](std::optional<Word>& slot, const Word& w, std::string_view what) {
      if (slot) fail(w.pos, fmt::format("two {} annotations ('{}' and '{}')", what, slot->text, w.text));
      slot = w;
    };
    for (const Word& w : words) {
      if (w.text == "atomic" || w.text == "ordinary" || w.text == "na") {
        once(atomicity, w, "atomicity");
        a.atomic = w.text == "atomic";
      } else if (w.text == "rlx" || w.text == "scacq" || w.text == "screl" || w.text == "scar") {
        once(order, w, "memory order");
        a.order = w.text == "rlx"     ? MemoryOrder::Relaxed
                  : w.text == "scacq" ? MemoryOrder::Acquire
                  : w.text == "screl" ? MemoryOrder::Release
                                      : MemoryOrder::AcquireRelease;
      } else if (auto s = scope_from_string(w.text)) {
        once(scope, w, "scope");
        a.scope = *s;
      } else if (w.text == "single" || w.text == "double") {
        once(size, w, "size");
        if (kind == OpKind::Fence) fail(w.pos, "a fence has no access size");
        a.size = w.text == "double" ? AccessSize::Double : AccessSize::Single;
      } else if (w.text == "cas") {
        if (kind != OpKind::Rmw) fail(w.pos, "'cas' applies to rmw only");
        a.cas = true;
      } else if (w.text == "sc") {
        if (a.seq_cst) fail(w.pos, "two 'sc' annotations");
        a.seq_cst = true;
      } else if (kind == OpKind::Fence && segment_from_string(w.text)) {
        set_fence_segment(a, w, "fence");
      } else {
        fail(w.pos, fmt::format("unknown annotation '{}' (expected atomic, ordinary, rlx, scacq, "
                                "screl, scar, sc, wi, wave, wg, agent, system{}{})",
                                w.text, kind == OpKind::Fence ? ", global, group" : ", single, double",
                                kind == OpKind::Rmw ? ", cas" : ""));
      }
    }
    return a;
  }

  Instruction parse_instruction() {
    Instruction ins;
    ins.pos.at = tok_.pos;
    if (!at(TokenKind::Ident)) unexpected("an instruction");
    std::string op = tok_.text;
    advance();
    if (op == "call") fail(ins.pos.at, "herd macro calls ('call[...]') are not supported: inline the macro");
    if (op == "r") {
      ins.kind = OpKind::Load;
      ins.annots = resolve_annotations(parse_annotation_list(), ins.kind);
      ins.reg = expect(TokenKind::Register, "a destination register").text;
      skip_optional_comma();
      ins.addr = parse_address();
    } else if (op == "w") {
      ins.kind = OpKind::Store;
      ins.annots = resolve_annotations(parse_annotation_list(), ins.kind);
      ins.addr = parse_address();
      skip_optional_comma();
      if (at(TokenKind::Number)) {
        ins.value = Expr::constant(tok_.number, tok_.pos);
      } else if (at(TokenKind::Register)) {
        ins.value = Expr::reg(tok_.text, tok_.pos);
      } else {
        unexpected("a constant or a register to store");
      }
      advance();
    } else if (op == "rmw") {
      ins.kind = OpKind::Rmw;
      ins.annots = resolve_annotations(parse_annotation_list(), ins.kind);
      ins.reg = expect(TokenKind::Register, "a destination register").text;
      skip_optional_comma();
      if (ins.annots.cas) {
        ins.expected = parse_operation();
        skip_optional_comma();
      }
      ins.value = parse_operation();
      skip_optional_comma();
      ins.addr = parse_address();
    } else if (op == "f") {
      ins.kind = OpKind::Fence;
      ins.annots = resolve_annotations(parse_annotation_list(), ins.kind);
      if (at(TokenKind::LBrace)) fail(tok_.pos, "fence label sets ('f[...] {...} {...}') are not supported");
    } else if (op == "barrier") {
      ins.kind = OpKind::Barrier;
      // OpenCL: `barrier[global]` or `barrier[group]`, a work_group_barrier whose fences order
      // one address space (docs/model.md, "The OpenCL model"); HSA's barrier has no annotation.
      for (const Word& w : parse_annotation_list()) {
        if (!segment_from_string(w.text))
          fail(w.pos, fmt::format("unknown annotation '{}' on a barrier (expected global or group)", w.text));
        set_fence_segment(ins.annots, w, "barrier");
      }
    } else if (op == "mov") {
      ins.kind = OpKind::Mov;
      ins.reg = expect(TokenKind::Register, "a destination register").text;
      skip_optional_comma();
      ins.value = parse_operation();
    } else if (op == "b") {
      parse_branch(ins);
    } else {
      fail(ins.pos.at, fmt::format("unknown instruction '{}'", op));
    }
    return ins;
  }

  // `b[tags] LABEL`, `b[tags] REG LABEL`, and the old `b[eq|ne] REG, VALUE, LABEL`.
  void parse_branch(Instruction& ins) {
    ins.kind = OpKind::Branch;
    std::optional<BinaryOp> compare;
    for (const Word& w : parse_annotation_list()) {
      if (w.text == "eq" || w.text == "ne" || w.text == "neq") {
        if (compare) fail(w.pos, "two comparison annotations on one branch");
        compare = w.text == "eq" ? BinaryOp::Eq : BinaryOp::Ne;
      } else {
        ins.annots.tags.push_back(w.text);
      }
    }
    if (at(TokenKind::Ident)) {
      if (compare) fail(tok_.pos, "a comparison branch 'b[eq]' needs a register and a value");
      ins.label = tok_.text;
      advance();
      return;
    }
    Token reg = expect(TokenKind::Register, "a register or a label");
    if (compare) {
      skip_optional_comma();
      Expr rhs;
      if (at(TokenKind::Number)) {
        rhs = Expr::constant(tok_.number, tok_.pos);
      } else if (at(TokenKind::Register)) {
        rhs = Expr::reg(tok_.text, tok_.pos);
      } else {
        unexpected("a value to compare with");
      }
      advance();
      skip_optional_comma();
      ins.condition = Expr::binary(*compare, Expr::reg(reg.text, reg.pos), std::move(rhs), reg.pos);
    } else {
      ins.condition = Expr::reg(reg.text, reg.pos);
    }
    ins.label = expect(TokenKind::Ident, "a label").text;
  }

  Address parse_address() {
    Address a;
    a.pos.at = tok_.pos;
    bool bracketed = at(TokenKind::LBrack);  // the old `[x]` form
    if (bracketed) advance();
    if (at(TokenKind::Ident)) {
      a.base = Expr::location(tok_.text, tok_.pos);
    } else if (at(TokenKind::Register)) {
      a.base = Expr::reg(tok_.text, tok_.pos);
    } else {
      unexpected("an address (a location or a register)");
    }
    advance();
    if (at(TokenKind::Plus)) {
      advance();
      if (at(TokenKind::Number)) {
        a.offset = Expr::constant(tok_.number, tok_.pos);
      } else if (at(TokenKind::Register)) {
        a.offset = Expr::reg(tok_.text, tok_.pos);
      } else {
        unexpected("a constant or a register offset");
      }
      advance();
    }
    if (bracketed) expect(TokenKind::RBrack, "']'");
    return a;
  }

  Expr parse_operation() {
    SourcePos pos = tok_.pos;
    switch (tok_.kind) {
      case TokenKind::Number: {
        Expr e = Expr::constant(tok_.number, pos);
        advance();
        return e;
      }
      case TokenKind::Register: {
        Expr e = Expr::reg(tok_.text, pos);
        advance();
        return e;
      }
      case TokenKind::Ident: {
        Expr e = Expr::location(tok_.text, pos);
        advance();
        return e;
      }
      case TokenKind::LParen: break;
      default: unexpected("a value or '(OP a b)'");
    }
    enter(pos);
    advance();
    Token op = expect(TokenKind::Ident, "an operator (add, sub, xor, and, or, eq, neq)");
    BinaryOp bop;
    if (op.text == "add")
      bop = BinaryOp::Add;
    else if (op.text == "sub")
      bop = BinaryOp::Sub;
    else if (op.text == "xor")
      bop = BinaryOp::Xor;
    else if (op.text == "and")
      bop = BinaryOp::And;
    else if (op.text == "or")
      bop = BinaryOp::Or;
    else if (op.text == "eq")
      bop = BinaryOp::Eq;
    else if (op.text == "neq" || op.text == "ne")
      bop = BinaryOp::Ne;
    else
      fail(op.pos, fmt::format("unknown operator '{}' (expected add, sub, xor, and, or, eq, neq)", op.text));
    Expr lhs = parse_operation();
    skip_optional_comma();
    Expr rhs = parse_operation();
    expect(TokenKind::RParen, "')' to close the operation");
    leave();
    return Expr::binary(bop, std::move(lhs), std::move(rhs), pos);
  }

  // ---- trailers ------------------------------------------------------------------------
  void parse_trailers() {
    std::set<std::string> seen;
    for (;;) {
      if (at(TokenKind::End)) {
        // herd7 reads a test without a final condition as `forall (true)`.
        warnings_.push_back({tok_.pos, "no final condition: read as 'forall (true)', as herd7 does"});
        test_.condition.quantifier = Quantifier::Forall;
        test_.condition.pos.at = tok_.pos;
        return;
      }
      Token key = tok_;
      std::string name = key.kind == TokenKind::Tilde ? "~" : key.text;
      bool is_condition = name == "exists" || name == "forall" || name == "~" || name == "not" || name == "final" ||
                          key.kind == TokenKind::LParen;
      if (!is_condition && !seen.insert(name).second) fail(key.pos, fmt::format("'{}' appears twice", name));
      if (name == "scopes") {
        advance();
        expect(TokenKind::Colon, "':' after 'scopes'");
        parse_scope_forest();
      } else if (name == "regions") {
        advance();
        expect(TokenKind::Colon, "':' after 'regions'");
        parse_regions();
      } else if (name == "locations") {
        advance();
        parse_locations();
      } else if (name == "filter") {
        advance();
        test_.filter = parse_prop();
      } else if (is_condition) {
        parse_condition();
        if (at(TokenKind::Semi)) advance();  // herd7 allows a ';' after the condition
        if (at_ident("with") || at_ident("observed") || at_ident("Observed"))
          fail(tok_.pos,
               fmt::format("herd7's '{}' conditions are not supported: write exists, ~exists or forall", tok_.text));
        if (!at(TokenKind::End)) fail(tok_.pos, "unexpected text after the final condition (it must come last)");
        return;
      } else {
        unexpected("scopes:, regions:, locations, filter or the final condition");
      }
    }
  }

  void parse_scope_forest() {
    if (!at(TokenKind::LParen)) unexpected("'(' to start a scope group");
    do {
      test_.scopes.add_root(parse_scope_group());
    } while (at(TokenKind::LParen) && starts_scope_group());
  }

  // At '(': whether a scope group follows, `(wg ...`, rather than herd7's bare `(P)` final
  // condition, `(wg=1 ...`.
  bool starts_scope_group() const {
    Lexer probe = lex_;
    Token level = probe.next();
    if (level.kind != TokenKind::Ident || !scope_from_string(level.text)) return false;
    Token after = probe.next();
    return after.kind != TokenKind::Equals && after.kind != TokenKind::NotEquals;
  }

  int parse_scope_group() {
    SourcePos pos = tok_.pos;
    enter(pos);
    expect(TokenKind::LParen);
    Token level = expect(TokenKind::Ident, "a scope level (system, agent, wg, wave, wi)");
    auto scope = scope_from_string(level.text);
    if (!scope)
      fail(level.pos, fmt::format("unknown scope level '{}' (expected system, agent, wg, wave "
                                  "or wi)",
                                  level.text));
    ScopeNode node;
    node.level = *scope;
    node.pos = pos;
    while (!at(TokenKind::RParen)) {
      if (at(TokenKind::LParen)) {
        node.children.push_back({false, parse_scope_group()});
      } else if (at(TokenKind::Number)) {
        node.children.push_back({true, thread_number(tok_)});
        advance();
      } else if (is_thread_name(tok_)) {
        node.children.push_back({true, thread_name_number(tok_)});
        advance();
      } else {
        unexpected("a thread (0 or P0), a nested group or ')'");
      }
    }
    advance();
    leave();
    return test_.scopes.add_node(std::move(node));
  }

  void parse_regions() {
    for (;;) {
      Token loc = expect(TokenKind::Ident, "a location name");
      expect(TokenKind::Colon, "':' after the location");
      Token seg = expect(TokenKind::Ident, "a segment (global or group)");
      RegionEntry entry;
      entry.location = loc.text;
      entry.pos.at = loc.pos;
      const std::optional<Segment> segment = segment_from_string(seg.text);
      if (!segment) fail(seg.pos, fmt::format("unknown segment '{}' (expected global or group)", seg.text));
      entry.segment = *segment;
      test_.regions.push_back(std::move(entry));
      if (at(TokenKind::Comma)) {  // another entry follows, whatever its name
        advance();
        continue;
      }
      if (at(TokenKind::Semi)) {  // `;` may also end the list
        advance();
        if (is_trailer_keyword(tok_)) return;
        continue;
      }
      if (at(TokenKind::Ident) && !is_trailer_keyword(tok_)) continue;
      return;
    }
  }

  void parse_locations() {
    expect(TokenKind::LBrack, "'[' after 'locations'");
    while (!at(TokenKind::RBrack)) {
      test_.locations.push_back(parse_observed_ref());
      if (at(TokenKind::Semi) || at(TokenKind::Comma))
        advance();
      else if (!at(TokenKind::RBrack))
        unexpected("';' or ']'");
    }
    advance();
  }

  // `0:r0`, `P0:r0`, `x` or `[x]`.
  ObservedRef parse_observed_ref() {
    ObservedRef ref;
    ref.pos.at = tok_.pos;
    if (at(TokenKind::Number) || is_thread_name(tok_)) {
      ref.thread = at(TokenKind::Number) ? thread_number(tok_) : thread_name_number(tok_);
      advance();
      expect(TokenKind::Colon, "':' after a thread number");
      if (named_registers_ && at(TokenKind::Ident)) {
        ref.name = tok_.text;
        advance();
      } else {
        ref.name = expect(TokenKind::Register, "a register after 'N:'").text;
      }
    } else if (at(TokenKind::Ident)) {
      ref.name = tok_.text;
      advance();
    } else if (at(TokenKind::LBrack)) {  // herd's `[x]`
      advance();
      ref.name = expect(TokenKind::Ident, "a location").text;
      expect(TokenKind::RBrack, "']'");
    } else {
      unexpected("'N:register' or a location");
    }
    return ref;
  }

  // herd7's final conditions: `exists P`, `~exists P` (also `not exists P`), `forall P`, and
  // the older `final P` and bare `(P)`, both meaning `exists`.
  void parse_condition() {
    FinalCondition c;
    c.pos.at = tok_.pos;
    if (at(TokenKind::Tilde) || at_ident("not")) {
      const std::string negation = tok_.text;
      advance();
      if (!at_ident("exists")) unexpected(fmt::format("'exists' after '{}'", negation));
      c.quantifier = Quantifier::NotExists;
      advance();
    } else if (at_ident("exists") || at_ident("final")) {
      c.quantifier = Quantifier::Exists;
      advance();
    } else if (at_ident("forall")) {
      c.quantifier = Quantifier::Forall;
      advance();
    } else {
      c.quantifier = Quantifier::Exists;  // `(P)`: the parentheses belong to the proposition
    }
    c.prop = parse_prop();
    test_.condition = std::move(c);
  }

  // Conditions, with herd7's precedence (lib/stateParser.mly): `~` and `not` bind tightest,
  // then `=>` (to the right), then `/\`, then `\/` (both to the left). `(`, `~` and `not`
  // count towards the nesting limit as they are read, `not (` or `~(` once; the operator tree
  // that results must also be at most max_nesting deep (a leaf counts one), so that a long
  // flat `a /\ b /\ c ...` chain cannot build an arbitrarily deep tree.
  struct SizedProp {
    Prop prop;
    int height = 1;
  };

  Prop parse_prop() { return parse_disjunction().prop; }

  [[noreturn]] void too_deep(SourcePos pos) {
    fail(pos, fmt::format("condition nested deeper than {} levels (each /\\, \\/, => and ~ adds "
                          "a level)",
                          limits_.max_nesting));
  }

  SizedProp combine(Prop::Kind kind, SizedProp lhs, SizedProp rhs, SourcePos pos) {
    int height = 1 + std::max(lhs.height, rhs.height);
    if (height > limits_.max_nesting) too_deep(pos);
    Prop p = kind == Prop::Kind::And  ? Prop::conjunction(std::move(lhs.prop), std::move(rhs.prop), pos)
             : kind == Prop::Kind::Or ? Prop::disjunction(std::move(lhs.prop), std::move(rhs.prop), pos)
                                      : Prop::implication(std::move(lhs.prop), std::move(rhs.prop), pos);
    return {std::move(p), height};
  }

  SizedProp parse_disjunction() {
    SizedProp lhs = parse_conjunction();
    while (at(TokenKind::Or)) {
      SourcePos pos = tok_.pos;
      advance();
      lhs = combine(Prop::Kind::Or, std::move(lhs), parse_conjunction(), pos);
    }
    return lhs;
  }

  SizedProp parse_conjunction() {
    SizedProp lhs = parse_implication();
    while (at(TokenKind::And)) {
      SourcePos pos = tok_.pos;
      advance();
      lhs = combine(Prop::Kind::And, std::move(lhs), parse_implication(), pos);
    }
    return lhs;
  }

  SizedProp parse_implication() {
    SizedProp lhs = parse_unary();
    if (!at(TokenKind::Implies)) return lhs;
    SourcePos pos = tok_.pos;
    enter(pos);  // the right operand recurses: bound it as it is read
    advance();
    SizedProp rhs = parse_implication();
    leave();
    return combine(Prop::Kind::Implies, std::move(lhs), std::move(rhs), pos);
  }

  SizedProp parse_unary() {
    SourcePos pos = tok_.pos;
    if (at(TokenKind::Tilde) || at_ident("not")) {
      enter(pos);
      advance();
      SizedProp operand = parse_parenthesised_or_unary();
      leave();
      if (operand.height + 1 > limits_.max_nesting) too_deep(pos);
      return {Prop::negation(std::move(operand.prop), pos), operand.height + 1};
    }
    if (at(TokenKind::LParen)) {
      enter(pos);
      SizedProp p = parse_parenthesised_or_unary();
      leave();
      return p;
    }
    if (at_ident("true") || at_ident("false")) {
      Prop p;
      p.kind = tok_.text == "true" ? Prop::Kind::True : Prop::Kind::False;
      p.pos.at = pos;
      advance();
      return {std::move(p), 1};
    }
    return {parse_atom(), 1};
  }

  // The operand of a negation, or a parenthesised proposition: `(P)` adds no nesting level of
  // its own here (the caller counted it).
  SizedProp parse_parenthesised_or_unary() {
    if (!at(TokenKind::LParen)) return parse_unary();
    advance();
    SizedProp p = parse_disjunction();
    expect(TokenKind::RParen, "')' to close the condition");
    return p;
  }

  // `ref = value`, `ref == value`, `ref != value` (`<>`), where the value is a number, a
  // location's address (`x`), or another final value (`1:r0`, `[x]`).
  Prop parse_atom() {
    SourcePos pos = tok_.pos;
    if (at_ident("fault") || at_ident("Fault"))
      fail(pos, "herd7's fault(...) atoms are not supported: a LISA HSA test has no faults");
    ObservedRef lhs = parse_observed_ref();
    bool negated = at(TokenKind::NotEquals);
    if (!negated)
      expect(TokenKind::Equals, "'=' in the condition");
    else
      advance();
    Prop atom;
    if (at(TokenKind::Number)) {
      Token number = std::move(tok_);
      advance();
      if (at(TokenKind::Colon)) {  // `N:reg`
        advance();
        ObservedRef rhs{thread_number(number), expect(TokenKind::Register, "a register after 'N:'").text, {}};
        rhs.pos.at = number.pos;
        atom = Prop::same_value(std::move(lhs), std::move(rhs), pos);
      } else {
        atom = Prop::equals(std::move(lhs), Expr::constant(number.number, number.pos), pos);
      }
    } else if (at(TokenKind::Ident) && !is_thread_name(tok_)) {
      atom = Prop::equals(std::move(lhs), Expr::location(tok_.text, tok_.pos), pos);
      advance();
    } else if (at(TokenKind::LBrack) || is_thread_name(tok_)) {
      atom = Prop::same_value(std::move(lhs), parse_observed_ref(), pos);
    } else {
      unexpected("a value");
    }
    return negated ? Prop::negation(std::move(atom), pos) : atom;
  }

  Lexer lex_;
  const ParseLimits& limits_;
  Token tok_;
  Test test_;
  std::vector<Warning> warnings_;
  int depth_ = 0;
  bool named_registers_ = false;  // C tests: `N:NAME` with NAME any identifier
};

}  // namespace

namespace detail {

Test parse_lisa_trailers(Lexer lexer, Test test, const ParseLimits& limits, std::vector<ParseWarning>& warnings,
                         bool named_registers) {
  Parser parser(std::move(lexer), std::move(test), limits);
  parser.allow_named_registers(named_registers);
  Test result = parser.parse_trailers_only();
  for (const auto& w : parser.warnings()) warnings.push_back({w.pos, w.message});
  return result;
}

}  // namespace detail

ParseResult parse_litmus(std::string_view text, const ParseLimits& limits) {
  ParseResult result;
  // A UTF-8 byte-order mark, which some editors write, is skipped (docs/litmus-format.md);
  // columns on line 1 count from after it, as editors show them.
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  if (text.size() > limits.max_file_bytes) {
    result.diagnostics.error(
        {}, fmt::format("file is {} bytes, larger than the limit of {} bytes", text.size(), limits.max_file_bytes));
    return result;
  }
  Test test;
  try {
    if (detail::starts_c_test(text)) {  // herd's C format (docs/litmus-c.md)
      std::vector<detail::ParseWarning> warnings;
      test = detail::parse_c_test(text, limits, warnings);
      for (const auto& w : warnings) result.diagnostics.warning(w.pos, w.message);
    } else {
      Parser parser(text, limits);
      test = parser.parse();
      for (const auto& w : parser.warnings()) result.diagnostics.warning(w.pos, w.message);
    }
  } catch (const SyntaxError& e) {
    result.diagnostics.error(e.pos, e.message);
    return result;
  }
  if (check_test(test, result.diagnostics, limits)) result.test = std::move(test);
  return result;
}

ParseResult parse_litmus_file(const std::filesystem::path& path, const ParseLimits& limits) {
  ParseResult result;
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    result.diagnostics.error({}, "is a directory");
    return result;
  }
  if (std::filesystem::is_symlink(path, ec) && !std::filesystem::exists(path, ec)) {
    result.diagnostics.error({}, fmt::format("a dangling symbolic link (to '{}', which does not exist)",
                                             std::filesystem::read_symlink(path, ec).string()));
    return result;
  }
  auto size = std::filesystem::file_size(path, ec);
  if (ec) {
    result.diagnostics.error({}, fmt::format("cannot read: {}", ec.message()));
    return result;
  }
  if (size > limits.max_file_bytes) {
    result.diagnostics.error(
        {}, fmt::format("file is {} bytes, larger than the limit of {} bytes", size, limits.max_file_bytes));
    return result;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    result.diagnostics.error({}, "cannot open file");
    return result;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return parse_litmus(buffer.str(), limits);
}

}  // namespace hsalit::litmus
