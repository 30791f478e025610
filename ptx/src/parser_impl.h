// The PTX parser's class, shared by its two halves: parser.cpp (tokens, diagnostics, module
// scope, declarations) and parser_body.cpp (functions, bodies, instructions, operands).
#pragma once

#include "cucpu/ptx/ast.h"
#include "lexer.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cucpu::ptx::detail {

inline constexpr size_t kMaxErrors = 20;
inline constexpr int kMaxScopeDepth = 256;
std::optional<Space> spaceOf(std::string_view n);
std::optional<Linkage> linkageOf(std::string_view n);
int componentOf(std::string_view n);
bool isVideoSelector(std::string_view n);
bool inList(std::string_view name, std::string_view list);
bool startsTopLevel(const Token &t);
bool endsBody(const Token &t);
bool isKnownDirective(std::string_view n);
int64_t addWrapped(int64_t a, uint64_t b, bool negative);
enum class Ctx { Top, InAddress, InVector };
class Parser {
public:
  explicit Parser(std::string_view src) : lex_(src) {}

  ParseResult run();

private:
  // ---- Tokens ---------------------------------------------------------------------------------

  const Token &peek(size_t k = 0);
  Token take();
  bool eat(char c);

  // Whether the next token directly follows the previous one (no space): `%tid.x`, `ld.global`.
  bool adjacent() { return peek().offset == prevEnd_; }

  // ---- Diagnostics ----------------------------------------------------------------------------

  void diag(SourceLoc loc, std::string message);

  // Reports "expected ..., found 'tok'" (or the lexer's message for a bad token); returns false.
  bool fail(const Token &t, std::string_view expected);
  bool failAt(SourceLoc loc, std::string message);

  // Skips to the end of a broken module-scope construct: past the '}' closing a body opened
  // while skipping, or past the next ';' outside braces (braces of an initializer that was being
  // parsed when the error occurred are closed first).
  void recoverTopLevel(size_t before);

  // Skips to the end of a broken statement in a function body: past the next ';', or up to a
  // brace on a later line, or up to the offending token itself when it is a brace that does not
  // belong to an operand or initializer being parsed (`ret }`).
  void recoverStatement(size_t before);

  // ---- Small helpers --------------------------------------------------------------------------

  bool parseU32(uint32_t &out, std::string_view expected, std::string_view what);
  bool expectPunct(char c, std::string_view expected);

  // ---- Module scope ---------------------------------------------------------------------------

  bool parseTopLevel();
  bool parseVersion();
  bool parseTarget();
  bool parseAddressSize();

  // .section name { ... }: debug sections, skipped.
  bool parseSection();

  // .alias fAlias, fOrig;
  bool parseAlias();
  bool parseModuleVars(Linkage lk, const Token &spaceTok);

  // ---- Directives kept as Directive statements ------------------------------------------------

  // .loc and .file: line-based, no ';' (one is accepted if present).
  bool parseLineDirective(Directive &d);

  // .pragma "a"[, "b"...];  text = first string; further strings become Symbol args.
  bool parsePragma(Directive &d);

  // ---- Variable declarations ------------------------------------------------------------------

  // `space attrs type name[<n>][dims][= init] {, name...};` with the space token next.
  bool parseVarStatement(Linkage lk, std::vector<VarDecl> &out);
  bool parseVarAttrs(VarDecl &d);

  // .attribute(.managed) / .attribute(.unified(0x1, 0x2))
  bool parseAttribute(VarDecl &d);
  bool parseVarName(VarDecl &d, bool allowSink);

  // `= value` or `= {v, {v, v}, ...}`, flattened; nesting is tracked by a counter.
  bool parseInitializer(VarDecl &d);

  // +N / -N after a symbol.
  void parseSymbolOffset(Operand &o);

  // name[+N] or generic(name[+N])[+N]
  bool parseSymbolValue(Operand &o);
  bool parseInitValue(Operand &o);
  static bool setInt(Operand &o, uint64_t v);
  static void setFloat(Operand &o, const Token &t, bool negate);

  // ---- Functions ------------------------------------------------------------------------------

  bool parseFunction(Linkage lk, SourceLoc loc);
  bool parseDims(uint32_t (&dims)[3], std::string_view name);

  // Performance-tuning and other directives between the signature and the body.
  bool parseFunctionDirectives(Function &f);

  // ( .param .b32 a, .reg .u64 b, ... )
  bool parseParams(std::vector<Param> &out);
  bool parseCallPrototype(const Token &label, CallPrototype &p);

  // ---- Function bodies ------------------------------------------------------------------------

  bool parseBody(Function &f);

  // After an unrecoverable error inside a body: skip to the closing brace of the function.
  bool skipBody(int depth);
  bool parseStatement(std::vector<Statement> &body);

  // label:  |  proto: .callprototype ...;  |  tbl: .branchtargets L1, L2;
  bool parseLabeled(std::vector<Statement> &body);
  static bool canStartOperand(const Token &t);
  bool parseInstruction(std::vector<Statement> &body);

  // A register or symbol name with an optional .x component and |second register.
  bool parseNamed(Operand &o, bool forceReg);
  bool parseOperand(Operand &o, Ctx ctx);

  // [reg], [reg+imm], [reg+-imm], [reg-imm], [sym+imm], [imm], [tex, {coords}], [tex, smp, {..}]
  bool parseAddress(Operand &o);
  bool parseVector(Operand &o);
  bool parseList(Operand &o);
  Lexer lex_;
  std::deque<Token> la_;
  ParseResult res_;
  size_t consumed_ = 0;
  size_t prevEnd_ = static_cast<size_t>(-1);
  bool stop_ = false;
  int nest_ = 0; // open braces/brackets of the operand or initializer being parsed
};
} // namespace cucpu::ptx::detail
