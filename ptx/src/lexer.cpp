// The PTX lexer: a hand-written scanner producing tokens with 1-based line:col locations.
#include "lexer.h"

#include <bit>
#include <charconv>
#include <cstdio>
#include <limits>

namespace cucpu::ptx::detail {

namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool isIdentStart(char c) { return isAlpha(c) || c == '_' || c == '$' || c == '%'; }
bool isIdentChar(char c) { return isAlpha(c) || isDigit(c) || c == '_' || c == '$'; }

int digitValue(char c) {
  if (isDigit(c))
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return 99;
}

// Parses digits in the given base; false on a bad digit or an empty string. `overflow` is set
// when the value does not fit in 64 bits.
bool parseUnsigned(std::string_view digits, unsigned base, uint64_t &value, bool &overflow) {
  value = 0;
  overflow = false;
  if (digits.empty())
    return false;
  for (char c : digits) {
    int d = digitValue(c);
    if (d >= static_cast<int>(base))
      return false;
    uint64_t ud = static_cast<uint64_t>(d);
    if (value > (std::numeric_limits<uint64_t>::max() - ud) / base)
      overflow = true;
    else
      value = value * base + ud;
  }
  return true;
}

bool allDigits(std::string_view s) {
  if (s.empty())
    return false;
  for (char c : s)
    if (!isDigit(c))
      return false;
  return true;
}

// digits ('.' digits)? ([eE] [+-]? digits)? with at least a '.' or an exponent.
bool isDecimalFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t b = i;
    while (i < s.size() && isDigit(s[i]))
      ++i;
    return i > b;
  };
  if (!digits())
    return false;
  bool special = false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (!digits())
      return false;
    special = true;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-'))
      ++i;
    if (!digits())
      return false;
    special = true;
  }
  return special && i == s.size();
}

// A decimal mantissa that may precede an exponent sign: digits or digits.digits.
bool isMantissa(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos)
    return allDigits(s);
  return allDigits(s.substr(0, dot)) && allDigits(s.substr(dot + 1));
}

} // namespace

