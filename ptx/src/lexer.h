// The PTX lexer interface: token kinds, the Token struct and the on-demand Lexer.
#pragma once

#include "cucpu/ptx/ast.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cucpu::ptx::detail {

enum class TokKind : uint8_t {
  Eof,
  Ident,  // foo, %r1, $L__BB0_2, _Z3foov (a lone '_' is Punct)
  Dot,    // .global, .f32, .x, .1d, .L2::128B (text includes the dot)
  Int,    // integer literal; value in ival (64-bit pattern)
  Float,  // 0f/0d/decimal float; fval, fbits, fwidth
  String, // "..."; unescaped contents in str
  Punct,  // one of { } ( ) [ ] ; , : + - ! @ | < > = _ ; the character in punct
  Error,  // a lexical error; message in str
};

struct Token {
  TokKind kind = TokKind::Eof;
  SourceLoc loc;
  size_t offset = 0;     // byte offset of the first character
  std::string_view text; // the exact source text
  char punct = 0;
  uint64_t ival = 0;
  double fval = 0;
  uint64_t fbits = 0;
  uint8_t fwidth = 0; // 32 for 0f, 64 for 0d, 0 for decimal
  std::string str;    // String: contents; Error: message

  size_t end() const { return offset + text.size(); }
  bool is(char c) const { return kind == TokKind::Punct && punct == c; }
  // A .directive/.modifier token with this name (without the dot).
  bool isDot(std::string_view name) const { return kind == TokKind::Dot && text.substr(1) == name; }
  std::string_view dotName() const { return kind == TokKind::Dot ? text.substr(1) : text; }
};

class Lexer {
public:
  explicit Lexer(std::string_view src) : src_(src) {}
  Token next();

private:
  char at(size_t p) const { return p < src_.size() ? src_[p] : '\0'; }
  Token make(TokKind kind, size_t start, size_t end);
  Token error(size_t start, size_t end, std::string message);
  Token lexNumber(size_t start);
  Token lexString(size_t start);
  SourceLoc locAt(size_t offset) const;

  std::string_view src_;
  size_t pos_ = 0;
  uint32_t line_ = 1;
  size_t lineStart_ = 0;
};

// Quotes source text for a message: 'text' with non-printable bytes as \xNN, cut after 40 bytes.
std::string quoteText(std::string_view text);
// Quotes a token for "found ..." messages: 'text', or "end of file".
std::string describe(const Token &t);

} // namespace cucpu::ptx::detail
