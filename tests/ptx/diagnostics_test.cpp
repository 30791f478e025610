// Parser tests on bad input: exact line:col diagnostics, recovery, and robustness (no crash/hang).
#include "cucpu/ptx/ast.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

// CMake defines CUCPU_SOURCE_DIR; a direct compile from the repository root works without it.
#ifndef CUCPU_SOURCE_DIR
#define CUCPU_SOURCE_DIR "."
#endif

using namespace cucpu::ptx;

namespace {

constexpr const char *kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

// A kernel `k` around the given statements; the first statement line is line 6.
std::string body(const std::string &b) {
  return std::string(kHeader) + ".entry k()\n{\n" + b + "\n}\n";
}

// A module with the header; the first line after it is line 4.
std::string mod(const std::string &m) { return std::string(kHeader) + m; }

std::vector<std::string> errors(const std::string &text) {
  ParseResult r = parse(text);
  std::vector<std::string> out;
  for (const Diagnostic &d : r.errors)
    out.push_back(d.format());
  return out;
}

using Errs = std::vector<std::string>;

std::string readKernels() {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/tests/ptx/data/kernels.ptx", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Sanity of a result on arbitrary input: bounded error count, every error located and non-empty.
void expectSaneResult(const ParseResult &r, const std::string &input) {
  EXPECT_LE(r.errors.size(), 20u);
  uint32_t lines = 1;
  for (char c : input)
    lines += c == '\n';
  for (const Diagnostic &d : r.errors) {
    EXPECT_GE(d.loc.line, 1u) << d.message;
    EXPECT_LE(d.loc.line, lines) << d.message;
    EXPECT_GE(d.loc.col, 1u) << d.message;
    EXPECT_FALSE(d.message.empty());
  }
}

} // namespace

// ---- Exact messages ----------------------------------------------------------------------------

TEST(PtxDiagnostics, MissingSemicolonReportsNextToken) {
  // Lines 4-11 hold the kernel header, declarations and blank lines; `foo` starts line 12.
  std::string text = std::string(kHeader) + ".visible .entry k()\n{\n.reg .b32 %r<4>;\n\n\n\n" +
                     "\tmov.u32 %r1, 1;\n" + "\tadd.s32 %r1, %r2, %r3\n" + "    foo\n}\n";
  EXPECT_EQ(errors(text), Errs{"12:5: expected ';' after instruction, found 'foo'"});
  EXPECT_EQ(errors(body("\tadd.s32 %r1, %r2, %r3 foo;")),
            Errs{"6:24: expected ';' after instruction, found 'foo'"});
  EXPECT_EQ(errors(body("ret")), Errs{"7:1: expected ';' after instruction, found '}'"});
  EXPECT_EQ(errors(body("add.s32 %r1, %r2 %r3;")),
            Errs{"6:18: expected ';' after instruction, found '%r3'"});
}

TEST(PtxDiagnostics, Operands) {
  EXPECT_EQ(errors(body("add.s32 %r1, ;")), Errs{"6:14: expected operand after ',', found ';'"});
  EXPECT_EQ(errors(body("ld.global.f32 %f1, [%rd1+];")),
            Errs{"6:26: expected integer offset in address, found ']'"});
  EXPECT_EQ(errors(body("ld.global.f32 %f1, [%rd1;")),
            Errs{"6:25: expected ']' after address, found ';'"});
  EXPECT_EQ(errors(body("ld.global.f32 %f1, [];")),
            Errs{"6:21: expected register, symbol or integer in address, found ']'"});
  EXPECT_EQ(errors(body("mov.b64 %rd1, {%r1 %r2};")),
            Errs{"6:20: expected ',' or '}' in vector operand, found '%r2'"});
  EXPECT_EQ(errors(body("mov.b64 %rd1, {};")), Errs{"6:16: expected operand, found '}'"});
  EXPECT_EQ(errors(body("mov.b64 %rd1, {{%r1}};")), Errs{"6:16: expected operand, found '{'"});
  EXPECT_EQ(errors(body("ld.u32 %r1, [[%rd1]];")), Errs{"6:14: expected register, symbol or "
                                                        "integer in address, found '['"});
  EXPECT_EQ(errors(body("call (%r1 %r2), f;")),
            Errs{"6:11: expected ',' or ')' in argument list, found '%r2'"});
  EXPECT_EQ(errors(body("mov.u32 %r1, %tid.q;")),
            Errs{"6:18: invalid vector component '.q' after '%tid'"});
  EXPECT_EQ(errors(body("mov.u32 %r1, -[%r2];")),
            Errs{"6:15: expected number or register after '-', found '['"});
  EXPECT_EQ(errors(body("selp.b32 %r1, 1, 0, !5;")),
            Errs{"6:22: expected predicate after '!', found '5'"});
  EXPECT_EQ(errors(body("setp.eq.s32 %p|5, %r1, 0;")),
            Errs{"6:16: expected register after '|', found '5'"});
}

TEST(PtxDiagnostics, Statements) {
  EXPECT_EQ(errors(body("@ 5 bra L;")), Errs{"6:3: expected predicate after '@', found '5'"});
  EXPECT_EQ(errors(body("@%p1;")), Errs{"6:5: expected an instruction after the guard, found ';'"});
  EXPECT_EQ(errors(body("]")), Errs{"6:1: expected an instruction, found ']'"});
  EXPECT_EQ(errors(body("%r1: ret;")), Errs{"6:1: invalid label name '%r1'"});
  EXPECT_EQ(errors(body(".foo;")), Errs{"6:1: unknown directive '.foo'"});
  EXPECT_EQ(errors(body(".maxnreg 4;")),
            Errs{"6:1: directive '.maxnreg' is not allowed in a function body"});
  EXPECT_EQ(errors(body(".loc 1 2\nret;")), Errs{"7:1: expected integer in '.loc', found 'ret'"});
  EXPECT_EQ(errors(body(".pragma nounroll;")),
            Errs{"6:9: expected string after '.pragma', found 'nounroll'"});
  EXPECT_EQ(errors(body(".pragma \"x\"\nret;")),
            Errs{"7:1: expected ';' after '.pragma', found 'ret'"});
  EXPECT_EQ(errors(body("p: .callprototype (.param .b32 _) (.param .b32 _);")),
            Errs{"6:35: expected '_' in '.callprototype', found '('"});
  EXPECT_EQ(errors(body("t: .branchtargets ;")),
            Errs{"6:19: expected label in '.branchtargets', found ';'"});
  EXPECT_EQ(errors(body(".reg .b32 %r<3000000000>;")),
            Errs{"6:14: register count '3000000000' is too large"});
  EXPECT_EQ(errors(body(".reg .b32 %r<4;")),
            Errs{"6:15: expected '>' after register count, found ';'"});
}

TEST(PtxDiagnostics, ModuleScope) {
  EXPECT_EQ(errors(".foo 1;\n"), Errs{"1:1: unknown directive '.foo'"});
  EXPECT_EQ(errors(".reg .b32 %r;\n"),
            Errs{"1:1: directive '.reg' is not allowed at module scope"});
  EXPECT_EQ(errors(mod(".visible .reg .b32 x;")),
            Errs{"4:10: directive '.reg' is not allowed at module scope"});
  EXPECT_EQ(errors(mod(".loc 1 2 3")),
            Errs{"4:1: directive '.loc' is not allowed at module scope"});
  EXPECT_EQ(
      errors(mod(".visible foo")),
      Errs{"4:10: expected '.entry', '.func' or a state space after '.visible', found 'foo'"});
  EXPECT_EQ(errors(mod("foo bar;")), Errs{"4:1: expected a directive, found 'foo'"});
  EXPECT_EQ(errors(mod("}")), Errs{"4:1: expected a directive, found '}'"});
  EXPECT_EQ(errors(".version x\n"),
            Errs{"1:10: expected version number after '.version', found 'x'"});
  EXPECT_EQ(errors(".version 9\n"),
            Errs{"1:10: expected version number after '.version', found '9'"});
  EXPECT_EQ(errors(".address_size 16\n"),
            Errs{"1:15: invalid address size '16' (expected 32 or 64)"});
  EXPECT_EQ(errors(".target ;\n"), Errs{"1:9: expected target name after '.target', found ';'"});
  EXPECT_EQ(errors(".target sm_75,\n"),
            Errs{"2:1: expected target name after ',', found end of file"});
  EXPECT_EQ(errors(mod(".file 1\n")),
            Errs{"5:1: expected file name string in '.file', found end of file"});
  EXPECT_EQ(errors(mod(".section .debug_info { .b8 1")),
            Errs{"4:29: expected '}' at end of '.section', found end of file"});
  EXPECT_EQ(errors(mod(".alias a b;")), Errs{"4:10: expected ',' in '.alias', found 'b'"});
}

TEST(PtxDiagnostics, Declarations) {
  EXPECT_EQ(errors(mod(".global .align 3 .u32 a;")),
            Errs{"4:9: alignment 3 is not a power of two"});
  EXPECT_EQ(errors(mod(".global .u32 .f32 a;")),
            Errs{"4:14: duplicate type '.f32' in variable declaration"});
  EXPECT_EQ(errors(mod(".global .texref tex;")), Errs{"4:9: unsupported type '.texref'"});
  EXPECT_EQ(errors(mod(".global a;")),
            Errs{"4:9: expected a type in variable declaration, found 'a'"});
  EXPECT_EQ(errors(mod(".global .u32 ;")), Errs{"4:14: expected variable name, found ';'"});
  EXPECT_EQ(errors(mod(".global .u64 .ptr p;")),
            Errs{"4:14: '.ptr' is only allowed on kernel parameters"});
  EXPECT_EQ(errors(mod(".global .u32 a[3] = {1, , 2};")),
            Errs{"4:25: expected initializer value, found ','"});
  EXPECT_EQ(errors(mod(".global .u32 a[3] = {1 2};")),
            Errs{"4:24: expected ',' or '}' in initializer, found '2'"});
  EXPECT_EQ(errors(mod(".global .u32 a[3] = {1, 2")),
            Errs{"4:26: expected ',' or '}' in initializer, found end of file"});
  EXPECT_EQ(errors(mod(".global .u32 a = ;")), Errs{"4:18: expected initializer value, found ';'"});
  EXPECT_EQ(errors(mod(".global .u64 a = generic(1);")),
            Errs{"4:26: expected symbol name in 'generic(...)', found '1'"});
  EXPECT_EQ(errors(mod(".global .u32 a[x];")), Errs{"4:16: expected array size or ']', found 'x'"});
  EXPECT_EQ(errors(mod(".global .u32 a")),
            Errs{"4:15: expected ';' after variable declaration, found end of file"});
  EXPECT_EQ(errors(mod(".global .attribute(.foo) .u32 x;")),
            Errs{"4:20: expected '.managed' or '.unified' in '.attribute', found '.foo'"});
}

TEST(PtxDiagnostics, FunctionHeaders) {
  EXPECT_EQ(errors(mod(".entry k(")),
            Errs{"4:10: expected '.param' or '.reg' in parameter list, found end of file"});
  EXPECT_EQ(errors(mod(".entry")),
            Errs{"4:7: expected function name after '.entry', found end of file"});
  EXPECT_EQ(errors(mod(".func (.param .b32 r) %r1() {}")),
            Errs{"4:23: expected function name after '.func', found '%r1'"});
  EXPECT_EQ(errors(mod(".entry k(.param .u32 a .param .u32 b) {}")),
            Errs{"4:24: expected ',' or ')' in parameter list, found '.param'"});
  EXPECT_EQ(errors(mod(".entry k(.global .u32 a) {}")),
            Errs{"4:10: expected '.param' or '.reg' in parameter list, found '.global'"});
  EXPECT_EQ(errors(mod(".entry k(.param .u32 a[) {}")),
            Errs{"4:24: expected array size or ']', found ')'"});
  EXPECT_EQ(errors(mod(".entry k() .maxntid x {}")),
            Errs{"4:21: expected integer after '.maxntid', found 'x'"});
  EXPECT_EQ(errors(mod(".entry k() .maxntid 4294967296 {}")),
            Errs{"4:21: value '4294967296' is too large for '.maxntid'"});
  EXPECT_EQ(errors(mod(".entry k() .foo {}")),
            Errs{"4:12: unexpected directive '.foo' in declaration of 'k'"});
  EXPECT_EQ(errors(mod(".entry k() ret;")),
            Errs{"4:12: expected '{' or ';' after declaration of 'k', found 'ret'"});
}

TEST(PtxDiagnostics, LexicalErrors) {
  EXPECT_EQ(errors(mod(".pragma \"abc\n;")), Errs{"4:9: unterminated string literal"});
  EXPECT_EQ(errors(mod("/* abc\n\n")), Errs{"4:1: unterminated block comment"});
  EXPECT_EQ(errors(mod("#include <x>\n")), Errs{"4:1: unexpected character '#'"});
  EXPECT_EQ(errors(mod(std::string(1, '\0'))), Errs{"4:1: unexpected character '\\x00'"});
  EXPECT_EQ(errors(mod("\xC3\xA9")), Errs{"4:1: unexpected character '\\xC3'"});
  EXPECT_EQ(errors(body(std::string("ret;\0", 5))), Errs{"6:5: unexpected character '\\x00'"});
  EXPECT_EQ(errors(body("mov.u32 %r1, .;")), Errs{"6:14: unexpected character '.'"});
  EXPECT_EQ(errors(body("mov.u32 %r1, $;")), Errs{"6:14: unexpected character '$'"});
  EXPECT_EQ(errors(body("mov.u32 %r1, %;")), Errs{"6:14: unexpected character '%'"});
  EXPECT_EQ(errors(body("mov.u32 %r1, 99999999999999999999;")),
            Errs{"6:14: integer literal '99999999999999999999' does not fit in 64 bits"});
  EXPECT_EQ(errors(body("mov.u32 %r1, 0x1FFFFFFFFFFFFFFFF;")),
            Errs{"6:14: integer literal '0x1FFFFFFFFFFFFFFFF' does not fit in 64 bits"});
  EXPECT_EQ(errors(body("mov.f32 %f1, 0f3F80;")), Errs{"6:14: invalid numeric literal '0f3F80'"});
  EXPECT_EQ(errors(body("mov.f32 %f1, 0f3F8000000;")),
            Errs{"6:14: invalid numeric literal '0f3F8000000'"});
  EXPECT_EQ(errors(body("mov.f64 %fd1, 0d3FF;")), Errs{"6:15: invalid numeric literal '0d3FF'"});
  EXPECT_EQ(errors(body("mov.f32 %f1, 0fXYZWXYZW;")),
            Errs{"6:14: invalid numeric literal '0fXYZWXYZW'"});
  EXPECT_EQ(errors(body("mov.f32 %f1, 1e999;")),
            Errs{"6:14: floating-point literal '1e999' is out of range"});
  EXPECT_EQ(errors(body("mov.f32 %f1, 12abc;")), Errs{"6:14: invalid numeric literal '12abc'"});
  EXPECT_EQ(errors(body("mov.u32 %r1, 09;")), Errs{"6:14: invalid numeric literal '09'"});
  EXPECT_EQ(errors(body("mov.u32 %r1, 0x;")), Errs{"6:14: invalid numeric literal '0x'"});
  EXPECT_EQ(errors(body("mov.u32 %r1, 0b102;")), Errs{"6:14: invalid numeric literal '0b102'"});
}

TEST(PtxDiagnostics, LongTokensAreQuotedShortened) {
  std::string name(100, 'a');
  EXPECT_EQ(errors(body("add.s32 %r1, %r2 " + name + ";")),
            Errs{"6:18: expected ';' after instruction, found '" + std::string(40, 'a') + "...'"});
  std::string digits(10000, '7');
  EXPECT_EQ(
      errors(body("mov.u32 %r1, " + digits + ";")),
      Errs{"6:14: integer literal '" + std::string(40, '7') + "...' does not fit in 64 bits"});
}

// ---- Truncated input ---------------------------------------------------------------------------

TEST(PtxDiagnostics, TruncatedInput) {
  EXPECT_EQ(errors(mod(".entry k()\n{\n ret;\n")),
            Errs{"7:1: expected '}' at end of function 'k', found end of file"});
  EXPECT_EQ(errors(mod(".entry k()\n{\n add.s32 %r1,")),
            Errs{"6:14: expected operand after ',', found end of file"});
  EXPECT_EQ(errors(mod(".entry k()\n{\n ld.u32 %r1, [%rd1")),
            Errs{"6:19: expected ']' after address, found end of file"});
  EXPECT_EQ(errors(".version"),
            Errs{"1:9: expected version number after '.version', found end of file"});
  EXPECT_EQ(errors(mod(".global .u32 a[")),
            Errs{"4:16: expected array size or ']', found end of file"});
}

TEST(PtxDiagnostics, EveryPrefixOfKernelsFile) {
  const std::string text = readKernels();
  ASSERT_GT(text.size(), 1000u);
  ASSERT_TRUE(parse(text).ok());
  // Byte ranges that lie inside a kernel: from `.visible` to its closing '}'.
  std::vector<std::pair<size_t, size_t>> kernels;
  for (size_t p = text.find(".visible .entry"); p != std::string::npos;
       p = text.find(".visible .entry", p + 1))
    kernels.emplace_back(p, text.find("\n}", p) + 1);
  ASSERT_EQ(kernels.size(), 3u);
  for (size_t cut = 0; cut <= text.size(); ++cut) {
    std::string prefix = text.substr(0, cut);
    ParseResult r = parse(prefix);
    expectSaneResult(r, prefix);
    for (auto [begin, end] : kernels) {
      if (cut > begin && cut <= end) {
        EXPECT_FALSE(r.ok()) << "cut at " << cut;
      }
    }
    if (cut == kernels[0].second + 1) {
      EXPECT_TRUE(r.ok()) << "cut at " << cut;
      EXPECT_EQ(r.module.functions.size(), 1u);
    }
    if (::testing::Test::HasFailure())
      FAIL() << "stopping at cut " << cut;
  }
}

// ---- Recovery ----------------------------------------------------------------------------------

TEST(PtxDiagnostics, RecoversAtStatementBoundaries) {
  ParseResult r = parse(body("add.s32 %r1, %r2 %r3;\n"
                             " ret;\n"
                             " mov.b64 %rd1, {%r1 %r2};\n"
                             " mov.u32 %r1, 1;\n"
                             " ]\n"
                             " ret;\n"
                             " ]\n"
                             "$L1:\n"
                             " @%p1 exit;\n"
                             " ]\n"
                             " .reg .b32 %x;\n"
                             " ld.u32 %r1, [%rd1 %r2];\n"
                             " trap;"));
  std::vector<std::string> e;
  for (const Diagnostic &d : r.errors)
    e.push_back(d.format());
  EXPECT_EQ(e, (Errs{"6:18: expected ';' after instruction, found '%r3'",
                     "8:21: expected ',' or '}' in vector operand, found '%r2'",
                     "10:2: expected an instruction, found ']'",
                     "12:2: expected an instruction, found ']'",
                     "15:2: expected an instruction, found ']'",
                     "17:20: expected ']' after address, found '%r2'"}));
  ASSERT_EQ(r.module.functions.size(), 1u);
  std::vector<std::string> ops;
  for (const Statement &s : r.module.functions[0].body)
    if (const Instruction *i = std::get_if<Instruction>(&s))
      ops.push_back(i->opcode);
  // The statement after an error line without ';' is skipped, unless it is a label, a guarded
  // instruction or a directive.
  EXPECT_EQ(ops, (std::vector<std::string>{"ret", "mov", "exit", "trap"}));
}

TEST(PtxDiagnostics, RecoversAtFunctionBoundaries) {
  ParseResult r = parse(mod(".entry f(\n.param .zz a)\n{\n ret;\n}\n"
                            ".entry g()\n{\n ret;\n}\n"
                            ".entry h()\n{\n ret;\n"
                            ".entry i()\n{\n ret;\n}\n"));
  std::vector<std::string> e;
  for (const Diagnostic &d : r.errors)
    e.push_back(d.format());
  EXPECT_EQ(e, (Errs{"5:8: expected a type in variable declaration, found '.zz'",
                     "16:1: expected '}' at end of function 'h', found '.entry'"}));
  std::vector<std::string> names;
  for (const Function &f : r.module.functions)
    names.push_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"g", "h", "i"}));
}

