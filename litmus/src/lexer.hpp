// The tokenizer of the LISA dialect. The parser drives it one token at a time and may
// switch to raw reading for the header line and the metadata lines.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "hsalit/litmus/source.hpp"

namespace hsalit::litmus::detail {

enum class TokenKind {
  Ident,     // names, opcodes, labels, locations: [A-Za-z_][A-Za-z0-9_.]*
  Register,  // r0, r12, %T1
  Number,    // -12, 42, 0x2a
  String,    // "..." (text without the quotes)
  LParen,
  RParen,
  LBrack,
  RBrack,
  LBrace,
  RBrace,
  Semi,
  Pipe,
  Comma,
  Colon,
  Equals,     // = and ==
  NotEquals,  // != and <>
  Implies,    // =>
  Plus,
  Tilde,
  And,  // /\ .
  Or,   // \/ .
  End,
};

std::string_view describe(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::End;
  std::string text;
  std::int64_t number = 0;
  SourcePos pos;
};

// Thrown for malformed input; the parser turns it into one diagnostic.
struct SyntaxError {
  SourcePos pos;
  std::string message;
};

// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
// nothing above U+10FFFF) that starts at text[at], or 0 when none does.
std::size_t utf8_sequence_length(std::string_view text, std::size_t at);

// A metadata key as diy7 writes them (`Cycle`, `Com`, `Scopes`): a letter or '_', then
// letters, digits, '_', '.' or '-'.
bool is_metadata_key(std::string_view key);
// A metadata value is one line without leading or trailing blanks (the parser trims them).
bool is_metadata_value(std::string_view value);

// The offset just past the `*)` that closes the herd comment `(*` at `start` (comments nest,
// as in herd and OCaml); std::string_view::npos when it is not closed.
std::size_t herd_comment_end(std::string_view text, std::size_t start);

// Every byte the lexer reads must be well-formed UTF-8 (names, descriptions and metadata
// are copied into JSON), except the content of comments, which is skipped undecoded as herd7
// does: a Latin-1 byte in a comment is accepted. A malformed sequence elsewhere is a
// SyntaxError at its first byte.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}
  // A lexer that starts reading at byte `offset` of `text`, which is at position `at` (where
  // another front end handed over, between two tokens).
  Lexer(std::string_view text, std::size_t offset, SourcePos at)
      : text_(text), pos_(offset), line_(at.line), column_(at.column), utf8_checked_until_(offset) {}

  Token next();  // skips blanks and (* nested *) comments
  SourcePos position() const { return {line_, column_}; }

  // Raw reading for the header: skips blanks and comments on the current line and returns
  // the next run of non-blank characters (empty at end of line).
  std::string raw_word_on_line();
  // Skips blanks and comments (across lines) and returns the next character, or '\0'.
  char peek_char();
  // Skips blanks and comments on the current line; when nothing else is left on it, moves
  // past the end of the line and returns true. Otherwise stops at the first other character.
  bool finish_line();
  // Returns the rest of the current line (without the newline) and moves past it.
  std::string raw_rest_of_line();

 private:
  char at(std::size_t i) const { return pos_ + i < text_.size() ? text_[pos_ + i] : '\0'; }
  void advance();
  void skip_blanks_and_comments(bool cross_lines);
  [[noreturn]] void invalid_utf8() const;

  std::string_view text_;
  std::size_t pos_ = 0;
  std::uint32_t line_ = 1;
  std::uint32_t column_ = 1;
  bool in_comment_ = false;
  std::size_t utf8_checked_until_ = 0;  // bytes before this offset belong to a checked sequence
};

}  // namespace hsalit::litmus::detail
