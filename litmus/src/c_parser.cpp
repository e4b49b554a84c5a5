// herd's C litmus format with its OpenCL extensions, lowered to the LISA test AST
// (docs/litmus-c.md is the reference for what is accepted and how each construct lowers).
#include "c_parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <limits>
#include <map>
#include <set>

namespace hsalit::litmus::detail {
namespace {

// ---- tokens --------------------------------------------------------------------------------

enum class CTokenKind { Ident, Number, String, Punct, End };

struct CToken {
  CTokenKind kind = CTokenKind::End;
  std::string text;  // Punct: the punctuation itself (`==` and `!=` are one token)
  std::int64_t number = 0;
  SourcePos pos;
  std::size_t offset = 0;  // byte offset of the token's first character
};

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Skips herd's `(* ... *)` comments (nested) and C's `//` and `/* */` comments.
class CLexer {
 public:
  explicit CLexer(std::string_view text) : text_(text) {}

  SourcePos position() const { return {line_, column_}; }
  std::size_t offset() const { return pos_; }

  CToken next() {
    skip_blanks_and_comments(true);
    CToken tok;
    tok.pos = position();
    tok.offset = pos_;
    if (pos_ >= text_.size()) return tok;
    const char c = at(0);
    if (is_name_start(c)) {
      while (is_name_char(at(0))) take(tok.text);
      tok.kind = CTokenKind::Ident;
      return tok;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return number(std::move(tok));
    if (c == '"') return string(std::move(tok));
    if ((c == '=' || c == '!') && at(1) == '=') {
      take(tok.text);
      take(tok.text);
      tok.kind = CTokenKind::Punct;
      return tok;
    }
    if (std::string_view("(){}[];,=*&@:+-^|!~<>/\\").find(c) != std::string_view::npos) {
      take(tok.text);
      tok.kind = CTokenKind::Punct;
      return tok;
    }
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x80 && utf8_sequence_length(text_, pos_) == 0)
      throw SyntaxError{tok.pos, fmt::format("invalid UTF-8 (byte 0x{:02x}): litmus files are UTF-8 text", byte)};
    throw SyntaxError{tok.pos, byte >= 0x80 ? fmt::format("unexpected character (a non-ASCII byte 0x{:02x})", byte)
                               : std::isprint(byte) ? fmt::format("unexpected character '{}'", c)
                                                    : fmt::format("unexpected character (byte 0x{:02x})", byte)};
  }

  // The next run of non-blank characters on the current line (empty at its end): herd's test
  // names hold any character but blanks (`RWC_..._0||1|2`).
  std::string raw_word_on_line() {
    skip_blanks_and_comments(false);
    std::string word;
    while (pos_ < text_.size() && !std::isspace(static_cast<unsigned char>(at(0)))) {
      if (static_cast<unsigned char>(at(0)) >= 0x80 && utf8_sequence_length(text_, pos_) == 0)
        throw SyntaxError{position(), fmt::format("invalid UTF-8 (byte 0x{:02x}): litmus files are UTF-8 text",
                                                  static_cast<unsigned char>(at(0)))};
      take(word);
    }
    return word;
  }

  // The first word of the file, after blank lines and comments.
  std::string first_word() {
    skip_blanks_and_comments(true);
    return raw_word_on_line();
  }

  // Skips blanks and comments on the current line; whether nothing else is left on it.
  bool line_is_done() {
    skip_blanks_and_comments(false);
    return pos_ >= text_.size() || at(0) == '\n';
  }