TEST(PtxDiagnostics, RecoversAfterBadGlobals) {
  ParseResult r = parse(mod(".global .u32 a[3] = {1, , 2};\n"
                            ".global .u32 b = 1;\n"
                            ".global .zz c;\n"
                            ".global .u32 d;\n"));
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].format(), "4:25: expected initializer value, found ','");
  EXPECT_EQ(r.errors[1].format(), "6:9: expected a type in variable declaration, found '.zz'");
  ASSERT_EQ(r.module.globals.size(), 2u);
  EXPECT_EQ(r.module.globals[0].name, "b");
  EXPECT_EQ(r.module.globals[1].name, "d");
}

TEST(PtxDiagnostics, ErrorCountIsCapped) {
  std::string lines;
  for (int i = 0; i < 100; ++i)
    lines += "foo bar baz;\n";
  ParseResult r = parse(body(lines));
  ASSERT_EQ(r.errors.size(), 20u);
  EXPECT_EQ(r.errors[0].format(), "6:9: expected ';' after instruction, found 'baz'");
  EXPECT_EQ(r.errors[19].format(), "25:9: expected ';' after instruction, found 'baz'");
  std::string junk;
  for (int i = 0; i < 1000; ++i)
    junk += "#;\n";
  EXPECT_EQ(parse(junk).errors.size(), 20u);
}

