// The PTX parser: recursive descent (with bounded depth) over lexer tokens, building the ast.h AST.
// This part: tokens, diagnostics and error recovery, module-scope constructs, the entry points;
// parser_declarations.cpp and parser_body.cpp hold the rest of the Parser class (parser_impl.h).
#include "parser_impl.h"
#include "validate.h"

#include <charconv>
#include <exception>
#include <limits>
#include <utility>

namespace cucpu::ptx {

namespace detail {

std::optional<Space> spaceOf(std::string_view n) {
  if (n == "reg")
    return Space::Reg;
  if (n == "sreg")
    return Space::Sreg;
  if (n == "const")
    return Space::Const;
  if (n == "global")
    return Space::Global;
  if (n == "local")
    return Space::Local;
  if (n == "param")
    return Space::Param;
  if (n == "shared")
    return Space::Shared;
  if (n == "tex")
    return Space::Tex;
  return std::nullopt;
}

std::optional<Linkage> linkageOf(std::string_view n) {
  if (n == "visible")
    return Linkage::Visible;
  if (n == "extern")
    return Linkage::Extern;
  if (n == "weak")
    return Linkage::Weak;
  if (n == "common")
    return Linkage::Common;
  return std::nullopt;
}

int componentOf(std::string_view n) {
  if (n == "x" || n == "r")
    return 0;
  if (n == "y" || n == "g")
    return 1;
  if (n == "z" || n == "b")
    return 2;
  if (n == "w" || n == "a")
    return 3;
  return -1;
}

// A video instruction's byte or half selector or destination mask: b0..b3, h0, h1 (scalar), hxy
// (two halves of {b, a}: digits 0-3), bxyzw (four bytes: digits 0-7), and masks such as h10, b31.
bool isVideoSelector(std::string_view n) {
  if (n.size() < 2 || (n[0] != 'b' && n[0] != 'h') || n.size() > (n[0] == 'b' ? 5u : 3u))
    return false;
  const char top = n[0] == 'b' ? '7' : '3';
  for (size_t i = 1; i < n.size(); ++i)
    if (n[i] < '0' || n[i] > top)
      return false;
  return true;
}

// Whether `name` is one of the space-separated words in `list`.
bool inList(std::string_view name, std::string_view list) {
  while (!list.empty()) {
    size_t sp = list.find(' ');
    std::string_view word = list.substr(0, sp);
    if (word == name)
      return true;
    if (sp == std::string_view::npos)
      break;
    list.remove_prefix(sp + 1);
  }
  return false;
}

// Directives that may start a module-scope construct (used to resynchronise after an error).
bool startsTopLevel(const Token &t) {
  if (t.kind != TokKind::Dot)
    return false;
  return inList(t.dotName(), "version target address_size visible extern weak common entry func "
                             "global const shared section file");
}

// Module-scope directives that cannot appear inside a function body.
bool endsBody(const Token &t) {
  if (t.kind != TokKind::Dot)
    return false;
  return inList(t.dotName(), "version target address_size visible extern weak common entry func");
}

// Directive names of the PTX ISA, used to tell "misplaced" from "unknown" directives.
bool isKnownDirective(std::string_view n) {
  return !n.empty() &&
         inList(n, "abi_preserve abi_preserve_control address_size alias align blocksareclusters "
                   "branchtargets callprototype calltargets common const entry explicitcluster "
                   "extern file func global loc local maxclusterrank maxnctapersm maxnreg maxntid "
                   "minnctapersm noreturn param pragma reg reqnctapercluster reqntid section "
                   "shared sreg target tex version visible weak");
}

int64_t addWrapped(int64_t a, uint64_t b, bool negative) {
  uint64_t r = static_cast<uint64_t>(a) + (negative ? (0 - b) : b);
  return static_cast<int64_t>(r);
}

ParseResult Parser::run() {
  while (!stop_) {
    if (peek().kind == TokKind::Eof)
      break;
    size_t before = consumed_;
    if (!parseTopLevel())
      recoverTopLevel(before);
  }
  return std::move(res_);
}

const Token &Parser::peek(size_t k) {
  while (la_.size() <= k)
    la_.push_back(lex_.next());
  return la_[k];
}

Token Parser::take() {
  peek();
  Token t = std::move(la_.front());
  la_.pop_front();
  ++consumed_;
  prevEnd_ = t.end();
  return t;
}

bool Parser::eat(char c) {
  if (!peek().is(c))
    return false;
  take();
  return true;
}

void Parser::diag(SourceLoc loc, std::string message) {
  if (stop_)
    return;
  if (!res_.errors.empty()) {
    // One error per position: a follow-up error at the same token (often end of file) adds
    // nothing to the first, more specific one.
    const Diagnostic &last = res_.errors.back();
    if (last.loc.line == loc.line && last.loc.col == loc.col)
      return;
  }
  res_.errors.push_back(Diagnostic{loc, std::move(message)});
  if (res_.errors.size() >= kMaxErrors)
    stop_ = true;
}

bool Parser::fail(const Token &t, std::string_view expected) {
  if (t.kind == TokKind::Error)
    diag(t.loc, t.str);
  else
    diag(t.loc, std::string(expected) + ", found " + describe(t));
  return false;
}

bool Parser::failAt(SourceLoc loc, std::string message) {
  diag(loc, std::move(message));
  return false;
}

void Parser::recoverTopLevel(size_t before) {
  uint32_t line = peek().loc.line;
  int pending = nest_;
  nest_ = 0;
  int depth = 0;
  bool first = true;
  while (!stop_) {
    const Token &t = peek();
    if (t.kind == TokKind::Eof)
      break;
    if (t.is('{')) {
      ++depth;
    } else if (t.is('}')) {
      if (depth > 0) {
        if (--depth == 0 && pending == 0) {
          take();
          break;
        }
      } else if (pending > 0) {
        --pending;
      } else {
        take();
        break;
      }
    } else if (depth == 0 && t.is(';')) {
      take();
      break;
    } else if (depth == 0 && !first && t.loc.line > line && startsTopLevel(t)) {
      break;
    }
    take();
    first = false;
  }
  if (consumed_ == before && peek().kind != TokKind::Eof)
    take();
}

void Parser::recoverStatement(size_t before) {
  uint32_t line = peek().loc.line;
  bool inAggregate = nest_ > 0;
  nest_ = 0;
  bool first = true;
  for (;;) {
    const Token &t = peek();
    if (t.kind == TokKind::Eof)
      break;
    if (t.is(';')) {
      take();
      break;
    }
    if ((t.is('{') || t.is('}')) && ((first && !inAggregate) || t.loc.line > line) &&
        consumed_ > before)
      break;
    // A guard, directive or label on a later line starts the next statement.
    if (t.loc.line > line && !inAggregate &&
        (t.is('@') || t.kind == TokKind::Dot || (t.kind == TokKind::Ident && peek(1).is(':'))))
      break;
    take();
    first = false;
  }
  if (consumed_ == before && peek().kind != TokKind::Eof)
    take();
}

bool Parser::parseU32(uint32_t &out, std::string_view expected, std::string_view what) {
  const Token &t = peek();
  if (t.kind != TokKind::Int)
    return fail(t, expected);
  if (t.ival > std::numeric_limits<uint32_t>::max())
    return failAt(t.loc, "value " + quoteText(t.text) + " is too large for " + std::string(what));
  out = static_cast<uint32_t>(t.ival);
  take();
  return true;
}

bool Parser::expectPunct(char c, std::string_view expected) {
  if (eat(c))
    return true;
  return fail(peek(), expected);
}

bool Parser::parseTopLevel() {
  const Token &t = peek();
  if (t.kind == TokKind::Dot) {
    std::string_view n = t.dotName();
    if (n == "version")
      return parseVersion();
    if (n == "target")
      return parseTarget();
    if (n == "address_size")
      return parseAddressSize();
    if (n == "file") {
      Directive d;
      if (!parseLineDirective(d))
        return false;
      res_.module.directives.push_back(std::move(d));
      return true;
    }
    if (n == "pragma") {
      Directive d;
      if (!parsePragma(d))
        return false;
      res_.module.directives.push_back(std::move(d));
      return true;
    }
    if (n == "section")
      return parseSection();
    if (n == "alias")
      return parseAlias();
    if (auto lk = linkageOf(n)) {
      SourceLoc loc = t.loc;
      std::string kw(t.text);
      take();
      const Token &next = peek();
      if (next.isDot("entry") || next.isDot("func"))
        return parseFunction(*lk, loc);
      if (next.kind == TokKind::Dot && spaceOf(next.dotName()))
        return parseModuleVars(*lk, next);
      return fail(next, "expected '.entry', '.func' or a state space after '" + kw + "'");
    }
    if (n == "entry" || n == "func")
      return parseFunction(Linkage::None, t.loc);
    if (spaceOf(n))
      return parseModuleVars(Linkage::None, t);
    if (isKnownDirective(n))
      return failAt(t.loc, "directive " + quoteText(t.text) + " is not allowed at module scope");
    return failAt(t.loc, "unknown directive " + quoteText(t.text));
  }
  if (t.kind == TokKind::Ident && peek(1).is(':') && peek(2).isDot("callprototype")) {
    Token name = take();
    take(); // ':'
    CallPrototype p;
    if (!parseCallPrototype(name, p))
      return false;
    res_.module.prototypes.push_back(std::move(p));
    return true;
  }
  return fail(t, "expected a directive");
}

bool Parser::parseVersion() {
  take();
  const Token &t = peek();
  std::string_view s = t.text;
  size_t dot = s.find('.');
  if (t.kind != TokKind::Float || t.fwidth != 0 || dot == std::string_view::npos ||
      s.find_first_not_of("0123456789.") != std::string_view::npos)
    return fail(t, "expected version number after '.version'");
  uint32_t major = 0, minor = 0;
  auto r1 = std::from_chars(s.data(), s.data() + dot, major);
  auto r2 = std::from_chars(s.data() + dot + 1, s.data() + s.size(), minor);
  if (r1.ec != std::errc() || r2.ec != std::errc())
    return failAt(t.loc, "invalid version number " + quoteText(s));
  res_.module.versionMajor = major;
  res_.module.versionMinor = minor;
  res_.module.versionLoc = t.loc;
  take();
  return true;
}

bool Parser::parseTarget() {
  take();
  bool first = true;
  do {
    const Token &t = peek();
    if (t.kind != TokKind::Ident)
      return fail(t, first ? "expected target name after '.target'"
                           : "expected target name after ','");
    if (first) {
      res_.module.target = std::string(t.text);
      res_.module.targetLoc = t.loc;
    } else
      res_.module.targetOptions.emplace_back(t.text);
    take();
    first = false;
  } while (eat(','));
  return true;
}

bool Parser::parseAddressSize() {
  res_.module.addressSizeLoc = peek().loc;
  take();
  const Token &t = peek();
  if (t.kind != TokKind::Int)
    return fail(t, "expected 32 or 64 after '.address_size'");
  if (t.ival != 32 && t.ival != 64)
    return failAt(t.loc, "invalid address size " + quoteText(t.text) + " (expected 32 or 64)");
  res_.module.addressSize = static_cast<uint32_t>(t.ival);
  take();
  return true;
}

bool Parser::parseSection() {
  take();
  const Token &n = peek();
  if (n.kind != TokKind::Dot && n.kind != TokKind::Ident)
    return fail(n, "expected section name after '.section'");
  take();
  if (!expectPunct('{', "expected '{' after section name"))
    return false;
  int depth = 1;
  for (;;) {
    const Token &t = peek();
    if (t.kind == TokKind::Eof)
      return fail(t, "expected '}' at end of '.section'");
    if (t.is('{'))
      ++depth;
    else if (t.is('}') && --depth == 0) {
      take();
      return true;
    }
    take();
  }
}

bool Parser::parseAlias() {
  Token kw = take();
  Directive d;
  d.loc = kw.loc;
  d.name = "alias";
  for (int i = 0; i < 2; ++i) {
    if (i == 1 && !expectPunct(',', "expected ',' in '.alias'"))
      return false;
    const Token &t = peek();
    if (t.kind != TokKind::Ident)
      return fail(t, "expected function name in '.alias'");
    Operand o;
    o.kind = Operand::Kind::Symbol;
    o.loc = t.loc;
    o.name = std::string(t.text);
    d.args.push_back(std::move(o));
    take();
  }
  if (!expectPunct(';', "expected ';' after '.alias'"))
    return false;
  res_.module.directives.push_back(std::move(d));
  return true;
}

bool Parser::parseModuleVars(Linkage lk, const Token &spaceTok) {
  Space sp = spaceOf(spaceTok.dotName()).value_or(Space::None);
  if (sp == Space::Reg || sp == Space::Sreg || sp == Space::Param)
    return failAt(spaceTok.loc,
                  "directive " + quoteText(spaceTok.text) + " is not allowed at module scope");
  std::vector<VarDecl> decls;
  if (!parseVarStatement(lk, decls))
    return false;
  for (VarDecl &d : decls)
    res_.module.globals.push_back(std::move(d));
  return true;
}

} // namespace detail

using detail::Parser;

ParseResult parseSyntax(std::string_view text) {
  try {
    Parser p(text);
    return p.run();
  } catch (const std::exception &e) {
    ParseResult r;
    r.errors.push_back(Diagnostic{SourceLoc{}, std::string("internal parser error: ") + e.what()});
    return r;
  } catch (...) {
    ParseResult r;
    r.errors.push_back(Diagnostic{SourceLoc{}, "internal parser error"});
    return r;
  }
}

ParseResult parse(std::string_view text) {
  ParseResult r = parseSyntax(text);
  if (r.ok())
    validate(r);
  return r;
}

} // namespace cucpu::ptx
