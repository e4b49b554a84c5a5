#include "lexer.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <limits>

namespace hsalit::litmus::detail {

std::size_t herd_comment_end(std::string_view text, std::size_t start) {
  int depth = 0;
  std::size_t pos = start;
  do {
    if (pos >= text.size()) return std::string_view::npos;
    if (text.substr(pos, 2) == "(*") {
      ++depth;
      pos += 2;
    } else if (text.substr(pos, 2) == "*)") {
      --depth;
      pos += 2;
    } else {
      ++pos;
    }
  } while (depth > 0);
  return pos;
}

std::string_view describe(TokenKind kind) {
  switch (kind) {
    case TokenKind::Ident: return "a name";
    case TokenKind::Register: return "a register";
    case TokenKind::Number: return "a number";
    case TokenKind::String: return "a string";
    case TokenKind::LParen: return "'('";
    case TokenKind::RParen: return "')'";
    case TokenKind::LBrack: return "'['";
    case TokenKind::RBrack: return "']'";
    case TokenKind::LBrace: return "'{'";
    case TokenKind::RBrace: return "'}'";
    case TokenKind::Semi: return "';'";
    case TokenKind::Pipe: return "'|'";
    case TokenKind::Comma: return "','";
    case TokenKind::Colon: return "':'";
    case TokenKind::Equals: return "'='";
    case TokenKind::NotEquals: return "'!='";
    case TokenKind::Implies: return "'=>'";
    case TokenKind::Plus: return "'+'";
    case TokenKind::Tilde: return "'~'";
    case TokenKind::And: return "'/\\'";
    case TokenKind::Or: return "'\\/'";
    case TokenKind::End: return "end of file";
  }
  return "?";
}

namespace {
bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
}  // namespace

std::size_t utf8_sequence_length(std::string_view text, std::size_t at) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char c = byte(at);
  if (c < 0x80) return 1;
  std::size_t length = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
  if (c >= 0xC2 && c <= 0xDF) {
    length = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    length = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    length = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(at + 1) < lo || byte(at + 1) > hi) return 0;
  for (std::size_t k = 2; k < length; ++k)
    if (byte(at + k) < 0x80 || byte(at + k) > 0xBF) return 0;
  return length;
}

bool is_metadata_key(std::string_view key) {
  if (key.empty() || !is_ident_start(key[0])) return false;
  for (char c : key)
    if (!is_ident_char(c) && c != '-') return false;
  return true;
}

bool is_metadata_value(std::string_view value) {
  if (value.find('\n') != std::string_view::npos) return false;
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  return value.empty() || (!blank(value.front()) && !blank(value.back()));
}

void Lexer::invalid_utf8() const {
  throw SyntaxError{position(), fmt::format("invalid UTF-8 (byte 0x{:02x}): litmus files are UTF-8 text",
                                            static_cast<unsigned char>(text_[pos_]))};
}

void Lexer::advance() {
  if (pos_ >= text_.size()) return;
  if (!in_comment_ && pos_ >= utf8_checked_until_ && static_cast<unsigned char>(text_[pos_]) >= 0x80) {
    std::size_t length = utf8_sequence_length(text_, pos_);
    if (length == 0) invalid_utf8();
    utf8_checked_until_ = pos_ + length;
  }
  if (text_[pos_] == '\n') {
    ++line_;
    column_ = 1;
  } else {
    ++column_;
  }
  ++pos_;
}

void Lexer::skip_blanks_and_comments(bool cross_lines) {
  for (;;) {
    char c = at(0);
    if (c == ' ' || c == '\t' || c == '\r' || (cross_lines && c == '\n')) {
      advance();
    } else if (c == '(' && at(1) == '*') {
      const SourcePos start = position();
      const std::size_t end = herd_comment_end(text_, pos_);
      if (end == std::string_view::npos) throw SyntaxError{start, "unterminated comment '(*'"};
      in_comment_ = true;  // a comment's content is skipped undecoded
      while (pos_ < end) advance();
      in_comment_ = false;
    } else {
      return;
    }
  }
}

