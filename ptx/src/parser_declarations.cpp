// The PTX parser, declarations: the directives kept as statements (.loc, .file, .pragma) and
// variable declarations with their attributes, names, array dimensions and initializers.
#include "parser_impl.h"

#include <bit>
#include <limits>
#include <utility>

namespace cucpu::ptx::detail {

bool Parser::parseLineDirective(Directive &d) {
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

bool Parser::parsePragma(Directive &d) {
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

bool Parser::parseVarStatement(Linkage lk, std::vector<VarDecl> &out) {
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

bool Parser::parseVarAttrs(VarDecl &d) {
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

bool Parser::parseAttribute(VarDecl &d) {
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

bool Parser::parseVarName(VarDecl &d, bool allowSink) {
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

bool Parser::parseInitializer(VarDecl &d) {
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

void Parser::parseSymbolOffset(Operand &o) {
  while ((peek().is('+') || peek().is('-')) && peek(1).kind == TokKind::Int) {
    bool neg = take().punct == '-';
    o.imm = addWrapped(o.imm, take().ival, neg);
  }
}

bool Parser::parseSymbolValue(Operand &o) {
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

bool Parser::parseInitValue(Operand &o) {
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

bool Parser::setInt(Operand &o, uint64_t v) {
  o.kind = Operand::Kind::Imm;
  o.imm = static_cast<int64_t>(v);
  return true;
}

void Parser::setFloat(Operand &o, const Token &t, bool negate) {
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

} // namespace cucpu::ptx::detail
