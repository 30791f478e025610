// The PTX parser, functions: signatures, performance directives, parameters, bodies, statements,
// instructions and their operands.
#include "parser_impl.h"

#include <utility>

namespace cucpu::ptx::detail {

bool Parser::parseFunction(Linkage lk, SourceLoc loc) {
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

bool Parser::parseDims(uint32_t (&dims)[3], std::string_view name) {
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

bool Parser::parseFunctionDirectives(Function &f) {
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

bool Parser::parseParams(std::vector<Param> &out) {
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

bool Parser::parseCallPrototype(const Token &label, CallPrototype &p) {
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

bool Parser::parseBody(Function &f) {
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

bool Parser::skipBody(int depth) {
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

bool Parser::parseStatement(std::vector<Statement> &body) {
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
      return failAt(t.loc, "directive " + quoteText(t.text) + " is not allowed in a function body");
    return failAt(t.loc, "unknown directive " + quoteText(t.text));
  }
  if (t.kind == TokKind::Ident && peek(1).is(':'))
    return parseLabeled(body);
  if (t.is('@') || t.kind == TokKind::Ident)
    return parseInstruction(body);
  return fail(t, "expected an instruction");
}

bool Parser::parseLabeled(std::vector<Statement> &body) {
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

bool Parser::canStartOperand(const Token &t) {
  return t.kind == TokKind::Ident || t.kind == TokKind::Int || t.kind == TokKind::Float ||
         t.is('-') || t.is('!') || t.is('_') || t.is('[') || t.is('{') || t.is('(');
}

bool Parser::parseInstruction(std::vector<Statement> &body) {
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
    return fail(op,
                ins.guard ? "expected an instruction after the guard" : "expected an instruction");
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

bool Parser::parseNamed(Operand &o, bool forceReg) {
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

bool Parser::parseOperand(Operand &o, Ctx ctx) {
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

bool Parser::parseAddress(Operand &o) {
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

bool Parser::parseVector(Operand &o) {
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

bool Parser::parseList(Operand &o) {
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

} // namespace cucpu::ptx::detail