 private:
  char at(std::size_t i) const { return pos_ + i < text_.size() ? text_[pos_ + i] : '\0'; }
  void advance() {
    if (pos_ >= text_.size()) return;
    if (text_[pos_] == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
  }
  void take(std::string& into) {
    into += at(0);
    advance();
  }

  // `(*` starts herd's comment where C cannot mean `(*p ...)`: followed by a blank, a `*` or
  // the end. `if (*x == 1)` (herd's published OpenCL tests) is a dereference.
  bool herd_comment_follows() const {
    const char next = at(2);
    return next == '\0' || next == ' ' || next == '\t' || next == '\n' || next == '\r' || next == '*' || next == ')';
  }

  void skip_blanks_and_comments(bool cross_lines) {
    for (;;) {
      const char c = at(0);
      if (c == ' ' || c == '\t' || c == '\r' || (cross_lines && c == '\n')) {
        advance();
      } else if (c == '(' && at(1) == '*' && herd_comment_follows()) {
        skip_herd_comment();
      } else if (c == '/' && at(1) == '/') {
        while (pos_ < text_.size() && at(0) != '\n') advance();
      } else if (c == '/' && at(1) == '*') {
        const SourcePos start = position();
        advance();
        advance();
        while (!(at(0) == '*' && at(1) == '/')) {
          if (pos_ >= text_.size()) throw SyntaxError{start, "unterminated comment '/*'"};
          advance();
        }
        advance();
        advance();
      } else {
        return;
      }
    }
  }

  void skip_herd_comment() {
    const SourcePos start = position();
    const std::size_t end = herd_comment_end(text_, pos_);
    if (end == std::string_view::npos) throw SyntaxError{start, "unterminated comment '(*'"};
    while (pos_ < end) advance();
  }

  CToken number(CToken tok) {
    int base = 10;
    std::string digits;
    if (at(0) == '0' && (at(1) == 'x' || at(1) == 'X')) {
      base = 16;
      advance();
      advance();
    }
    while (std::isxdigit(static_cast<unsigned char>(at(0))) &&
           (base == 16 || std::isdigit(static_cast<unsigned char>(at(0)))))
      take(digits);
    if (digits.empty() || is_name_char(at(0))) throw SyntaxError{tok.pos, "malformed number"};
    std::uint64_t magnitude = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
    (void)ptr;
    if (ec != std::errc() || magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throw SyntaxError{tok.pos, "number out of range (values are 64-bit signed integers)"};
    tok.kind = CTokenKind::Number;
    tok.number = static_cast<std::int64_t>(magnitude);
    tok.text = std::string(text_.substr(tok.offset, pos_ - tok.offset));
    return tok;
  }

  CToken string(CToken tok) {
    advance();
    while (at(0) != '"') {
      if (pos_ >= text_.size() || at(0) == '\n')
        throw SyntaxError{tok.pos, "unterminated string (a description is one line in double quotes)"};
      if (static_cast<unsigned char>(at(0)) >= 0x80 && utf8_sequence_length(text_, pos_) == 0)
        throw SyntaxError{position(), fmt::format("invalid UTF-8 (byte 0x{:02x}): litmus files are UTF-8 text",
                                                  static_cast<unsigned char>(at(0)))};
      take(tok.text);
    }
    advance();
    tok.kind = CTokenKind::String;
    return tok;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::uint32_t column_ = 1;
};

// ---- the C vocabulary ------------------------------------------------------------------------

// OpenCL's memory_order_*; seq_cst is read as scar (docs/litmus-c.md).
std::optional<MemoryOrder> memory_order_from(std::string_view word) {
  if (word == "memory_order_relaxed") return MemoryOrder::Relaxed;
  if (word == "memory_order_acquire") return MemoryOrder::Acquire;
  if (word == "memory_order_release") return MemoryOrder::Release;
  if (word == "memory_order_acq_rel" || word == "memory_order_seq_cst") return MemoryOrder::AcquireRelease;
  return std::nullopt;
}

// OpenCL's memory_scope_*: work-item (and sub-group) scope is read as wavefront scope, the
// narrowest an HSA atomic has; the other three are HSA's wg, agent and system.
std::optional<Scope> memory_scope_from(std::string_view word) {
  if (word == "memory_scope_work_item" || word == "memory_scope_sub_group") return Scope::Wavefront;
  if (word == "memory_scope_work_group") return Scope::WorkGroup;
  if (word == "memory_scope_device") return Scope::Agent;
  if (word == "memory_scope_all_svm_devices") return Scope::System;
  return std::nullopt;
}

// OpenCL's default scope, when an `_explicit` call leaves it out or a call has no `_explicit`.
constexpr Scope kDefaultScope = Scope::Agent;

bool is_register_name(std::string_view s) {
  return s.size() > 1 && s[0] == 'r' && s.find_first_not_of("0123456789", 1) == std::string_view::npos;
}

// The LISA register of a C register: itself for r0, r1, ...; `%NAME` for any other C name
// (herd's C tests name registers freely: `int x1 = ...`), which a condition names as `N:NAME`.
std::string lisa_register(std::string_view c_name) {
  return is_register_name(c_name) ? std::string(c_name) : "%" + std::string(c_name);
}

bool is_thread_name(const CToken& t) {
  return t.kind == CTokenKind::Ident && t.text.size() > 1 && t.text[0] == 'P' &&
         t.text.find_first_not_of("0123456789", 1) == std::string::npos;
}

const std::set<std::string_view>& type_words() {
  static const std::set<std::string_view> words = {
      "int",    "atomic_int", "unsigned", "uint",    "atomic_uint", "volatile",       "const",
      "global", "__global",   "local",    "__local", "intptr_t",    "atomic_intptr_t"};
  return words;
}

std::optional<Segment> segment_qualifier(std::string_view word) {
  if (word == "global" || word == "__global") return Segment::Global;
  if (word == "local" || word == "__local") return Segment::Group;
  return std::nullopt;
}

// The read-modify-writes that combine the old value with an operand.
std::optional<BinaryOp> fetch_operation(std::string_view name) {
  const COperator* o = find_operator(kCFetchOperations, name);
  return o ? std::optional<BinaryOp>(o->op) : std::nullopt;
}

// ---- the parser ------------------------------------------------------------------------------

class CParser {
 public:
  CParser(std::string_view text, const ParseLimits& limits, std::vector<ParseWarning>& warnings)
      : text_(text), lex_(text), limits_(limits), warnings_(warnings) {}

  Test parse() {
    parse_header();
    advance();
    parse_init();
    while (is_thread_name(tok_)) parse_thread();
    if (test_.threads.empty()) unexpected("a thread 'P0(...) { ... }'");
    // What follows the threads is read as LISA reads it: the same conditions (and LISA's
    // `scopes:` and `regions:` lines, which must then agree with the C text).
    Lexer trailer(text_, tok_.offset, tok_.pos);
    test_ = parse_lisa_trailers(std::move(trailer), std::move(test_), limits_, warnings_, true);
    rename_condition_registers();
    build_scope_tree();
    record_regions();
    return std::move(test_);
  }

 private:
  // ---- token helpers -------------------------------------------------------------------------
  void advance() { tok_ = lex_.next(); }
  [[noreturn]] void fail(SourcePos pos, std::string message) { throw SyntaxError{pos, std::move(message)}; }
  [[noreturn]] void unexpected(std::string_view wanted) {
    std::string got = tok_.kind == CTokenKind::End ? "end of file" : fmt::format("'{}'", tok_.text);
    fail(tok_.pos, fmt::format("expected {}, found {}", wanted, got));
  }
  bool at_punct(std::string_view p) const { return tok_.kind == CTokenKind::Punct && tok_.text == p; }
  bool at_ident(std::string_view w) const { return tok_.kind == CTokenKind::Ident && tok_.text == w; }
  CToken expect_punct(std::string_view p, std::string_view wanted = {}) {
    if (!at_punct(p)) unexpected(wanted.empty() ? fmt::format("'{}'", p) : std::string(wanted));
    CToken t = std::move(tok_);
    advance();
    return t;
  }
  CToken expect_ident(std::string_view wanted) {
    if (tok_.kind != CTokenKind::Ident) unexpected(wanted);
    CToken t = std::move(tok_);
    advance();
    return t;
  }
  void enter(SourcePos pos) {
    if (++depth_ > limits_.max_nesting) fail(pos, fmt::format("nesting deeper than {} levels", limits_.max_nesting));
  }
  void leave() { --depth_; }

  // ---- header and initial state --------------------------------------------------------------
  void parse_header() {
    test_.arch = "LISA";  // the test is lowered to LISA (it prints back as LISA)
    lex_.first_word();    // `C`, `OpenCL` or `OPENCL`: starts_c_test checked it
    test_.name = lex_.raw_word_on_line();
    if (test_.name.empty()) fail(lex_.position(), "expected a test name after 'C'");
    if (!lex_.line_is_done()) fail(lex_.position(), "unexpected text after the test name (a test name has no blanks)");
  }

  void parse_init() {
    if (tok_.kind == CTokenKind::String) {
      test_.description = tok_.text;
      advance();
    }
    expect_punct("{", "'{' to start the initial state");
    while (!at_punct("}")) {
      if (at_punct(";")) {
        advance();
        continue;
      }
      parse_init_entry();
      if (!at_punct(";") && !at_punct("}")) unexpected("';' or '}'");
    }
    advance();
  }

  // `x = 0`, `[x] = 0`, or a declaration `int x = 0` / `global atomic_int x = 0`.
  void parse_init_entry() {
    InitEntry entry;
    entry.pos.at = tok_.pos;
    std::optional<Segment> segment;
    if (at_punct("[")) {
      advance();
      entry.name = expect_ident("a location").text;
      expect_punct("]");
    } else {
      while (tok_.kind == CTokenKind::Ident && type_words().count(tok_.text)) {
        if (auto s = segment_qualifier(tok_.text)) segment = s;
        advance();
      }
      if (at_punct("*")) fail(tok_.pos, "pointers in the initial state are not supported: a location holds a number");
      if (tok_.kind == CTokenKind::Number || tok_.kind == CTokenKind::Ident) {
        if (is_thread_name(tok_) || tok_.kind == CTokenKind::Number)
          fail(tok_.pos,
               "registers in the initial state are not supported: declare them in the thread "
               "('int r0 = 1;')");
      }
      entry.name = expect_ident("a location name in the initial state").text;
      if (tok_.kind == CTokenKind::Ident)
        fail(entry.pos.at, fmt::format("unknown type '{}' in the initial state (expected int, atomic_int, "
                                       "unsigned, global, local, volatile...)",
                                       entry.name));
    }
    expect_punct("=", "'='");
    entry.value = Expr::constant(parse_signed_number("a number"), entry.pos.at);
    if (segment) note_segment(entry.name, *segment, entry.pos.at);
    test_.init.push_back(std::move(entry));
  }

  std::int64_t parse_signed_number(std::string_view wanted) {
    bool negative = at_punct("-");
    if (negative) advance();
    if (tok_.kind != CTokenKind::Number) unexpected(wanted);
    std::int64_t value = negative ? -tok_.number : tok_.number;
    advance();
    return value;
  }

  // A location's segment, from `global`/`local` on its parameters and declarations; every
  // mention must agree.
  void note_segment(const std::string& location, Segment segment, SourcePos pos) {
    auto [it, inserted] = segments_.emplace(location, std::pair{segment, pos});
    if (!inserted && it->second.first != segment)
      fail(pos, fmt::format("'{}' is {} here but {} at {}:{}", location, segment_word(segment),
                            segment_word(it->second.first), it->second.second.line, it->second.second.column));
  }
  static std::string_view segment_word(Segment s) { return s == Segment::Group ? "local" : "global"; }

  // A `local` location is in the group segment; a `regions:` line may say so too, but not
  // the contrary.
  void record_regions() {
    for (const auto& segment_entry : segments_) {
      const std::string& location = segment_entry.first;  // not a structured binding: the lambda reads it
      const auto& where = segment_entry.second;
      auto listed = std::find_if(test_.regions.begin(), test_.regions.end(),
                                 [&](const RegionEntry& r) { return r.location == location; });
      if (listed != test_.regions.end()) {
        if (listed->segment != where.first)
          fail(listed->pos.at, fmt::format("'{}' is {} in the C text ({}:{})", location, segment_word(where.first),
                                           where.second.line, where.second.column));
        continue;
      }
      if (where.first != Segment::Group) continue;
      RegionEntry entry;
      entry.location = location;
      entry.segment = Segment::Group;
      entry.pos.at = where.second;
      test_.regions.push_back(std::move(entry));
    }
  }

  // ---- threads -------------------------------------------------------------------------------
  struct Placement {
    std::int64_t wg = 0;
    std::int64_t dev = 0;
    bool explicit_wg = false;
    SourcePos pos;
  };

  struct ThreadState {
    Thread thread;
    std::set<std::string> parameters;
    std::set<std::string> registers;
    int next_temporary = 0;
    int next_label = 0;
  };

  // The registers of each thread that a condition names by their C name (`1:x1`): renamed
  // as the thread's code names them (lisa_register).
  std::vector<std::set<std::string>> named_registers_;

  void rename_in(ObservedRef& ref) {
    if (!ref.thread || *ref.thread < 0 || static_cast<std::size_t>(*ref.thread) >= named_registers_.size()) return;
    if (named_registers_[static_cast<std::size_t>(*ref.thread)].count(ref.name)) ref.name = lisa_register(ref.name);
  }
  void rename_in(Prop& prop) {
    if (prop.is_atom()) {
      rename_in(prop.lhs);
      if (prop.kind == Prop::Kind::SameValue) rename_in(prop.rhs_ref);
    }
    for (Prop& operand : prop.operands) rename_in(operand);
  }
  void rename_condition_registers() {
    rename_in(test_.condition.prop);
    if (test_.filter) rename_in(*test_.filter);
    for (ObservedRef& ref : test_.locations) rename_in(ref);
  }

  void parse_thread() {
    const CToken name = tok_;
    const int id = static_cast<int>(test_.threads.size());
    if (id >= limits_.max_threads)
      fail(name.pos, fmt::format("too many threads (the limit is {})", limits_.max_threads));
    if (name.text != fmt::format("P{}", id))
      fail(name.pos, fmt::format("expected thread name 'P{}', found '{}' (threads are numbered P0, P1, ... in order)",
                                 id, name.text));
    advance();
    placements_.push_back(parse_placement());
    ThreadState state;
    state.thread.id = id;
    state.thread.pos.at = name.pos;
    named_registers_.emplace_back();
    parse_parameters(state);
    parse_block(state);
    test_.threads.push_back(std::move(state.thread));
  }

  // `@wg 0, dev 0`, as the OpenCL litmus tests of herd place their threads.
  std::optional<Placement> parse_placement() {
    if (!at_punct("@")) return std::nullopt;
    Placement p;
    p.pos = tok_.pos;
    advance();
    std::set<std::string> seen;
    for (;;) {
      const CToken level = expect_ident("'wg' or 'dev' after '@'");
      if (level.text != "wg" && level.text != "dev")
        fail(level.pos, fmt::format("unknown placement '{}' (expected wg N or dev N)", level.text));
      if (!seen.insert(level.text).second) fail(level.pos, fmt::format("'{}' is given twice", level.text));
      if (tok_.kind != CTokenKind::Number) unexpected(fmt::format("a number after '{}'", level.text));
      (level.text == "wg" ? p.wg : p.dev) = tok_.number;
      if (level.text == "wg") p.explicit_wg = true;
      advance();
      if (!at_punct(",")) break;
      advance();
    }
    return p;
  }

  // `(global atomic_int* x, local int* y)`: each parameter is a location of the test.
  void parse_parameters(ThreadState& state) {
    expect_punct("(", "'(' to start the parameters");
    if (at_ident("void")) advance();
    while (!at_punct(")")) {
      const SourcePos pos = tok_.pos;
      Segment segment = Segment::Global;
      bool typed = false;
      while (tok_.kind == CTokenKind::Ident && !at_punct("*")) {
        if (typed && !type_words().count(tok_.text))
          fail(tok_.pos, fmt::format("expected '*' before '{}': a parameter is a pointer to a location", tok_.text));
        if (!type_words().count(tok_.text))
          fail(tok_.pos, fmt::format("unknown type '{}' (expected int, atomic_int, unsigned, global, local, "
                                     "volatile...)",
                                     tok_.text));
        if (auto s = segment_qualifier(tok_.text)) segment = *s;
        typed = true;
        advance();
      }
      if (!typed) unexpected("a parameter type such as 'global atomic_int*'");
      expect_punct("*", "'*': a parameter is a pointer to a location");
      const CToken name = expect_ident("a parameter name");
      if (is_register_name(name.text))
        fail(name.pos, fmt::format("'{}' names a register: a location cannot be called r0, r1, ...", name.text));
      if (!state.parameters.insert(name.text).second)
        fail(name.pos, fmt::format("parameter '{}' is given twice", name.text));
      note_segment(name.text, segment, pos);
      if (at_punct(",")) {
        advance();
        if (at_punct(")")) unexpected("a parameter after ','");
      } else if (!at_punct(")")) {
        unexpected("',' or ')' in the parameters");
      }
    }
    advance();
  }

  void parse_block(ThreadState& state) {
    enter(tok_.pos);
    expect_punct("{", "'{'");
    while (!at_punct("}")) {
      if (tok_.kind == CTokenKind::End) unexpected("'}' to close the block");
      parse_statement(state);
    }
    advance();
    leave();
  }

  void push(ThreadState& state, Instruction ins) {
    if (static_cast<int>(state.thread.code.size()) >= limits_.max_instructions_per_thread)
      fail(ins.pos.at, fmt::format("thread P{} has more than {} instructions", state.thread.id,
                                   limits_.max_instructions_per_thread));
    state.thread.code.push_back(std::move(ins));
  }

  void parse_statement(ThreadState& state) {
    const SourcePos pos = tok_.pos;
    if (at_punct(";")) {
      advance();
      return;
    }
    if (at_punct("{")) return parse_block(state);
    if (at_ident("if")) return parse_if(state);
    if (at_punct("*")) {  // `*x = VALUE;`
      advance();
      Instruction store = plain_access(OpKind::Store, location_argument(state), pos);
      expect_punct("=", "'=' after '*LOCATION'");
      store.value = parse_operand(state);
      push(state, std::move(store));
      expect_punct(";", "';' after the statement");
      return;
    }
    if (tok_.kind != CTokenKind::Ident) unexpected("a statement");
    bool declaration = false;
    while (tok_.kind == CTokenKind::Ident && type_words().count(tok_.text)) {
      declaration = true;
      advance();
    }
    const CToken name = expect_ident(declaration ? "a register name" : "a statement");
    if (declaration && at_punct(";")) {  // `int r;`: declared, 0 until assigned (LISA's registers start at 0)
      check_register_name(state, name, true);
      declare_register(state, name);
      advance();
      return;
    }
    if (!declaration && at_punct(":")) {  // a statement label (herd names barriers so: `B1: barrier(...)`)
      advance();
      if (at_punct("}")) unexpected("a statement after the label");
      return parse_statement(state);
    }
    if (at_punct("(")) {
      if (declaration) unexpected("'=' after the register");
      parse_call(state, name, std::nullopt);
    } else {
      check_register_name(state, name, declaration);
      expect_punct("=", "'='");
      parse_assigned_value(state, name);
      declare_register(state, name);
    }
    expect_punct(";", "';' after the statement");
  }

  void check_register_name(const ThreadState& state, const CToken& name, bool declaration) {
    if (declaration && state.parameters.count(name.text))
      fail(name.pos,
           fmt::format("'{}' is a parameter of P{}: a register needs another name", name.text, state.thread.id));
    if (is_temporary_name(name.text))
      fail(name.pos, fmt::format("'{}' is the name of one of hsalit's temporaries (%T0, %T1, ...): rename the "
                                 "register",
                                 name.text));
    if (!declaration && !state.registers.count(name.text))
      fail(name.pos, fmt::format("register '{}' is not declared in P{} (write 'int {} = ...')", name.text,
                                 state.thread.id, name.text));
  }

  void declare_register(ThreadState& state, const CToken& name) {
    state.registers.insert(name.text);
    if (!is_register_name(name.text)) named_registers_[static_cast<std::size_t>(state.thread.id)].insert(name.text);
  }

  // Whether a load (`*x`) or a call starts here, rather than a value.
  bool at_read(const ThreadState& state) const {
    return at_punct("*") || (tok_.kind == CTokenKind::Ident && !state.registers.count(tok_.text));
  }

  // A load (`*x`) or a call with a value, read into LISA register `reg`; false, consuming
  // nothing, where the text is neither (a value).
  bool parse_read_into(ThreadState& state, const std::string& reg) {
    if (!at_read(state)) return false;
    const SourcePos pos = tok_.pos;
    if (at_punct("*")) {
      advance();
      Instruction load = plain_access(OpKind::Load, location_argument(state), pos);
      load.reg = reg;
      push(state, std::move(load));
      return true;
    }
    const CToken function = tok_;
    advance();
    if (!at_punct("("))
      fail(function.pos, fmt::format("'{}' is neither a register of P{} nor a call", function.text, state.thread.id));
    parse_call(state, function, reg);
    return true;
  }

  // What `int r0 = ...` or `r0 = ...` assigns: a load, an atomic call, or a value.
  void parse_assigned_value(ThreadState& state, const CToken& reg) {
    const SourcePos pos = tok_.pos;
    if (parse_read_into(state, lisa_register(reg.text))) return;
    Instruction mov;
    mov.kind = OpKind::Mov;
    mov.pos.at = pos;
    mov.reg = lisa_register(reg.text);
    mov.value = parse_value(state, "a value, '*LOCATION' or a call");
    if (const COperator* o = tok_.kind == CTokenKind::Punct ? find_operator(kCOperators, tok_.text) : nullptr) {
      const SourcePos at = tok_.pos;
      advance();
      Expr rhs = parse_value(state, "a value after the operator");
      mov.value = Expr::binary(o->op, std::move(mov.value), std::move(rhs), at);
    }
    push(state, std::move(mov));
  }

  // A constant (`1`, `-1`) or a declared register.
  Expr parse_value(ThreadState& state, std::string_view wanted) {
    const SourcePos pos = tok_.pos;
    if (tok_.kind == CTokenKind::Ident) {
      if (!state.registers.count(tok_.text))
        fail(pos, fmt::format("'{}' is not a register of P{} (a value is a constant or a declared register)", tok_.text,
                              state.thread.id));
      Expr e = Expr::reg(lisa_register(tok_.text), pos);
      advance();
      return e;
    }
    if (!at_punct("-") && tok_.kind != CTokenKind::Number) unexpected(wanted);
    return Expr::constant(parse_signed_number(wanted), pos);
  }

  // A location argument: one of the thread's parameters.
  Address location_argument(ThreadState& state) {
    if (at_punct("&")) fail(tok_.pos, "write the parameter itself ('x'), not its address ('&x')");
    const CToken name = expect_ident("a location (a parameter of the thread)");
    if (!state.parameters.count(name.text))
      fail(name.pos, fmt::format("'{}' is not a parameter of P{}", name.text, state.thread.id));
    Address a;
    a.base = Expr::location(name.text, name.pos);
    a.pos.at = name.pos;
    return a;
  }

  static Instruction plain_access(OpKind kind, Address addr, SourcePos pos) {
    Instruction ins;
    ins.kind = kind;
    ins.addr = std::move(addr);
    ins.pos.at = pos;
    return ins;
  }

  std::string temporary(ThreadState& state) { return fmt::format("%T{}", state.next_temporary++); }
  std::string fresh_label(ThreadState& state) { return fmt::format("L{}", state.next_label++); }

  // ---- calls ---------------------------------------------------------------------------------
  struct Call {
    CToken function;
    std::string base;  // the name without `_explicit`
    bool explicit_form = false;
  };

  void skip_comma(std::string_view wanted) { expect_punct(",", wanted); }

  MemoryOrder parse_order() {
    const CToken word = expect_ident("a memory order (memory_order_relaxed, ...)");
    last_order_ = word;
    auto order = memory_order_from(word.text);
    if (!order) {
      if (word.text == "memory_order_consume")
        fail(word.pos, "memory_order_consume is not supported: write memory_order_acquire");
      fail(word.pos, fmt::format("unknown memory order '{}' (expected memory_order_relaxed, _acquire, _release, "
                                 "_acq_rel or _seq_cst)",
                                 word.text));
    }
    return *order;
  }

  Scope parse_scope() {
    const CToken word = expect_ident("a memory scope (memory_scope_work_group, ...)");
    auto scope = memory_scope_from(word.text);
    if (!scope)
      fail(word.pos, fmt::format("unknown memory scope '{}' (expected memory_scope_work_item, _work_group, "
                                 "_device or _all_svm_devices)",
                                 word.text));
    return *scope;
  }

  // The trailing `order [, scope]` of an `_explicit` call, or the defaults of a plain one.
  // The trailing `order [, scope]` of an `_explicit` call (`success, failure [, scope]` for a
  // compare-exchange), or the defaults of a plain one.
  Annotations parse_ordering(const Call& call, bool comma_before, bool then_failure_order = false) {
    Annotations a;
    a.atomic = true;
    a.order = MemoryOrder::AcquireRelease;  // seq_cst
    a.seq_cst = true;
    a.scope = kDefaultScope;
    if (!call.explicit_form) return a;
    if (comma_before) skip_comma("',' before the memory order");
    a.order = parse_order();
    a.seq_cst = last_order_.text == "memory_order_seq_cst";
    if (then_failure_order) {
      const std::string success = last_order_.text;
      skip_comma("',' before the failure order");
      parse_order();
      check_failure_order(success);
    }
    if (at_punct(",")) {
      advance();
      a.scope = parse_scope();
    }
    return a;
  }

  // C11 7.17.7.4: the failure order is not release or acq_rel and no stronger than the
  // success order; the lowered compare-exchange then has the success order in both outcomes.
  void check_failure_order(std::string_view success) {
    const std::string_view failure = last_order_.text;
    // C11 forbids these (a failed compare-exchange writes nothing to release), herd's tests use
    // them: read with a warning, the failure then orders as the lowering's success order does.
    if (failure == "memory_order_release" || failure == "memory_order_acq_rel")
      warnings_.push_back({last_order_.pos, fmt::format("a compare-exchange's failure order cannot be {} (C11 "
                                                        "7.17.7.4): read as the success order",
                                                        failure)});
    const bool stronger =
        (failure == "memory_order_seq_cst" && success != "memory_order_seq_cst") ||
        (failure == "memory_order_acquire" && (success == "memory_order_relaxed" || success == "memory_order_release"));
    if (stronger)
      fail(last_order_.pos,
           fmt::format("the failure order {} is stronger than the success order {}", failure, success));
  }

  // C11 7.17.7.1 and 7.17.7.2: a store is not acquire or acq_rel, a load not release or
  // acq_rel. Checked on the word written, since seq_cst and acq_rel both become scar.
  void check_order(const Call& call, bool is_load) {
    if (!call.explicit_form) return;
    const std::string_view word = last_order_.text;
    const bool wrong =
        word == "memory_order_acq_rel" || word == (is_load ? "memory_order_release" : "memory_order_acquire");
    if (wrong) fail(last_order_.pos, fmt::format("{} cannot be {}", call.function.text, word));
  }

  // `function(...)` at '(' ; `result` is the register assigned, if any.
  void parse_call(ThreadState& state, const CToken& function, std::optional<std::string> result) {
    Call call{function, function.text, false};
    if (call.base.ends_with("_explicit")) {
      call.base.resize(call.base.size() - std::string_view("_explicit").size());
      call.explicit_form = true;
    }
    expect_punct("(");
    const std::string& f = call.base;
    if (f == "atomic_store") {
      if (result) fail(function.pos, fmt::format("{} returns nothing", function.text));
      parse_store(state, call);
    } else if (f == "atomic_load") {
      parse_load(state, call, result);
    } else if (f == "atomic_exchange" || (f.starts_with("atomic_fetch_") && fetch_operation(f.substr(13)))) {
      parse_rmw(state, call, result);
    } else if (f == "atomic_compare_exchange_strong") {
      parse_cas(state, call, result);
    } else if (f == "atomic_thread_fence" && !call.explicit_form) {
      if (result) fail(function.pos, "atomic_thread_fence returns nothing");
      parse_fence(state, call, false);
    } else if (f == "atomic_work_item_fence" && !call.explicit_form) {
      if (result) fail(function.pos, "atomic_work_item_fence returns nothing");
      parse_fence(state, call, true);
    } else if ((f == "barrier" || f == "work_group_barrier") && !call.explicit_form) {
      if (result) fail(function.pos, fmt::format("{} returns nothing", function.text));
      parse_barrier(state, call);
    } else if (f == "atomic_compare_exchange_weak") {
      fail(function.pos, fmt::format("{} is not supported (it may fail spuriously): write "
                                     "atomic_compare_exchange_strong{}",
                                     function.text, call.explicit_form ? "_explicit" : ""));
    } else {
      fail(function.pos,
           fmt::format("unknown or unsupported function '{}' (docs/litmus-c.md lists what is read)", function.text));
    }
    expect_punct(")", "')' to close the call");
  }

  void parse_store(ThreadState& state, const Call& call) {
    Instruction ins = plain_access(OpKind::Store, location_argument(state), call.function.pos);
    skip_comma("',' before the value to store");
    ins.value = parse_value(state, "a constant or a register to store");
    ins.annots = parse_ordering(call, true);
    check_order(call, false);
    push(state, std::move(ins));
  }

  void parse_load(ThreadState& state, const Call& call, const std::optional<std::string>& result) {
    Instruction ins = plain_access(OpKind::Load, location_argument(state), call.function.pos);
    ins.annots = parse_ordering(call, true);
    check_order(call, true);
    ins.reg = result ? *result : temporary(state);
    push(state, std::move(ins));
  }

  // atomic_exchange and atomic_fetch_OP: the new value is the operand, or the old value (the
  // destination register, as LISA's rmw reads it) combined with it.
  void parse_rmw(ThreadState& state, const Call& call, const std::optional<std::string>& result) {
    Instruction ins = plain_access(OpKind::Rmw, location_argument(state), call.function.pos);
    ins.reg = result ? *result : temporary(state);
    skip_comma("',' before the operand");
    Expr operand = parse_value(state, "a constant or a register");
    if (operand.is_register() && operand.name == ins.reg)
      fail(operand.pos.at, fmt::format("'{}' is both the operand and the result: use another register", ins.reg));
    if (call.base == "atomic_exchange")
      ins.value = std::move(operand);
    else
      ins.value = Expr::binary(*fetch_operation(std::string_view(call.base).substr(13)), Expr::reg(ins.reg),
                               std::move(operand), call.function.pos);
    ins.annots = parse_ordering(call, true);
    push(state, std::move(ins));
  }

  // atomic_compare_exchange_strong(obj, expected, desired[, success, failure[, scope]]) with
  // `expected` a location, as C has it: read `expected`; compare-and-swap `obj`; the call's
  // value is whether it succeeded; on failure the value found is written back to `expected`.
  void parse_cas(ThreadState& state, const Call& call, const std::optional<std::string>& result) {
    const SourcePos pos = call.function.pos;
    Address object = location_argument(state);
    skip_comma("',' before the expected value's location");
    Address expected_at = location_argument(state);
    skip_comma("',' before the desired value");
    Expr desired = parse_value(state, "a constant or a register");
    // One order for both outcomes: the success order (docs/litmus-c.md).
    Annotations annots = parse_ordering(call, true, /*then_failure_order=*/true);
    const std::string expected = temporary(state);
    Instruction read_expected = plain_access(OpKind::Load, expected_at, pos);
    read_expected.reg = expected;
    push(state, std::move(read_expected));

    const std::string old = temporary(state);
    Instruction cas = plain_access(OpKind::Rmw, std::move(object), pos);
    cas.annots = annots;
    cas.annots.cas = true;
    cas.reg = old;
    cas.expected = Expr::reg(expected, pos);
    cas.value = std::move(desired);
    push(state, std::move(cas));

    if (result) {
      Instruction success;
      success.kind = OpKind::Mov;
      success.pos.at = pos;
      success.reg = *result;
      success.value = Expr::binary(BinaryOp::Eq, Expr::reg(old, pos), Expr::reg(expected, pos), pos);
      push(state, std::move(success));
    }
    const std::string done = fresh_label(state);
    Instruction skip;
    skip.kind = OpKind::Branch;
    skip.pos.at = pos;
    skip.condition = Expr::binary(BinaryOp::Eq, Expr::reg(old, pos), Expr::reg(expected, pos), pos);
    skip.label = done;
    push(state, std::move(skip));
    Instruction write_back = plain_access(OpKind::Store, std::move(expected_at), pos);
    write_back.value = Expr::reg(old, pos);
    push(state, std::move(write_back));
    push(state, label(done, pos));
  }

  static Instruction label(std::string name, SourcePos pos) {
    Instruction ins;
    ins.kind = OpKind::Label;
    ins.label = std::move(name);
    ins.pos.at = pos;
    return ins;
  }

  // atomic_thread_fence(order), at device scope; atomic_work_item_fence(flags, order, scope).
  void parse_fence(ThreadState& state, const Call& call, bool work_item_fence) {
    Instruction ins;
    ins.kind = OpKind::Fence;
    ins.pos.at = call.function.pos;
    if (work_item_fence) {
      ins.annots.fence_segment = parse_fence_flags();
      skip_comma("',' before the memory order");
    }
    ins.annots.order = parse_order();
    ins.annots.seq_cst = last_order_.text == "memory_order_seq_cst";
    ins.annots.scope = kDefaultScope;
    if (work_item_fence) {
      skip_comma("',' before the memory scope");
      ins.annots.scope = parse_scope();
    }
    if (ins.annots.order == MemoryOrder::Relaxed) {
      warnings_.push_back({ins.pos.at, "a relaxed fence orders nothing: left out"});
      return;
    }
    push(state, std::move(ins));
  }

  // barrier(FLAGS) and work_group_barrier(FLAGS [, memory_scope_work_group]): LISA's barrier,
  // ordering the address spaces FLAGS names (barrier[global], barrier[group], or both).
  void parse_barrier(ThreadState& state, const Call& call) {
    Instruction ins;
    ins.kind = OpKind::Barrier;
    ins.pos.at = call.function.pos;
    ins.annots.fence_segment = parse_fence_flags();
    if (call.base == "work_group_barrier" && at_punct(",")) {
      advance();
      const CToken scope = expect_ident("memory_scope_work_group");
      if (scope.text != "memory_scope_work_group")
        fail(scope.pos, fmt::format("a work_group_barrier's scope '{}' is not read: hsalit's barriers synchronise "
                                    "one work-group (memory_scope_work_group; docs/litmus-c.md)",
                                    scope.text));
    }
    push(state, std::move(ins));
  }

  // CLK_GLOBAL_MEM_FENCE, CLK_LOCAL_MEM_FENCE, or both joined by '|': the one segment the
  // fence orders, or none for both. The HSA model orders both whatever the flags say; the
  // OpenCL model reads them (docs/litmus-c.md).
  std::optional<Segment> parse_fence_flags() {
    bool global = false, local = false;
    for (;;) {
      const CToken flag = expect_ident("CLK_GLOBAL_MEM_FENCE or CLK_LOCAL_MEM_FENCE");
      if (flag.text != "CLK_GLOBAL_MEM_FENCE" && flag.text != "CLK_LOCAL_MEM_FENCE" &&
          flag.text != "CLK_IMAGE_MEM_FENCE")
        fail(flag.pos,
             fmt::format("unknown fence flag '{}' (expected CLK_GLOBAL_MEM_FENCE or CLK_LOCAL_MEM_FENCE)", flag.text));
      if (flag.text == "CLK_IMAGE_MEM_FENCE") fail(flag.pos, "images are not supported: CLK_IMAGE_MEM_FENCE");
      (flag.text == "CLK_GLOBAL_MEM_FENCE" ? global : local) = true;
      if (!at_punct("|")) break;
      advance();
    }
    if (global == local) return std::nullopt;
    return global ? Segment::Global : Segment::Group;
  }

  // ---- if --------------------------------------------------------------------------------------
  // `if (COND) S [else S]`: a forward branch over S when COND is false.
  void parse_if(ThreadState& state) {
    const SourcePos pos = tok_.pos;
    enter(pos);
    advance();
    expect_punct("(", "'(' after 'if'");
    Expr skip_condition = parse_negated_condition(state);
    expect_punct(")", "')' to close the condition");
    const std::string otherwise = fresh_label(state);
    Instruction branch;
    branch.kind = OpKind::Branch;
    branch.pos.at = pos;
    branch.condition = std::move(skip_condition);
    branch.label = otherwise;
    push(state, std::move(branch));
    parse_branch_body(state);
    if (at_ident("else")) {
      const SourcePos else_pos = tok_.pos;
      advance();
      const std::string done = fresh_label(state);
      Instruction jump;
      jump.kind = OpKind::Branch;
      jump.pos.at = else_pos;
      jump.label = done;
      push(state, std::move(jump));
      push(state, label(otherwise, else_pos));
      parse_branch_body(state);
      push(state, label(done, else_pos));
    } else {
      push(state, label(otherwise, pos));
    }
    leave();
  }

  void parse_branch_body(ThreadState& state) {
    if (at_punct("{"))
      parse_block(state);
    else
      parse_statement(state);
  }

  // `r == v`, `v == r`, `r != v` or `r`: returns the condition under which the body is
  // skipped, as LISA's `b[eq]`/`b[ne]` compare a register with a value.
  // An operand of an `if` condition or the value of a store: a value, or a load (`*x`) or a
  // call whose value a temporary register takes first, as herd's tests write
  // `if (atomic_load_explicit(y, ...) == 1)` and `*val = *d;`.
  Expr parse_operand(ThreadState& state) {
    if (!at_read(state)) return parse_value(state, "a register or a value");
    const SourcePos pos = tok_.pos;
    const std::string value = temporary(state);
    parse_read_into(state, value);
    return Expr::reg(value, pos);
  }

  Expr parse_negated_condition(ThreadState& state) {
    const SourcePos pos = tok_.pos;
    Expr lhs = parse_operand(state);
    if (at_punct(")")) {
      if (!lhs.is_register()) fail(pos, "a constant condition: compare a register with a value");
      return Expr::binary(BinaryOp::Eq, std::move(lhs), Expr::constant(0, pos), pos);
    }
    bool equal = at_punct("==");
    if (!equal && !at_punct("!=")) unexpected("'==', '!=' or ')'");
    advance();
    Expr rhs = parse_operand(state);
    if (!lhs.is_register()) std::swap(lhs, rhs);
    if (!lhs.is_register()) fail(pos, "a constant condition: compare a register with a value");
    return Expr::binary(equal ? BinaryOp::Ne : BinaryOp::Eq, std::move(lhs), std::move(rhs), pos);
  }

  // ---- scope tree ------------------------------------------------------------------------------
  // From `@wg N, dev M`: one agent per device, one work-group per (device, wg). A thread
  // without a placement is alone in its own work-group of device 0; no placement at all is
  // the default tree (every thread in its own work-group of one agent).
  void build_scope_tree() {
    const int count = static_cast<int>(test_.threads.size());
    const std::optional<Placement>* placed = nullptr;
    for (const auto& p : placements_)
      if (p && !placed) placed = &p;
    if (!test_.scopes.nodes().empty()) {  // a LISA `scopes:` line
      if (placed)
        fail((*placed)->pos, "a thread placed with '@' in a test that has a 'scopes:' line: write one or the other");
      return;
    }
    if (!placed) {
      test_.scopes = ScopeTree::default_for(count);
      return;
    }
    std::map<std::int64_t, std::map<std::pair<bool, std::int64_t>, std::vector<int>>> devices;
    for (int t = 0; t < count; ++t) {
      const auto& p = placements_[static_cast<std::size_t>(t)];
      if (!p)
        devices[0][{false, t}].push_back(t);
      else if (p->explicit_wg)
        devices[p->dev][{true, p->wg}].push_back(t);
      else
        devices[p->dev][{false, t}].push_back(t);
    }
    for (const auto& [dev, groups] : devices) {
      ScopeNode agent{Scope::Agent, {}, {}};
      for (const auto& [key, members] : groups) {
        ScopeNode wg{Scope::WorkGroup, {}, {}};
        for (int t : members) wg.children.push_back({true, t});
        agent.children.push_back({false, test_.scopes.add_node(std::move(wg))});
      }
      test_.scopes.add_root(test_.scopes.add_node(std::move(agent)));
    }
  }

  std::string_view text_;
  CLexer lex_;
  const ParseLimits& limits_;
  std::vector<ParseWarning>& warnings_;
  CToken tok_;
  Test test_;
  std::vector<std::optional<Placement>> placements_;
  std::map<std::string, std::pair<Segment, SourcePos>> segments_;
  CToken last_order_;  // the memory order word read last, for check_order
  int depth_ = 0;
};

}  // namespace

bool starts_c_test(std::string_view text) {
  try {
    CLexer probe(text);
    const std::string first = probe.first_word();
    return first == "C" || first == "OpenCL" || first == "OPENCL";
  } catch (const SyntaxError&) {
    return false;  // the LISA parser reports it
  }
}

Test parse_c_test(std::string_view text, const ParseLimits& limits, std::vector<ParseWarning>& warnings) {
  return CParser(text, limits, warnings).parse();
}

}  // namespace hsalit::litmus::detail
