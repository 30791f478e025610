// The PTX parser: recursive descent (with bounded depth) over lexer tokens, building the ast.h AST.
#include "cucpu/ptx/ast.h"
#include "lexer.h"
#include "validate.h"

#include <bit>
#include <charconv>
#include <deque>
#include <exception>
#include <limits>
#include <utility>

namespace cucpu::ptx {

namespace {

using detail::describe;
using detail::Lexer;
using detail::quoteText;
using detail::Token;
using detail::TokKind;

constexpr size_t kMaxErrors = 20;
constexpr int kMaxScopeDepth = 256;

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

enum class Ctx { Top, InAddress, InVector };

class Parser {
public:
  explicit Parser(std::string_view src) : lex_(src) {}

  ParseResult run() {
    while (!stop_) {
      if (peek().kind == TokKind::Eof)
        break;
      size_t before = consumed_;
      if (!parseTopLevel())
        recoverTopLevel(before);
    }
    return std::move(res_);
  }

private:
  // ---- Tokens ---------------------------------------------------------------------------------

  const Token &peek(size_t k = 0) {
    while (la_.size() <= k)
      la_.push_back(lex_.next());
    return la_[k];
  }

  Token take() {
    peek();
    Token t = std::move(la_.front());
    la_.pop_front();
    ++consumed_;
    prevEnd_ = t.end();
    return t;
  }

  bool eat(char c) {
    if (!peek().is(c))
      return false;
    take();
    return true;
  }

  // Whether the next token directly follows the previous one (no space): `%tid.x`, `ld.global`.
  bool adjacent() { return peek().offset == prevEnd_; }

  // ---- Diagnostics ----------------------------------------------------------------------------