std::string quoteText(std::string_view text) {
  constexpr size_t kLimit = 40;
  std::string out = "'";
  for (size_t i = 0; i < text.size() && i < kLimit; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  if (text.size() > kLimit)
    out += "...";
  out += "'";
  return out;
}

std::string describe(const Token &t) {
  if (t.kind == TokKind::Eof)
    return "end of file";
  return quoteText(t.text);
}

SourceLoc Lexer::locAt(size_t offset) const {
  return {line_, static_cast<uint32_t>(offset - lineStart_ + 1)};
}

Token Lexer::make(TokKind kind, size_t start, size_t end) {
  Token t;
  t.kind = kind;
  t.offset = start;
  t.text = src_.substr(start, end - start);
  t.loc = locAt(start);
  if (kind == TokKind::Punct)
    t.punct = src_[start];
  pos_ = end;
  return t;
}

Token Lexer::error(size_t start, size_t end, std::string message) {
  Token t = make(TokKind::Error, start, end);
  t.str = std::move(message);
  return t;
}

Token Lexer::next() {
  const size_t n = src_.size();
  for (;;) {
    if (pos_ >= n) {
      Token t = make(TokKind::Eof, n, n);
      return t;
    }
    char c = src_[pos_];
    if (c == '\n') {
      ++pos_;
      ++line_;
      lineStart_ = pos_;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
      ++pos_;
      continue;
    }
    if (c == '/' && at(pos_ + 1) == '/') {
      while (pos_ < n && src_[pos_] != '\n')
        ++pos_;
      continue;
    }
    if (c == '/' && at(pos_ + 1) == '*') {
      size_t start = pos_;
      SourceLoc loc = locAt(start);
      size_t close = src_.find("*/", pos_ + 2);
      size_t end = close == std::string_view::npos ? n : close + 2;
      for (size_t p = pos_; p < end; ++p) {
        if (src_[p] == '\n') {
          ++line_;
          lineStart_ = p + 1;
        }
      }
      pos_ = end;
      if (close == std::string_view::npos) {
        Token t;
        t.kind = TokKind::Error;
        t.offset = start;
        t.text = src_.substr(start, 2);
        t.loc = loc;
        t.str = "unterminated block comment";
        return t;
      }
      continue;
    }
    break;
  }

  const size_t start = pos_;
  const char c = src_[start];
  if (isIdentStart(c)) {
    size_t e = start + 1;
    while (isIdentChar(at(e)))
      ++e;
    if (e - start == 1) {
      if (c == '_')
        return make(TokKind::Punct, start, e);
      if (c == '%' || c == '$')
        return error(start, e, "unexpected character " + quoteText(src_.substr(start, 1)));
    }
    return make(TokKind::Ident, start, e);
  }
  if (c == '.') {
    size_t e = start + 1;
    if (!isIdentChar(at(e)))
      return error(start, e, "unexpected character '.'");
    while (isIdentChar(at(e)))
      ++e;
    // Qualified modifiers: .L2::128B, .shared::cta, .mbarrier::complete_tx::bytes
    while (at(e) == ':' && at(e + 1) == ':' && isIdentChar(at(e + 2))) {
      e += 2;
      while (isIdentChar(at(e)))
        ++e;
    }
    return make(TokKind::Dot, start, e);
  }
  if (isDigit(c))
    return lexNumber(start);
  if (c == '"')
    return lexString(start);
  static constexpr std::string_view kPunct = "{}()[];,:+-!@|<>=";
  if (kPunct.find(c) != std::string_view::npos)
    return make(TokKind::Punct, start, start + 1);
  return error(start, start + 1, "unexpected character " + quoteText(src_.substr(start, 1)));
}

Token Lexer::lexNumber(size_t start) {
  size_t e = start;
  while (isIdentChar(at(e)))
    ++e;
  if (allDigits(src_.substr(start, e - start)) && at(e) == '.' && isDigit(at(e + 1))) {
    ++e;
    while (isIdentChar(at(e)))
      ++e;
  }
  {
    std::string_view text = src_.substr(start, e - start);
    char last = text.back();
    if ((last == 'e' || last == 'E') && (at(e) == '+' || at(e) == '-') && isDigit(at(e + 1)) &&
        isMantissa(text.substr(0, text.size() - 1))) {
      e += 1;
      while (isIdentChar(at(e)))
        ++e;
    }
  }
  const std::string_view text = src_.substr(start, e - start);
  auto bad = [&] { return error(start, e, "invalid numeric literal " + quoteText(text)); };
  auto integer = [&](std::string_view digits, unsigned base) {
    if (!digits.empty() && (digits.back() == 'U' || digits.back() == 'u'))
      digits.remove_suffix(1);
    uint64_t v = 0;
    bool overflow = false;
    if (!parseUnsigned(digits, base, v, overflow))
      return bad();
    if (overflow)
      return error(start, e, "integer literal " + quoteText(text) + " does not fit in 64 bits");
    Token t = make(TokKind::Int, start, e);
    t.ival = v;
    return t;
  };
  auto hexFloat = [&](unsigned width) {
    std::string_view digits = text.substr(2);
    uint64_t v = 0;
    bool overflow = false;
    if (digits.size() != width / 4 || !parseUnsigned(digits, 16, v, overflow) || overflow)
      return bad();
    Token t = make(TokKind::Float, start, e);
    t.fbits = v;
    t.fwidth = static_cast<uint8_t>(width);
    if (width == 32)
      t.fval = static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(v)));
    else
      t.fval = std::bit_cast<double>(v);
    return t;
  };

  if (text.size() >= 2 && text[0] == '0') {
    switch (text[1]) {
    case 'x':
    case 'X':
      return integer(text.substr(2), 16);
    case 'b':
    case 'B':
      return integer(text.substr(2), 2);
    case 'f':
    case 'F':
      return hexFloat(32);
    case 'd':
    case 'D':
      return hexFloat(64);
    default:
      break;
    }
  }
  std::string_view body = text;
  if (body.back() == 'U' || body.back() == 'u')
    body.remove_suffix(1);
  if (allDigits(body)) {
    if (body.size() > 1 && body[0] == '0')
      return integer(text.substr(1), 8);
    return integer(text, 10);
  }
  if (isDecimalFloat(text)) {
    double v = 0;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size())
      return error(start, e, "floating-point literal " + quoteText(text) + " is out of range");
    Token t = make(TokKind::Float, start, e);
    t.fval = v;
    t.fbits = std::bit_cast<uint64_t>(v);
    t.fwidth = 0;
    return t;
  }
  return bad();
}

Token Lexer::lexString(size_t start) {
  const size_t n = src_.size();
  size_t e = start + 1;
  std::string out;
  for (;;) {
    if (e >= n || src_[e] == '\n')
      return error(start, e, "unterminated string literal");
    char ch = src_[e];
    if (ch == '"') {
      ++e;
      break;
    }
    if (ch == '\\' && e + 1 < n && src_[e + 1] != '\n') {
      char esc = src_[e + 1];
      switch (esc) {
      case 'n':
        out += '\n';
        break;
      case 't':
        out += '\t';
        break;
      case 'r':
        out += '\r';
        break;
      case '0':
        out += '\0';
        break;
      default:
        out += esc;
        break;
      }
      e += 2;
      continue;
    }
    out += ch;
    ++e;
  }
  Token t = make(TokKind::String, start, e);
  t.str = std::move(out);
  return t;
}

} // namespace cucpu::ptx::detail