Token Lexer::next() {
  skip_blanks_and_comments(true);
  Token tok;
  tok.pos = position();
  char c = at(0);
  if (pos_ >= text_.size()) {
    tok.kind = TokenKind::End;
    return tok;
  }
  auto single = [&](TokenKind k) {
    tok.kind = k;
    tok.text = std::string(1, c);
    advance();
    return tok;
  };
  // herd7's comparison and implication operators: `==` is `=`, `<>` is `!=`.
  auto pair = [&](TokenKind k) {
    tok.kind = k;
    tok.text = std::string(text_.substr(pos_, 2));
    advance();
    advance();
    return tok;
  };
  if (c == '=' && at(1) == '>') return pair(TokenKind::Implies);
  if (c == '=' && at(1) == '=') return pair(TokenKind::Equals);
  if ((c == '!' && at(1) == '=') || (c == '<' && at(1) == '>')) return pair(TokenKind::NotEquals);
  switch (c) {
    case '(': return single(TokenKind::LParen);
    case ')': return single(TokenKind::RParen);
    case '[': return single(TokenKind::LBrack);
    case ']': return single(TokenKind::RBrack);
    case '{': return single(TokenKind::LBrace);
    case '}': return single(TokenKind::RBrace);
    case ';': return single(TokenKind::Semi);
    case '|': return single(TokenKind::Pipe);
    case ',': return single(TokenKind::Comma);
    case ':': return single(TokenKind::Colon);
    case '=': return single(TokenKind::Equals);
    case '+': return single(TokenKind::Plus);
    case '~': return single(TokenKind::Tilde);
    default: break;
  }
  if (c == '/' && at(1) == '\\') {
    advance();
    advance();
    tok.kind = TokenKind::And;
    tok.text = "/\\";
    return tok;
  }
  if (c == '\\' && at(1) == '/') {
    advance();
    advance();
    tok.kind = TokenKind::Or;
    tok.text = "\\/";
    return tok;
  }
  if (c == '"') {
    advance();
    while (at(0) != '"') {
      if (pos_ >= text_.size() || at(0) == '\n')
        throw SyntaxError{tok.pos, "unterminated string (a description is one line in double quotes)"};
      tok.text += at(0);
      advance();
    }
    advance();
    tok.kind = TokenKind::String;
    return tok;
  }
  if (is_digit(c) || (c == '-' && is_digit(at(1)))) {
    const std::size_t start = pos_;
    std::string digits;
    bool negative = c == '-';
    if (negative) advance();
    int base = 10;
    if (at(0) == '0' && (at(1) == 'x' || at(1) == 'X')) {
      base = 16;
      advance();
      advance();
    }
    while (std::isxdigit(static_cast<unsigned char>(at(0))) && (base == 16 || is_digit(at(0)))) {
      digits += at(0);
      advance();
    }
    if (digits.empty() || is_ident_char(at(0))) throw SyntaxError{tok.pos, "malformed number"};
    std::uint64_t magnitude = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude, base);
    (void)ptr;
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (ec != std::errc() || magnitude > kMax + (negative ? 1 : 0))
      throw SyntaxError{tok.pos, "number out of range (values are 64-bit signed integers)"};
    tok.kind = TokenKind::Number;
    tok.number = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
    tok.text = std::string(text_.substr(start, pos_ - start));
    return tok;
  }
  if (c == '%' && is_ident_start(at(1))) {
    tok.text += c;
    advance();
    while (is_ident_char(at(0))) {
      tok.text += at(0);
      advance();
    }
    tok.kind = TokenKind::Register;
    return tok;
  }
  if (is_ident_start(c)) {
    while (is_ident_char(at(0))) {
      tok.text += at(0);
      advance();
    }
    bool reg = tok.text.size() > 1 && tok.text[0] == 'r';
    for (std::size_t i = 1; reg && i < tok.text.size(); ++i) reg = is_digit(tok.text[i]);
    tok.kind = reg ? TokenKind::Register : TokenKind::Ident;
    return tok;
  }
  const auto byte = static_cast<unsigned char>(c);
  if (byte >= 0x80 && utf8_sequence_length(text_, pos_) == 0) invalid_utf8();
  std::string shown = byte >= 0x80         ? fmt::format("(a non-ASCII byte 0x{:02x})", byte)
                      : std::isprint(byte) ? fmt::format("'{}'", c)
                                           : fmt::format("(byte 0x{:02x})", byte);
  throw SyntaxError{tok.pos, fmt::format("unexpected character {}", shown)};
}

std::string Lexer::raw_word_on_line() {
  skip_blanks_and_comments(false);
  std::string word;
  while (pos_ < text_.size()) {
    char c = at(0);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') break;
    word += c;
    advance();
  }
  return word;
}

bool Lexer::finish_line() {
  skip_blanks_and_comments(false);
  if (pos_ < text_.size() && at(0) != '\n') return false;
  advance();
  return true;
}

char Lexer::peek_char() {
  skip_blanks_and_comments(true);
  return at(0);
}

std::string Lexer::raw_rest_of_line() {
  std::string rest;
  while (pos_ < text_.size() && at(0) != '\n') {
    rest += at(0);
    advance();
  }
  advance();
  while (!rest.empty() && (rest.back() == '\r' || rest.back() == ' ' || rest.back() == '\t')) rest.pop_back();
  return rest;
}

}  // namespace hsalit::litmus::detail