  void diag(SourceLoc loc, std::string message) {
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

  // Reports "expected ..., found 'tok'" (or the lexer's message for a bad token); returns false.
  bool fail(const Token &t, std::string_view expected) {
    if (t.kind == TokKind::Error)
      diag(t.loc, t.str);
    else
      diag(t.loc, std::string(expected) + ", found " + describe(t));
    return false;
  }

  bool failAt(SourceLoc loc, std::string message) {
    diag(loc, std::move(message));
    return false;
  }

  // Skips to the end of a broken module-scope construct: past the '}' closing a body opened
  // while skipping, or past the next ';' outside braces (braces of an initializer that was being
  // parsed when the error occurred are closed first).
  void recoverTopLevel(size_t before) {
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

  // Skips to the end of a broken statement in a function body: past the next ';', or up to a
  // brace on a later line, or up to the offending token itself when it is a brace that does not
  // belong to an operand or initializer being parsed (`ret }`).
  void recoverStatement(size_t before) {
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

  // ---- Small helpers --------------------------------------------------------------------------

  bool parseU32(uint32_t &out, std::string_view expected, std::string_view what) {
    const Token &t = peek();
    if (t.kind != TokKind::Int)
      return fail(t, expected);
    if (t.ival > std::numeric_limits<uint32_t>::max())
      return failAt(t.loc, "value " + quoteText(t.text) + " is too large for " + std::string(what));
    out = static_cast<uint32_t>(t.ival);
    take();
    return true;
  }

  bool expectPunct(char c, std::string_view expected) {
    if (eat(c))
      return true;
    return fail(peek(), expected);
  }

  // ---- Module scope ---------------------------------------------------------------------------

  bool parseTopLevel() {
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

  bool parseVersion() {
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

  bool parseTarget() {
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

  bool parseAddressSize() {
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

  // .section name { ... }: debug sections, skipped.
  bool parseSection() {
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

  // .alias fAlias, fOrig;
  bool parseAlias() {
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

  bool parseModuleVars(Linkage lk, const Token &spaceTok) {
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

  // ---- Directives kept as Directive statements ------------------------------------------------

  // .loc and .file: line-based, no ';' (one is accepted if present).
  bool parseLineDirective(Directive &d) {
    Token kw = take();
    d.loc = kw.loc;
    d.name = std::string(kw.dotName());
    const uint32_t line = kw.loc.line;
    auto onLine = [&]() -> const Token * {
      const Token &t = peek();
      return t.loc.line == line && t.kind != TokKind::Eof ? &t : nullptr;
    };
    auto intArg = [&](std::string_view expected) {
      const Token *t = onLine();
      if (!t || t->kind != TokKind::Int)
        return fail(peek(), expected);
      Operand o;
      o.kind = Operand::Kind::Imm;
      o.loc = t->loc;
      o.imm = static_cast<int64_t>(t->ival);
      d.args.push_back(std::move(o));
      take();
      return true;
    };
    if (d.name == "loc") {
      for (int i = 0; i < 3; ++i)
        if (!intArg("expected integer in '.loc'"))
          return false;
    } else {
      if (!intArg("expected file number after '.file'"))
        return false;
      const Token *t = onLine();
      if (!t || t->kind != TokKind::String)
        return fail(peek(), "expected file name string in '.file'");
      d.text = t->str;
      take();
    }
    while (const Token *t = onLine()) {
      if (t->is(',')) {
        take();
        continue;
      }
      if (t->is(';')) {
        take();
        break;
      }
      Operand o;
      o.loc = t->loc;
      if (t->kind == TokKind::Int) {
        o.kind = Operand::Kind::Imm;
        o.imm = static_cast<int64_t>(t->ival);
      } else if (t->kind == TokKind::Ident) {
        o.kind = Operand::Kind::Symbol;
        o.name = std::string(t->text);
      } else if (t->kind == TokKind::String) {
        o.kind = Operand::Kind::Symbol;
        o.name = t->str;
      } else {
        return fail(*t, "expected ';' or end of line after " + quoteText(kw.text));
      }
      d.args.push_back(std::move(o));
      take();
    }
    return true;
  }

  // .pragma "a"[, "b"...];  text = first string; further strings become Symbol args.
  bool parsePragma(Directive &d) {
    Token kw = take();
    d.loc = kw.loc;
    d.name = "pragma";
    bool first = true;
    do {
      const Token &t = peek();
      if (t.kind != TokKind::String)
        return fail(t, "expected string after '.pragma'");
      if (first) {
        d.text = t.str;
      } else {
        Operand o;
        o.kind = Operand::Kind::Symbol;
        o.loc = t.loc;
        o.name = t.str;
        d.args.push_back(std::move(o));
      }
      first = false;
      take();
    } while (eat(','));
    return expectPunct(';', "expected ';' after '.pragma'");
  }

  // ---- Variable declarations ------------------------------------------------------------------

  // `space attrs type name[<n>][dims][= init] {, name...};` with the space token next.
  bool parseVarStatement(Linkage lk, std::vector<VarDecl> &out) {
    Token sp = take();
    VarDecl proto;
    proto.space = spaceOf(sp.dotName()).value_or(Space::None);
    proto.linkage = lk;
    proto.loc = sp.loc;
    if (!parseVarAttrs(proto))
      return false;
    for (;;) {
      VarDecl d = proto;
      if (!parseVarName(d, false))
        return false;
      if (peek().is('=') && !parseInitializer(d))
        return false;
      out.push_back(std::move(d));
      if (!eat(','))
        break;
    }
    return expectPunct(';', "expected ';' after variable declaration");
  }

  bool parseVarAttrs(VarDecl &d) {
    for (;;) {
      const Token &a = peek();
      if (a.kind != TokKind::Dot)
        break;
      std::string_view n = a.dotName();
      if (n == "align") {
        SourceLoc loc = a.loc;
        take();
        uint32_t v = 0;
        if (!parseU32(v, "expected alignment after '.align'", "'.align'"))
          return false;
        if (v == 0 || (v & (v - 1)) != 0)
          return failAt(loc, "alignment " + std::to_string(v) + " is not a power of two");
        (d.ptrAttr ? d.ptrAlign : d.align) = v;
      } else if (n == "v2" || n == "v4" || n == "v8") {
        d.vecWidth = static_cast<unsigned>(n[1] - '0');
        take();
      } else if (n == "ptr") {
        if (d.space != Space::Param)
          return failAt(a.loc, "'.ptr' is only allowed on kernel parameters");
        d.ptrAttr = true;
        take();
      } else if (d.ptrAttr && (n == "global" || n == "shared" || n == "const" || n == "local")) {
        d.ptrSpace = *spaceOf(n);
        take();
      } else if (n == "attribute") {
        if (!parseAttribute(d))
          return false;
      } else if (auto ty = parseType(n)) {
        if (d.type != Type::None)
          return failAt(a.loc, "duplicate type " + quoteText(a.text) + " in variable declaration");
        d.type = *ty;
        take();
      } else if (n == "texref" || n == "samplerref" || n == "surfref") {
        return failAt(a.loc, "unsupported type " + quoteText(a.text));
      } else {
        break;
      }
    }
    if (d.type == Type::None)
      return fail(peek(), "expected a type in variable declaration");
    return true;
  }

  // .attribute(.managed) / .attribute(.unified(0x1, 0x2))
  bool parseAttribute(VarDecl &d) {
    take();
    if (!expectPunct('(', "expected '(' after '.attribute'"))
      return false;
    do {
      const Token &t = peek();
      if (t.isDot("managed")) {
        d.managed = true;
        take();
      } else if (t.isDot("unified")) {
        take();
        if (eat('(')) {
          for (;;) {
            const Token &v = peek();
            if (v.kind != TokKind::Int)
              return fail(v, "expected integer in '.unified'");
            take();
            if (eat(')'))
              break;
            if (!expectPunct(',', "expected ',' or ')' in '.unified'"))
              return false;
          }
        }
      } else {
        return fail(t, "expected '.managed' or '.unified' in '.attribute'");
      }
    } while (eat(','));
    return expectPunct(')', "expected ')' after attribute");
  }

  bool parseVarName(VarDecl &d, bool allowSink) {
    const Token &t = peek();
    if (!(t.kind == TokKind::Ident || (allowSink && t.is('_'))))
      return fail(t, "expected variable name");
    d.loc = t.loc;
    d.name = std::string(t.text);
    take();
    if (eat('<')) {
      const Token &c = peek();
      if (c.kind != TokKind::Int)
        return fail(c, "expected register count after '<'");
      if (c.ival > static_cast<uint64_t>(std::numeric_limits<int32_t>::max()))
        return failAt(c.loc, "register count " + quoteText(c.text) + " is too large");
      d.rangeCount = static_cast<int32_t>(c.ival);
      take();
      if (!expectPunct('>', "expected '>' after register count"))
        return false;
    }
    while (eat('[')) {
      if (eat(']')) {
        d.dims.push_back(0);
        continue;
      }
      const Token &c = peek();
      if (c.kind != TokKind::Int)
        return fail(c, "expected array size or ']'");
      d.dims.push_back(c.ival);
      take();
      if (!expectPunct(']', "expected ']' after array size"))
        return false;
    }
    return true;
  }

  // `= value` or `= {v, {v, v}, ...}`, flattened; nesting is tracked by a counter.
  bool parseInitializer(VarDecl &d) {
    take(); // '='
    d.hasInit = true;
    if (!peek().is('{')) {
      Operand o;
      if (!parseInitValue(o))
        return false;
      d.init.push_back(std::move(o));
      return true;
    }
    size_t depth = 0;
    bool expectValue = true; // after '{' or ','
    bool justOpened = false;
    for (;;) {
      const Token &t = peek();
      if (t.is('{')) {
        if (!expectValue)
          return fail(t, "expected ',' or '}' in initializer");
        take();
        ++depth;
        ++nest_;
        justOpened = true;
        continue;
      }
      if (t.is('}')) {
        if (expectValue && !justOpened)
          return fail(t, "expected initializer value");
        take();
        expectValue = false;
        justOpened = false;
        --nest_;
        if (--depth == 0)
          return true;
        continue;
      }
      if (t.is(',')) {
        if (expectValue)
          return fail(t, "expected initializer value");
        take();
        expectValue = true;
        justOpened = false;
        continue;
      }
      if (!expectValue)
        return fail(t, "expected ',' or '}' in initializer");
      Operand o;
      if (!parseInitValue(o))
        return false;
      d.init.push_back(std::move(o));
      expectValue = false;
      justOpened = false;
    }
  }

  // +N / -N after a symbol.
  void parseSymbolOffset(Operand &o) {
    while ((peek().is('+') || peek().is('-')) && peek(1).kind == TokKind::Int) {
      bool neg = take().punct == '-';
      o.imm = addWrapped(o.imm, take().ival, neg);
    }
  }

  // name[+N] or generic(name[+N])[+N]
  bool parseSymbolValue(Operand &o) {
    const Token &t = peek();
    if (t.kind != TokKind::Ident)
      return fail(t, "expected symbol name");
    o.kind = Operand::Kind::Symbol;
    o.loc = t.loc;
    if (t.text == "generic" && peek(1).is('(')) {
      take();
      take();
      const Token &s = peek();
      if (s.kind != TokKind::Ident)
        return fail(s, "expected symbol name in 'generic(...)'");
      o.name = std::string(s.text);
      o.generic = true;
      take();
      parseSymbolOffset(o);
      if (!expectPunct(')', "expected ')' after 'generic(" + o.name))
        return false;
    } else {
      o.name = std::string(t.text);
      take();
    }
    parseSymbolOffset(o);
    return true;
  }

  bool parseInitValue(Operand &o) {
    const Token &t = peek();
    const SourceLoc loc = t.loc;
    o.loc = loc;
    if (t.is('-')) {
      take();
      const Token &v = peek();
      if (v.kind == TokKind::Int) {
        o.kind = Operand::Kind::Imm;
        o.imm = addWrapped(0, v.ival, true);
      } else if (v.kind == TokKind::Float) {
        setFloat(o, v, true);
      } else {
        return fail(v, "expected number after '-'");
      }
      take();
      return true;
    }
    if (t.kind == TokKind::Int) {
      uint64_t value = t.ival;
      take();
      if (!peek().is('('))
        return setInt(o, value);
      // Byte-mask form: 0xFF00(sym), 0xFF(generic(sym)+4), 0xFF(1234).
      take();
      const Token &inner = peek();
      if (inner.kind == TokKind::Int) {
        uint64_t v = inner.ival;
        take();
        if (!expectPunct(')', "expected ')' after masked value"))
          return false;
        uint64_t masked = value == 0 ? 0 : (v & value) >> std::countr_zero(value);
        return setInt(o, masked);
      }
      if (!parseSymbolValue(o))
        return false;
      o.loc = loc;
      o.mask = value;
      return expectPunct(')', "expected ')' after masked symbol");
    }
    if (t.kind == TokKind::Float) {
      setFloat(o, t, false);
      take();
      return true;
    }
    if (t.kind == TokKind::Ident)
      return parseSymbolValue(o);
    return fail(t, "expected initializer value");
  }

  static bool setInt(Operand &o, uint64_t v) {
    o.kind = Operand::Kind::Imm;
    o.imm = static_cast<int64_t>(v);
    return true;
  }

  static void setFloat(Operand &o, const Token &t, bool negate) {
    o.kind = Operand::Kind::FImm;
    o.fval = negate ? -t.fval : t.fval;
    o.fwidth = t.fwidth;
    o.fbits = t.fbits;
    if (negate) {
      if (t.fwidth == 32)
        o.fbits ^= uint64_t{1} << 31;
      else if (t.fwidth == 64)
        o.fbits ^= uint64_t{1} << 63;
      else
        o.fbits = std::bit_cast<uint64_t>(o.fval);
    }
  }

  // ---- Functions ------------------------------------------------------------------------------

  bool parseFunction(Linkage lk, SourceLoc loc) {
    Token kw = take();
    Function f;
    f.loc = loc;
    f.isEntry = kw.isDot("entry");
    f.linkage = lk;
    if (!f.isEntry && peek().is('(') && !parseParams(f.returns))
      return false;
    if (peek().isDot("attribute")) {
      VarDecl ignored;
      if (!parseAttribute(ignored))
        return false;
    }
    const Token &name = peek();
    if (name.kind != TokKind::Ident || name.text[0] == '%')
      return fail(name, "expected function name after " + quoteText(kw.text));
    f.name = std::string(name.text);
    take();
    if (peek().is('(') && !parseParams(f.params))
      return false;
    if (!parseFunctionDirectives(f))
      return false;
    if (eat(';')) {
      res_.module.functions.push_back(std::move(f));
      return true;
    }
    if (!peek().is('{'))
      return fail(peek(), "expected '{' or ';' after declaration of '" + f.name + "'");
    take();
    f.hasBody = true;
    bool ok = parseBody(f);
    res_.module.functions.push_back(std::move(f));
    return ok;
  }

  bool parseDims(uint32_t (&dims)[3], std::string_view name) {
    std::string expected = "expected integer after '." + std::string(name) + "'";
    std::string what = "'." + std::string(name) + "'";
    for (int i = 0; i < 3; ++i) {
      if (i > 0 && !eat(','))
        break;
      if (!parseU32(dims[i], expected, what))
        return false;
    }
    for (uint32_t &d : dims)
      if (d == 0)
        d = 1;
    return true;
  }

  // Performance-tuning and other directives between the signature and the body.
  bool parseFunctionDirectives(Function &f) {
    for (;;) {
      const Token &t = peek();
      if (t.kind != TokKind::Dot)
        return true;
      std::string n(t.dotName());
      std::string expected = "expected integer after '." + n + "'";
      std::string what = "'." + n + "'";
      if (n == "maxntid" || n == "reqntid" || n == "reqnctapercluster") {
        take();
        uint32_t(&dims)[3] =
            n == "maxntid" ? f.maxntid : (n == "reqntid" ? f.reqntid : f.reqnctapercluster);
        if (!parseDims(dims, n))
          return false;
      } else if (n == "minnctapersm" || n == "maxnreg" || n == "maxclusterrank" ||
                 n == "maxnctapersm" || n == "abi_preserve" || n == "abi_preserve_control") {
        take();
        uint32_t ignored = 0;
        uint32_t &dst = n == "minnctapersm"     ? f.minnctapersm
                        : n == "maxnreg"        ? f.maxnreg
                        : n == "maxclusterrank" ? f.maxclusterrank
                                                : ignored;
        if (!parseU32(dst, expected, what))
          return false;
      } else if (n == "noreturn") {
        take();
        f.noreturn = true;
      } else if (n == "explicitcluster") {
        take();
        f.explicitcluster = true;
      } else if (n == "blocksareclusters") {
        take();
        f.blocksareclusters = true;
      } else if (n == "pragma") {
        Directive d;
        if (!parsePragma(d))
          return false;
        f.pragmas.push_back(std::move(d.text));
        for (Operand &o : d.args)
          f.pragmas.push_back(std::move(o.name));
      } else {
        return failAt(t.loc, "unexpected directive " + quoteText(t.text) + " in declaration of '" +
                                 f.name + "'");
      }
    }
  }

  // ( .param .b32 a, .reg .u64 b, ... )
  bool parseParams(std::vector<Param> &out) {
    take(); // '('
    if (eat(')'))
      return true;
    for (;;) {
      const Token &t = peek();
      if (!(t.isDot("param") || t.isDot("reg")))
        return fail(t, "expected '.param' or '.reg' in parameter list");
      Param p;
      p.decl.space = t.isDot("param") ? Space::Param : Space::Reg;
      p.decl.loc = t.loc;
      take();
      if (!parseVarAttrs(p.decl) || !parseVarName(p.decl, true))
        return false;
      out.push_back(std::move(p));
      if (eat(','))
        continue;
      if (eat(')'))
        return true;
      return fail(peek(), "expected ',' or ')' in parameter list");
    }
  }

  bool parseCallPrototype(const Token &label, CallPrototype &p) {
    take(); // .callprototype
    p.loc = label.loc;
    p.label = std::string(label.text);
    if (peek().is('(') && !parseParams(p.returns))
      return false;
    if (!expectPunct('_', "expected '_' in '.callprototype'"))
      return false;
    if (peek().is('(') && !parseParams(p.params))
      return false;
    for (;;) {
      const Token &t = peek();
      if (t.isDot("noreturn")) {
        take();
      } else if (t.isDot("abi_preserve") || t.isDot("abi_preserve_control")) {
        std::string what = quoteText(t.text);
        take();
        uint32_t ignored = 0;
        if (!parseU32(ignored, "expected integer after " + what, what))
          return false;
      } else {
        break;
      }
    }
    return expectPunct(';', "expected ';' after '.callprototype'");
  }

  // ---- Function bodies ------------------------------------------------------------------------

  bool parseBody(Function &f) {
    int depth = 0;
    while (!stop_) {
      const Token &t = peek();
      if (t.kind == TokKind::Eof)
        return fail(t, "expected '}' at end of function '" + f.name + "'");
      if (t.is('}')) {
        SourceLoc loc = t.loc;
        take();
        if (depth == 0)
          return true;
        --depth;
        f.body.emplace_back(ScopeEnd{loc});
        continue;
      }
      if (t.is('{')) {
        if (depth >= kMaxScopeDepth) {
          failAt(t.loc, "blocks nested too deeply (limit " + std::to_string(kMaxScopeDepth) + ")");
          return skipBody(depth);
        }
        f.body.emplace_back(ScopeBegin{t.loc});
        take();
        ++depth;
        continue;
      }
      if (t.is(';')) {
        take();
        continue;
      }
      if (endsBody(t)) {
        // A missing '}': end the function here so that the next declaration parses normally.
        fail(t, "expected '}' at end of function '" + f.name + "'");
        return true;
      }
      size_t before = consumed_;
      if (!parseStatement(f.body))
        recoverStatement(before);
    }
    return false;
  }

  // After an unrecoverable error inside a body: skip to the closing brace of the function.
  bool skipBody(int depth) {
    for (;;) {
      const Token &t = peek();
      if (t.kind == TokKind::Eof)
        return false;
      if (t.is('{')) {
        ++depth;
      } else if (t.is('}')) {
        if (depth == 0) {
          take();
          return true;
        }
        --depth;
      }
      take();
    }
  }

  bool parseStatement(std::vector<Statement> &body) {
    const Token &t = peek();
    if (t.kind == TokKind::Dot) {
      std::string_view n = t.dotName();
      auto sp = spaceOf(n);
      if (sp && *sp != Space::Sreg && *sp != Space::Tex) {
        std::vector<VarDecl> decls;
        if (!parseVarStatement(Linkage::None, decls))
          return false;
        for (VarDecl &d : decls)
          body.emplace_back(std::move(d));
        return true;
      }
      if (n == "loc" || n == "file") {
        Directive d;
        if (!parseLineDirective(d))
          return false;
        body.emplace_back(std::move(d));
        return true;
      }
      if (n == "pragma") {
        Directive d;
        if (!parsePragma(d))
          return false;
        body.emplace_back(std::move(d));
        return true;
      }
      if (isKnownDirective(n))
        return failAt(t.loc,
                      "directive " + quoteText(t.text) + " is not allowed in a function body");
      return failAt(t.loc, "unknown directive " + quoteText(t.text));
    }
    if (t.kind == TokKind::Ident && peek(1).is(':'))
      return parseLabeled(body);
    if (t.is('@') || t.kind == TokKind::Ident)
      return parseInstruction(body);
    return fail(t, "expected an instruction");
  }

  // label:  |  proto: .callprototype ...;  |  tbl: .branchtargets L1, L2;
  bool parseLabeled(std::vector<Statement> &body) {
    Token name = take();
    take(); // ':'
    const Token &t = peek();
    if (t.isDot("callprototype")) {
      CallPrototype p;
      if (!parseCallPrototype(name, p))
        return false;
      body.emplace_back(std::move(p));
      return true;
    }
    if (t.isDot("branchtargets") || t.isDot("calltargets")) {
      Directive d;
      d.loc = t.loc;
      d.name = std::string(t.dotName());
      d.text = std::string(name.text);
      std::string what = quoteText(t.text);
      take();
      do {
        const Token &l = peek();
        if (l.kind != TokKind::Ident)
          return fail(l, "expected label in " + what);
        Operand o;
        o.kind = Operand::Kind::Symbol;
        o.loc = l.loc;
        o.name = std::string(l.text);
        d.args.push_back(std::move(o));
        take();
      } while (eat(','));
      if (!expectPunct(';', "expected ';' after " + what))
        return false;
      body.emplace_back(std::move(d));
      return true;
    }
    if (name.text[0] == '%')
      return failAt(name.loc, "invalid label name " + quoteText(name.text));
    body.emplace_back(Label{name.loc, std::string(name.text)});
    return true;
  }

  static bool canStartOperand(const Token &t) {
    return t.kind == TokKind::Ident || t.kind == TokKind::Int || t.kind == TokKind::Float ||
           t.is('-') || t.is('!') || t.is('_') || t.is('[') || t.is('{') || t.is('(');
  }

  bool parseInstruction(std::vector<Statement> &body) {
    Instruction ins;
    ins.loc = peek().loc;
    if (eat('@')) {
      Guard g;
      g.negate = eat('!');
      const Token &r = peek();
      if (r.kind != TokKind::Ident)
        return fail(r, "expected predicate after '@'");
      g.reg = std::string(r.text);
      take();
      ins.guard = std::move(g);
    }
    const Token &op = peek();
    if (op.kind != TokKind::Ident || op.text[0] == '%')
      return fail(op, ins.guard ? "expected an instruction after the guard"
                                : "expected an instruction");
    ins.opcode = std::string(op.text);
    take();
    while (peek().kind == TokKind::Dot && adjacent()) {
      Token m = take();
      std::string_view name = m.dotName();
      if (auto ty = parseType(name)) {
        ins.types.push_back(*ty);
      } else {
        ins.mods.emplace_back(name);
        if (ins.types.empty() && ins.modsBeforeType < 255)
          ++ins.modsBeforeType;
      }
    }
    if (!eat(';')) {
      if (!canStartOperand(peek()))
        return fail(peek(), "expected ';' after instruction");
      for (;;) {
        Operand o;
        if (!parseOperand(o, Ctx::Top))
          return false;
        ins.operands.push_back(std::move(o));
        if (eat(',')) {
          if (!canStartOperand(peek()))
            return fail(peek(), "expected operand after ','");
          continue;
        }
        if (eat(';'))
          break;
        return fail(peek(), "expected ';' after instruction");
      }
    }
    identify(ins);
    body.emplace_back(std::move(ins));
    return true;
  }

  // A register or symbol name with an optional .x component and |second register.
  bool parseNamed(Operand &o, bool forceReg) {
    Token t = take();
    o.name = std::string(t.text);
    bool reg = forceReg || t.text[0] == '%';
    if (peek().kind == TokKind::Dot && adjacent()) {
      const Token &c = peek();
      int comp = componentOf(c.dotName());
      if (comp >= 0)
        o.component = comp;
      else if (isVideoSelector(c.dotName()))
        o.select = std::string(c.dotName());
      else
        return failAt(c.loc, "invalid vector component " + quoteText(c.text) + " after " +
                                 quoteText(t.text));
      reg = true;
      take();
    }
    if (eat('|')) {
      const Token &r = peek();
      if (r.kind != TokKind::Ident)
        return fail(r, "expected register after '|'");
      o.name2 = std::string(r.text);
      take();
      reg = true;
    }
    o.kind = reg ? Operand::Kind::Reg : Operand::Kind::Symbol;
    if (!reg)
      parseSymbolOffset(o);
    return true;
  }

  bool parseOperand(Operand &o, Ctx ctx) {
    const Token &t = peek();
    o.loc = t.loc;
    if (t.is('!')) {
      take();
      if (peek().kind != TokKind::Ident)
        return fail(peek(), "expected predicate after '!'");
      o.negate = true;
      return parseNamed(o, true);
    }
    if (t.is('-')) {
      take();
      const Token &v = peek();
      if (v.kind == TokKind::Int) {
        o.kind = Operand::Kind::Imm;
        o.imm = addWrapped(0, v.ival, true);
        take();
        return true;
      }
      if (v.kind == TokKind::Float) {
        setFloat(o, v, true);
        take();
        return true;
      }
      if (v.kind == TokKind::Ident) {
        o.minus = true;
        return parseNamed(o, true);
      }
      return fail(v, "expected number or register after '-'");
    }
    if (t.kind == TokKind::Ident)
      return parseNamed(o, false);
    if (t.kind == TokKind::Int) {
      o.kind = Operand::Kind::Imm;
      o.imm = static_cast<int64_t>(t.ival);
      take();
      return true;
    }
    if (t.kind == TokKind::Float) {
      setFloat(o, t, false);
      take();
      return true;
    }
    if (t.is('_')) {
      o.kind = Operand::Kind::Sink;
      take();
      return true;
    }
    if (t.is('[') && ctx == Ctx::Top)
      return parseAddress(o);
    if (t.is('{') && ctx != Ctx::InVector) {
      if (!parseVector(o))
        return false;
      if (ctx == Ctx::Top && eat('|')) { // {d0, d1, d2, d3}|p (tex, tld4 residency)
        const Token &r = peek();
        if (r.kind != TokKind::Ident)
          return fail(r, "expected register after '|'");
        o.name2 = std::string(r.text);
        take();
      }
      return true;
    }
    if (t.is('(') && ctx == Ctx::Top)
      return parseList(o);
    return fail(t, "expected operand");
  }

  // [reg], [reg+imm], [reg+-imm], [reg-imm], [sym+imm], [imm], [tex, {coords}], [tex, smp, {..}]
  bool parseAddress(Operand &o) {
    take(); // '['
    ++nest_;
    o.kind = Operand::Kind::Address;
    const Token &b = peek();
    if (b.kind == TokKind::Ident) {
      o.name = std::string(b.text);
      o.addrIsReg = b.text[0] == '%';
      take();
      if (peek().is('+') || peek().is('-')) {
        bool neg = take().punct == '-';
        if (!neg && eat('-'))
          neg = true;
        const Token &v = peek();
        if (v.kind != TokKind::Int)
          return fail(v, "expected integer offset in address");
        o.imm = addWrapped(0, v.ival, neg);
        take();
      }
    } else if (b.kind == TokKind::Int) {
      o.imm = static_cast<int64_t>(b.ival);
      take();
    } else if (b.is('-') && peek(1).kind == TokKind::Int) {
      take();
      o.imm = addWrapped(0, take().ival, true);
    } else {
      return fail(b, "expected register, symbol or integer in address");
    }
    while (eat(',')) {
      Operand e;
      if (!parseOperand(e, Ctx::InAddress))
        return false;
      o.elems.push_back(std::move(e));
    }
    if (!expectPunct(']', "expected ']' after address"))
      return false;
    --nest_;
    return true;
  }

  bool parseVector(Operand &o) {
    take(); // '{'
    ++nest_;
    o.kind = Operand::Kind::Vector;
    for (;;) {
      Operand e;
      if (!parseOperand(e, Ctx::InVector))
        return false;
      o.elems.push_back(std::move(e));
      if (eat(','))
        continue;
      if (eat('}')) {
        --nest_;
        return true;
      }
      return fail(peek(), "expected ',' or '}' in vector operand");
    }
  }

  bool parseList(Operand &o) {
    take(); // '('
    o.kind = Operand::Kind::List;
    if (eat(')'))
      return true;
    ++nest_;
    for (;;) {
      Operand e;
      if (!parseOperand(e, Ctx::InVector))
        return false;
      o.elems.push_back(std::move(e));
      if (eat(','))
        continue;
      if (eat(')')) {
        --nest_;
        return true;
      }
      return fail(peek(), "expected ',' or ')' in argument list");
    }
  }

  Lexer lex_;
  std::deque<Token> la_;
  ParseResult res_;
  size_t consumed_ = 0;
  size_t prevEnd_ = static_cast<size_t>(-1);
  bool stop_ = false;
  int nest_ = 0; // open braces/brackets of the operand or initializer being parsed
};

} // namespace

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