// ---- Robustness --------------------------------------------------------------------------------

TEST(PtxDiagnostics, DeepNesting) {
  const size_t n = 100000;
  ParseResult a = parse(body(std::string(n, '{') + std::string(n, '}')));
  ASSERT_EQ(a.errors.size(), 1u);
  EXPECT_EQ(a.errors[0].format(), "6:257: blocks nested too deeply (limit 256)");
  EXPECT_EQ(a.module.functions.size(), 1u);

  ParseResult b = parse(std::string(n, '{'));
  ASSERT_EQ(b.errors.size(), 1u);
  EXPECT_EQ(b.errors[0].format(), "1:1: expected a directive, found '{'");

  ParseResult c = parse(body(std::string(n, '{')));
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].format(), "6:257: blocks nested too deeply (limit 256)");

  // Initializers are flattened without recursion.
  ParseResult d =
      parse(mod(".global .u32 x[1] = " + std::string(n, '{') + "1" + std::string(n, '}') + ";"));
  EXPECT_TRUE(d.ok());
  ASSERT_EQ(d.module.globals.size(), 1u);
  EXPECT_EQ(d.module.globals[0].init.size(), 1u);
  EXPECT_FALSE(parse(mod(".global .u32 x[1] = " + std::string(n, '{'))).ok());

  for (char open : {'{', '[', '('}) {
    ParseResult e = parse(body("mov.u32 %r1, " + std::string(n, open) + ";"));
    EXPECT_FALSE(e.ok());
    expectSaneResult(e, body(""));
  }
  ParseResult f = parse(body(std::string(n, '@')));
  EXPECT_FALSE(f.ok());
}

TEST(PtxDiagnostics, HugeTokens) {
  std::string big(1 << 20, 'x');
  ParseResult r = parseSyntax(body("mov.u32 %r1, " + big + ";"));
  EXPECT_TRUE(r.ok());
  ParseResult s = parse(mod(".pragma \"" + big + "\";"));
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.module.directives[0].text.size(), big.size());
  ParseResult c = parse(mod("/*" + big));
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_EQ(c.errors[0].format(), "4:1: unterminated block comment");
}

TEST(PtxDiagnostics, BinaryGarbage) {
  std::string all;
  for (int i = 0; i < 256; ++i)
    all += static_cast<char>(i);
  ParseResult a = parse(all);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.errors[0].format(), "1:1: unexpected character '\\x00'");
  expectSaneResult(a, all);

  std::mt19937_64 rng(1234);
  for (int iter = 0; iter < 300; ++iter) {
    std::string s(rng() % 3000, '\0');
    for (char &c : s)
      c = static_cast<char>(rng());
    ParseResult r = parse(s);
    expectSaneResult(r, s);
    if (!s.empty()) {
      EXPECT_FALSE(r.ok());
    }
    if (::testing::Test::HasFailure())
      FAIL() << "iteration " << iter;
  }
}

TEST(PtxDiagnostics, MutatedKernels) {
  const std::string text = readKernels();
  ASSERT_FALSE(text.empty());
  const std::string pieces[] = {
      "{", "}",  "(",  ")",  "[",    "]",      ";",    ",",
      ":", "+",  "-",  "!",  "@",    "|",      "<",    ">",
      "=", "_",  "\"", "/*", "//",   "\n",     ".",    "%",
      "$", "0x", "0f", "1e", ".reg", ".entry", "{{{{", std::string(1, '\0')};
  std::mt19937_64 rng(99);
  for (int iter = 0; iter < 1500; ++iter) {
    std::string s = text;
    int edits = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < edits; ++k) {
      size_t p = rng() % (s.size() + 1);
      switch (rng() % 3) {
      case 0:
        s.erase(p, rng() % 40);
        break;
      case 1:
        s.insert(p, pieces[rng() % std::size(pieces)]);
        break;
      default:
        if (p < s.size())
          s[p] = static_cast<char>(rng());
        break;
      }
    }
    ParseResult r = parse(s);
    expectSaneResult(r, s);
    if (::testing::Test::HasFailure())
      FAIL() << "iteration " << iter;
  }
}

TEST(PtxDiagnostics, TokenSoup) {
  const std::string pieces[] = {"{",       "}",        "(",
                                ")",       "[",        "]",
                                ";",       ",",        ":",
                                "+",       "-",        "!",
                                "@",       "|",        "<",
                                ">",       "=",        "_",
                                ".entry",  ".func",    ".param",
                                ".reg",    ".b32",     ".global",
                                ".align",  "4",        "%r1",
                                "%p",      "foo",      ".version",
                                "9.0",     ".visible", ".loc",
                                "\n",      "\"s\"",    "0f3F800000",
                                "generic", "0xFF",     ".callprototype",
                                ".pragma", ".section", ".maxntid",
                                "-1",      ".x",       "ld"};
  std::mt19937_64 rng(7);
  for (int iter = 0; iter < 3000; ++iter) {
    std::string s;
    size_t n = rng() % 120;
    for (size_t k = 0; k < n; ++k) {
      s += pieces[rng() % std::size(pieces)];
      s += rng() % 5 == 0 ? "\n" : " ";
    }
    ParseResult r = parse(s);
    expectSaneResult(r, s);
    if (::testing::Test::HasFailure())
      FAIL() << "iteration " << iter << ": " << s;
  }
}

namespace {

// A direct call passes the callee's arguments and takes its results, as ptxas checks ("Call has
// wrong number of parameters"); an indirect call is checked against its prototype instead.
TEST(PtxValidation, CallArgumentCountsMatchTheCallee) {
  const std::string callee = ".func (.param .b32 r) f(.param .b32 a)\n{\nret;\n}\n";
  auto call = [&](const std::string &c) {
    return parse(
        mod(callee + ".entry k()\n{\n.param .b32 x;\n.param .b32 y;\n" + c + "\nret;\n}\n"));
  };
  EXPECT_TRUE(call("call (y), f, (x);").ok());
  ParseResult r = call("call f, (x);");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].format(), "12:1: 'call': 'f' takes 1 arguments and gives 1 results; the "
                                  "call has 1 and 0");
  r = call("call (y), f, (x, y);");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].format(), "12:1: 'call': 'f' takes 1 arguments and gives 1 results; the "
                                  "call has 2 and 1");
}

// A `{ }` block's registers hide the function's and other blocks' registers of the same name
// until it ends, as inline assembly relies on (cuSPARSE's SpGEMM kernels declare `.reg .b32 r1`
// in one block and `.reg .s64 r1` in another; validating both against one declaration refused
// the module). Outside the blocks the name is unknown again.
TEST(PtxValidation, BlockRegistersAreScoped) {
  const std::string blocks = ".reg .b32 %r<2>;\n"
                             "{\n.reg .s64 r1;\nmov.b64 r1, 0;\n}\n"
                             "{\n.reg .b32 r1;\n.reg .b16 t, d;\n.reg .pred p;\n"
                             "shfl.sync.down.b32 r1|p, %r1, 16, 31, -1;\n"
                             "@p mov.b32 {t, d}, r1;\n}\n";
  EXPECT_EQ(errors(body(blocks)), Errs{});
  EXPECT_EQ(errors(body(blocks + "mov.b32 %r1, r1;")),
            Errs{"18:1: 'mov.b32': operand 2: register or immediate expected"});
}

} // namespace
