// Parser tests on good input: the nvcc-generated kernels file plus snippets for each construct.
#include "cucpu/ptx/ast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

// CMake defines CUCPU_SOURCE_DIR; a direct compile from the repository root works without it.
#ifndef CUCPU_SOURCE_DIR
#define CUCPU_SOURCE_DIR "."
#endif

using namespace cucpu::ptx;
using Kind = Operand::Kind;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string kernelsPath() { return std::string(CUCPU_SOURCE_DIR) + "/tests/ptx/data/kernels.ptx"; }

std::string errorsOf(const ParseResult &r) {
  std::string s;
  for (const Diagnostic &d : r.errors)
    s += d.format() + "\n";
  return s;
}

// Parses (the syntax alone: these snippets need not declare their registers) and requires success.
Module parseOk(const std::string &text) {
  ParseResult r = parseSyntax(text);
  EXPECT_TRUE(r.ok()) << errorsOf(r);
  return std::move(r.module);
}

constexpr const char *kHeader = ".version 9.0\n.target sm_75\n.address_size 64\n";

// Wraps statements in a kernel `k`; the first body line is line 6 of the file.
Function parseBody(const std::string &body) {
  Module m = parseOk(std::string(kHeader) + ".entry k()\n{\n" + body + "\n}\n");
  if (m.functions.size() != 1) {
    ADD_FAILURE() << "expected one function";
    return {};
  }
  return std::move(m.functions[0]);
}

template <typename T> std::vector<T> all(const Function &f) {
  std::vector<T> out;
  for (const Statement &s : f.body)
    if (const T *t = std::get_if<T>(&s))
      out.push_back(*t);
  return out;
}

std::vector<Instruction> insts(const Function &f) { return all<Instruction>(f); }

// Parses one instruction (line 6 of the file).
Instruction parseInst(const std::string &text) {
  Function f = parseBody(text);
  std::vector<Instruction> v = insts(f);
  if (v.size() != 1) {
    ADD_FAILURE() << "expected one instruction in: " << text;
    return {};
  }
  return v[0];
}

void expectLoc(SourceLoc loc, uint32_t line, uint32_t col) {
  EXPECT_EQ(loc.line, line);
  EXPECT_EQ(loc.col, col);
}

void expectReg(const Operand &o, const std::string &name, int component = -1) {
  EXPECT_EQ(o.kind, Kind::Reg);
  EXPECT_EQ(o.name, name);
  EXPECT_EQ(o.component, component);
  EXPECT_TRUE(o.name2.empty());
  EXPECT_FALSE(o.negate);
  EXPECT_FALSE(o.minus);
}

void expectImm(const Operand &o, int64_t v) {
  EXPECT_EQ(o.kind, Kind::Imm);
  EXPECT_EQ(o.imm, v);
}

void expectSymbol(const Operand &o, const std::string &name, int64_t offset = 0) {
  EXPECT_EQ(o.kind, Kind::Symbol);
  EXPECT_EQ(o.name, name);
  EXPECT_EQ(o.imm, offset);
}

void expectAddr(const Operand &o, const std::string &base, bool isReg, int64_t offset) {
  EXPECT_EQ(o.kind, Kind::Address);
  EXPECT_EQ(o.name, base);
  EXPECT_EQ(o.addrIsReg, isReg);
  EXPECT_EQ(o.imm, offset);
}

using Mods = std::vector<std::string>;
using Types = std::vector<Type>;

} // namespace

// ---- Types and small helpers -------------------------------------------------------------------

TEST(PtxTypes, SizesAndClasses) {
  EXPECT_EQ(typeSize(Type::None), 0u);
  EXPECT_EQ(typeSize(Type::Pred), 1u);
  EXPECT_EQ(typeSize(Type::B8), 1u);
  EXPECT_EQ(typeSize(Type::B16), 2u);
  EXPECT_EQ(typeSize(Type::B128), 16u);
  EXPECT_EQ(typeSize(Type::U64), 8u);
  EXPECT_EQ(typeSize(Type::S16), 2u);
  EXPECT_EQ(typeSize(Type::F16), 2u);
  EXPECT_EQ(typeSize(Type::F16x2), 4u);
  EXPECT_EQ(typeSize(Type::BF16), 2u);
  EXPECT_EQ(typeSize(Type::BF16x2), 4u);
  EXPECT_EQ(typeSize(Type::TF32), 4u);
  EXPECT_EQ(typeSize(Type::F32), 4u);
  EXPECT_EQ(typeSize(Type::F64), 8u);

  EXPECT_TRUE(isFloat(Type::F16));
  EXPECT_TRUE(isFloat(Type::BF16x2));
  EXPECT_TRUE(isFloat(Type::TF32));
  EXPECT_TRUE(isFloat(Type::F64));
  EXPECT_FALSE(isFloat(Type::B32));
  EXPECT_FALSE(isFloat(Type::Pred));
  EXPECT_TRUE(isSigned(Type::S8));
  EXPECT_TRUE(isSigned(Type::S64));
  EXPECT_FALSE(isSigned(Type::U32));
  EXPECT_FALSE(isSigned(Type::F32));
  EXPECT_TRUE(isUnsigned(Type::U8));
  EXPECT_TRUE(isUnsigned(Type::U64));
  EXPECT_FALSE(isUnsigned(Type::B64));
  EXPECT_TRUE(isBits(Type::B8));
  EXPECT_TRUE(isBits(Type::B128));
  EXPECT_FALSE(isBits(Type::U16));
  EXPECT_FALSE(isBits(Type::Pred));
}

TEST(PtxTypes, ParseAndNameRoundTrip) {
  const Type types[] = {Type::Pred, Type::B8,  Type::B16, Type::B32,   Type::B64,  Type::B128,
                        Type::U8,   Type::U16, Type::U32, Type::U64,   Type::S8,   Type::S16,
                        Type::S32,  Type::S64, Type::F16, Type::F16x2, Type::BF16, Type::BF16x2,
                        Type::TF32, Type::F32, Type::F64};
  for (Type t : types) {
    std::optional<Type> back = parseType(typeName(t));
    ASSERT_TRUE(back.has_value()) << typeName(t);
    EXPECT_EQ(*back, t);
  }
  EXPECT_EQ(typeName(Type::F32), "f32");
  EXPECT_EQ(typeName(Type::BF16x2), "bf16x2");
  EXPECT_EQ(typeName(Type::Pred), "pred");
  EXPECT_EQ(parseType("s32"), Type::S32);
  EXPECT_FALSE(parseType("").has_value());
  EXPECT_FALSE(parseType(".f32").has_value());
  EXPECT_FALSE(parseType("F32").has_value());
  EXPECT_FALSE(parseType("x4").has_value());
  EXPECT_FALSE(parseType("e4m3").has_value());
  EXPECT_FALSE(parseType("none").has_value());
  EXPECT_FALSE(parseType("v4").has_value());
}

TEST(PtxTypes, DiagnosticFormat) {
  Diagnostic d{{12, 5}, "expected ';' after instruction, found 'foo'"};
  EXPECT_EQ(d.format(), "12:5: expected ';' after instruction, found 'foo'");
}

TEST(PtxTypes, HasMod) {
  Instruction i = parseInst("ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1];");
  EXPECT_TRUE(i.hasMod("global"));
  EXPECT_TRUE(i.hasMod("nc"));
  EXPECT_TRUE(i.hasMod("v4"));
  EXPECT_FALSE(i.hasMod("f32"));
  EXPECT_FALSE(i.hasMod("shared"));
  EXPECT_FALSE(i.hasMod(""));
}

TEST(PtxModule, FindFunctionPrefersDefinition) {
  Module m = parseOk(std::string(kHeader) + ".func foo();\n"
                                            ".visible .func foo()\n{\n ret;\n}\n"
                                            ".extern .func bar();\n");
  ASSERT_EQ(m.functions.size(), 3u);
  const Function *foo = m.findFunction("foo");
  ASSERT_NE(foo, nullptr);
  EXPECT_TRUE(foo->hasBody);
  EXPECT_EQ(foo, &m.functions[1]);
  const Function *bar = m.findFunction("bar");
  ASSERT_NE(bar, nullptr);
  EXPECT_FALSE(bar->hasBody);
  EXPECT_EQ(bar->linkage, Linkage::Extern);
  EXPECT_EQ(m.findFunction("baz"), nullptr);
  EXPECT_EQ(m.findFunction(""), nullptr);
}

// ---- The nvcc-generated kernels file -----------------------------------------------------------

class KernelsFile : public ::testing::Test {
protected:
  void SetUp() override {
    std::string text = readFile(kernelsPath());
    ASSERT_FALSE(text.empty()) << "cannot read " << kernelsPath();
    ParseResult r = parse(text);
    ASSERT_TRUE(r.ok()) << errorsOf(r);
    m = std::move(r.module);
  }
  Module m;
};

TEST_F(KernelsFile, Header) {
  EXPECT_EQ(m.versionMajor, 9u);
  EXPECT_EQ(m.versionMinor, 0u);
  EXPECT_EQ(m.target, "sm_75");
  EXPECT_TRUE(m.targetOptions.empty());
  EXPECT_EQ(m.addressSize, 64u);
  EXPECT_TRUE(m.prototypes.empty());
  EXPECT_TRUE(m.directives.empty());
}

TEST_F(KernelsFile, ExternSharedArray) {
  ASSERT_EQ(m.globals.size(), 1u);
  const VarDecl &g = m.globals[0];
  EXPECT_EQ(g.name, "sdata");
  EXPECT_EQ(g.space, Space::Shared);
  EXPECT_EQ(g.linkage, Linkage::Extern);
  EXPECT_EQ(g.type, Type::B8);
  EXPECT_EQ(g.align, 16u);
  EXPECT_EQ(g.vecWidth, 1u);
  EXPECT_EQ(g.rangeCount, -1);
  EXPECT_EQ(g.dims, std::vector<uint64_t>{0});
  EXPECT_FALSE(g.hasInit);
  expectLoc(g.loc, 16, 31);
}

TEST_F(KernelsFile, Functions) {
  ASSERT_EQ(m.functions.size(), 3u);
  const char *names[] = {"VecAdd_kernel", "matrixMul", "reduce"};
  const size_t paramCounts[] = {4, 5, 3};
  for (size_t i = 0; i < 3; ++i) {
    const Function &f = m.functions[i];
    EXPECT_EQ(f.name, names[i]);
    EXPECT_TRUE(f.isEntry);
    EXPECT_TRUE(f.hasBody);
    EXPECT_EQ(f.linkage, Linkage::Visible);
    EXPECT_TRUE(f.returns.empty());
    EXPECT_EQ(f.params.size(), paramCounts[i]);
    EXPECT_EQ(f.maxntid[0], 0u);
    EXPECT_FALSE(f.noreturn);
    EXPECT_EQ(m.findFunction(names[i]), &f);
  }
  expectLoc(m.functions[0].loc, 18, 1);
  expectLoc(m.functions[1].loc, 59, 1);
  expectLoc(m.functions[2].loc, 195, 1);
}

TEST_F(KernelsFile, Params) {
  const Function &f = m.functions[0];
  ASSERT_EQ(f.params.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    const VarDecl &p = f.params[i].decl;
    EXPECT_EQ(p.name, "VecAdd_kernel_param_" + std::to_string(i));
    EXPECT_EQ(p.space, Space::Param);
    EXPECT_EQ(p.type, i < 3 ? Type::U64 : Type::U32);
    EXPECT_EQ(typeSize(p.type), i < 3 ? 8u : 4u);
    EXPECT_FALSE(p.ptrAttr);
    EXPECT_EQ(p.align, 0u);
    EXPECT_TRUE(p.dims.empty());
    expectLoc(p.loc, 19 + static_cast<uint32_t>(i), 14);
  }
  const Function &r = m.functions[2];
  EXPECT_EQ(r.params[2].decl.name, "reduce_param_2");
  EXPECT_EQ(r.params[2].decl.type, Type::U32);
}

TEST_F(KernelsFile, RegisterDeclarations) {
  std::vector<VarDecl> regs = all<VarDecl>(m.functions[0]);
  ASSERT_EQ(regs.size(), 4u);
  const char *names[] = {"%p", "%f", "%r", "%rd"};
  const Type types[] = {Type::Pred, Type::F32, Type::B32, Type::B64};
  const int counts[] = {2, 4, 6, 11};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(regs[i].space, Space::Reg);
    EXPECT_EQ(regs[i].name, names[i]);
    EXPECT_EQ(regs[i].type, types[i]);
    EXPECT_EQ(regs[i].rangeCount, counts[i]);
    EXPECT_TRUE(regs[i].dims.empty());
  }
  expectLoc(regs[0].loc, 25, 14);
  expectLoc(regs[3].loc, 28, 13);
}

TEST_F(KernelsFile, DemotedSharedArrays) {
  std::vector<VarDecl> decls = all<VarDecl>(m.functions[1]);
  ASSERT_EQ(decls.size(), 6u);
  const VarDecl &as = decls[4];
  EXPECT_EQ(as.name, "_ZZ9matrixMulE2As");
  EXPECT_EQ(as.space, Space::Shared);
  EXPECT_EQ(as.linkage, Linkage::None);
  EXPECT_EQ(as.type, Type::B8);
  EXPECT_EQ(as.align, 4u);
  EXPECT_EQ(as.dims, std::vector<uint64_t>{1024});
  expectLoc(as.loc, 72, 23);
  EXPECT_EQ(decls[5].name, "_ZZ9matrixMulE2Bs");
  EXPECT_EQ(decls[5].dims, std::vector<uint64_t>{1024});
}

TEST_F(KernelsFile, VecAddBody) {
  const Function &f = m.functions[0];
  std::vector<Instruction> v = insts(f);
  ASSERT_EQ(v.size(), 22u);
  std::vector<Label> labels = all<Label>(f);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0].name, "$L__BB0_2");
  expectLoc(labels[0].loc, 54, 1);

  // ld.param.u64 	%rd1, [VecAdd_kernel_param_0];
  const Instruction &ld = v[0];
  expectLoc(ld.loc, 31, 2);
  EXPECT_EQ(ld.opcode, "ld");
  EXPECT_EQ(ld.mods, Mods{"param"});
  EXPECT_EQ(ld.types, Types{Type::U64});
  EXPECT_FALSE(ld.guard.has_value());
  ASSERT_EQ(ld.operands.size(), 2u);
  expectReg(ld.operands[0], "%rd1");
  expectLoc(ld.operands[0].loc, 31, 16);
  expectAddr(ld.operands[1], "VecAdd_kernel_param_0", false, 0);
  EXPECT_TRUE(ld.operands[1].elems.empty());
  expectLoc(ld.operands[1].loc, 31, 22);

  // mov.u32 	%r3, %ntid.x;
  const Instruction &mov = v[4];
  EXPECT_EQ(mov.opcode, "mov");
  EXPECT_TRUE(mov.mods.empty());
  EXPECT_EQ(mov.types, Types{Type::U32});
  ASSERT_EQ(mov.operands.size(), 2u);
  expectReg(mov.operands[0], "%r3");
  expectReg(mov.operands[1], "%ntid", 0);
  expectReg(v[5].operands[1], "%ctaid", 0);
  expectReg(v[6].operands[1], "%tid", 0);

  // mad.lo.s32 	%r1, %r3, %r4, %r5;
  EXPECT_EQ(v[7].opcode, "mad");
  EXPECT_EQ(v[7].mods, Mods{"lo"});
  EXPECT_EQ(v[7].types, Types{Type::S32});
  ASSERT_EQ(v[7].operands.size(), 4u);
  expectReg(v[7].operands[3], "%r5");

  // setp.ge.s32 	%p1, %r1, %r2;
  EXPECT_EQ(v[8].opcode, "setp");
  EXPECT_EQ(v[8].mods, Mods{"ge"});

  // @%p1 bra 	$L__BB0_2;
  const Instruction &bra = v[9];
  expectLoc(bra.loc, 40, 2);
  ASSERT_TRUE(bra.guard.has_value());
  EXPECT_EQ(bra.guard->reg, "%p1");
  EXPECT_FALSE(bra.guard->negate);
  EXPECT_EQ(bra.opcode, "bra");
  ASSERT_EQ(bra.operands.size(), 1u);
  expectSymbol(bra.operands[0], "$L__BB0_2");

  // cvta.to.global.u64 	%rd4, %rd1;
  EXPECT_EQ(v[10].opcode, "cvta");
  EXPECT_EQ(v[10].mods, (Mods{"to", "global"}));
  EXPECT_EQ(v[10].types, Types{Type::U64});

  // mul.wide.s32 	%rd5, %r1, 4;
  EXPECT_EQ(v[11].mods, Mods{"wide"});
  expectImm(v[11].operands[2], 4);

  // ld.global.f32 	%f1, [%rd8];
  EXPECT_EQ(v[15].mods, Mods{"global"});
  EXPECT_EQ(v[15].types, Types{Type::F32});
  expectAddr(v[15].operands[1], "%rd8", true, 0);

  // st.global.f32 	[%rd10], %f3;
  const Instruction &st = v[20];
  EXPECT_EQ(st.opcode, "st");
  expectAddr(st.operands[0], "%rd10", true, 0);
  expectReg(st.operands[1], "%f3");

  EXPECT_EQ(v[21].opcode, "ret");
  EXPECT_TRUE(v[21].operands.empty());
  expectLoc(v[21].loc, 55, 2);
  // The label comes right before ret.
  ASSERT_GE(f.body.size(), 2u);
  EXPECT_TRUE(std::holds_alternative<Label>(f.body[f.body.size() - 2]));
  EXPECT_TRUE(std::holds_alternative<Instruction>(f.body.back()));
}

TEST_F(KernelsFile, MatrixMulBody) {
  const Function &f = m.functions[1];
  std::vector<Instruction> v = insts(f);
  ASSERT_EQ(v.size(), 108u);
  std::vector<Label> labels = all<Label>(f);
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels[0].name, "$L__BB1_2");
  EXPECT_EQ(labels[3].name, "$L__BB1_4");

  // mov.u32 	%r1, %tid.x; mov.u32 %r2, %tid.y; mov.u32 %r3, %ctaid.y;
  expectReg(v[5].operands[1], "%tid", 0);
  expectReg(v[6].operands[1], "%tid", 1);
  expectReg(v[7].operands[1], "%ctaid", 1);

  // bra.uni 	$L__BB1_1;
  const Instruction &uni = v[15];
  EXPECT_EQ(uni.opcode, "bra");
  EXPECT_EQ(uni.mods, Mods{"uni"});
  EXPECT_FALSE(uni.guard.has_value());
  expectSymbol(uni.operands[0], "$L__BB1_1");

  // mov.u32 	%r19, _ZZ9matrixMulE2As;
  expectSymbol(v[17].operands[1], "_ZZ9matrixMulE2As");

  // mov.f32 	%f56, 0f00000000;
  const Operand &zero = v[38].operands[1];
  expectLoc(v[38].loc, 116, 2);
  EXPECT_EQ(zero.kind, Kind::FImm);
  EXPECT_EQ(zero.fwidth, 32);
  EXPECT_EQ(zero.fbits, 0u);
  EXPECT_EQ(zero.fval, 0.0);

  // st.shared.f32 	[%r7], %f6;  bar.sync 0;  ld.shared.f32 %f11, [%r10+64];
  EXPECT_EQ(v[40].mods, Mods{"shared"});
  expectAddr(v[40].operands[0], "%r7", true, 0);
  EXPECT_EQ(v[43].opcode, "bar");
  EXPECT_EQ(v[43].mods, Mods{"sync"});
  expectImm(v[43].operands[0], 0);
  expectAddr(v[47].operands[1], "%r10", true, 64);
  expectAddr(v[48].operands[1], "%r9", true, 4);
  // fma.rn.f32 	%f10, %f9, %f8, %f56;
  EXPECT_EQ(v[46].opcode, "fma");
  EXPECT_EQ(v[46].mods, Mods{"rn"});
  EXPECT_EQ(v[46].types, Types{Type::F32});
}

TEST_F(KernelsFile, ReduceBody) {
  const Function &f = m.functions[2];
  std::vector<Instruction> v = insts(f);
  ASSERT_EQ(v.size(), 50u);
  EXPECT_EQ(all<Label>(f).size(), 6u);
  // mov.u32 	%r13, sdata;
  const Instruction *movSdata = nullptr;
  const Instruction *ldSdata = nullptr;
  for (const Instruction &i : v) {
    if (i.opcode == "mov" && i.operands.size() == 2 && i.operands[1].kind == Kind::Symbol)
      movSdata = &i;
    if (i.opcode == "ld" && i.hasMod("shared") && i.operands[1].name == "sdata")
      ldSdata = &i;
  }
  ASSERT_NE(movSdata, nullptr);
  expectSymbol(movSdata->operands[1], "sdata");
  expectLoc(movSdata->operands[1].loc, 236, 17);
  ASSERT_NE(ldSdata, nullptr);
  expectAddr(ldSdata->operands[1], "sdata", false, 0);
  expectLoc(ldSdata->loc, 265, 2);
  // setp.ge.u32 	%p1, %r4, %r10;
  EXPECT_EQ(v[9].opcode, "setp");
  EXPECT_EQ(v[9].types, Types{Type::U32});
}

// ---- Module-scope declarations ----------------------------------------------------------------

TEST(PtxParser, VersionTargetAddressSize) {
  Module m =
      parseOk(".version 7.8\n.target sm_90a, texmode_independent, debug\n.address_size 32\n");
  EXPECT_EQ(m.versionMajor, 7u);
  EXPECT_EQ(m.versionMinor, 8u);
  EXPECT_EQ(m.target, "sm_90a");
  EXPECT_EQ(m.targetOptions, (std::vector<std::string>{"texmode_independent", "debug"}));
  EXPECT_EQ(m.addressSize, 32u);
  EXPECT_TRUE(m.functions.empty());
}

TEST(PtxParser, EmptyInputIsAnEmptyModule) {
  Module m = parseOk("");
  EXPECT_EQ(m.versionMajor, 0u);
  EXPECT_EQ(m.addressSize, 64u);
  Module c = parseOk("// just a comment\n/* and\nanother */\n");
  EXPECT_TRUE(c.functions.empty());
}

TEST(PtxParser, GlobalsWithInitializers) {
  Module m = parseOk(std::string(kHeader) +
                     ".global .align 4 .u32 g1 = 7;\n"
                     ".global .align 1 .b8 $str[6] = {104, 101, 108, 108, 111, 0};\n"
                     ".const .align 4 .f32 cf[2][3] = {{0f3F800000, 1.5, -2}, {3, 0x10, 1e-3}};\n"
                     ".visible .global .align 8 .u64 ptrs[3] = {generic($str), $str+8, "
                     "generic($str)+4};\n"
                     ".global .align 1 .u8 bytes[3] = {0xFF(generic($str)), 0xFF00($str+1), "
                     "0xFF00(4660)};\n"
                     ".global .f64 d = 0dBFF0000000000000;\n"
                     ".global .s32 n = -5;\n");
  ASSERT_EQ(m.globals.size(), 7u);

  const VarDecl &g1 = m.globals[0];
  EXPECT_EQ(g1.name, "g1");
  EXPECT_EQ(g1.space, Space::Global);
  EXPECT_EQ(g1.linkage, Linkage::None);
  EXPECT_EQ(g1.type, Type::U32);
  EXPECT_EQ(g1.align, 4u);
  EXPECT_TRUE(g1.hasInit);
  ASSERT_EQ(g1.init.size(), 1u);
  expectImm(g1.init[0], 7);
  expectLoc(g1.init[0].loc, 4, 28);

  const VarDecl &str = m.globals[1];
  EXPECT_EQ(str.name, "$str");
  EXPECT_EQ(str.dims, std::vector<uint64_t>{6});
  ASSERT_EQ(str.init.size(), 6u);
  expectImm(str.init[0], 104);
  expectImm(str.init[5], 0);

  const VarDecl &cf = m.globals[2];
  EXPECT_EQ(cf.space, Space::Const);
  EXPECT_EQ(cf.dims, (std::vector<uint64_t>{2, 3}));
  ASSERT_EQ(cf.init.size(), 6u);
  EXPECT_EQ(cf.init[0].kind, Kind::FImm);
  EXPECT_EQ(cf.init[0].fwidth, 32);
  EXPECT_EQ(cf.init[0].fbits, 0x3F800000u);
  EXPECT_EQ(cf.init[0].fval, 1.0);
  EXPECT_EQ(cf.init[1].kind, Kind::FImm);
  EXPECT_EQ(cf.init[1].fwidth, 0);
  EXPECT_EQ(cf.init[1].fval, 1.5);
  expectImm(cf.init[2], -2);
  expectImm(cf.init[3], 3);
  expectImm(cf.init[4], 16);
  EXPECT_EQ(cf.init[5].kind, Kind::FImm);
  EXPECT_DOUBLE_EQ(cf.init[5].fval, 1e-3);

  const VarDecl &ptrs = m.globals[3];
  EXPECT_EQ(ptrs.linkage, Linkage::Visible);
  EXPECT_EQ(ptrs.type, Type::U64);
  ASSERT_EQ(ptrs.init.size(), 3u);
  expectSymbol(ptrs.init[0], "$str", 0);
  EXPECT_TRUE(ptrs.init[0].generic);
  expectSymbol(ptrs.init[1], "$str", 8);
  EXPECT_FALSE(ptrs.init[1].generic);
  expectSymbol(ptrs.init[2], "$str", 4);
  EXPECT_TRUE(ptrs.init[2].generic);

  const VarDecl &bytes = m.globals[4];
  ASSERT_EQ(bytes.init.size(), 3u);
  expectSymbol(bytes.init[0], "$str", 0);
  EXPECT_TRUE(bytes.init[0].generic);
  EXPECT_EQ(bytes.init[0].mask, 0xFFu);
  expectSymbol(bytes.init[1], "$str", 1);
  EXPECT_EQ(bytes.init[1].mask, 0xFF00u);
  expectImm(bytes.init[2], 0x12); // (0x1234 & 0xFF00) >> 8

  const VarDecl &d = m.globals[5];
  ASSERT_EQ(d.init.size(), 1u);
  EXPECT_EQ(d.init[0].kind, Kind::FImm);
  EXPECT_EQ(d.init[0].fwidth, 64);
  EXPECT_EQ(d.init[0].fbits, 0xBFF0000000000000u);
  EXPECT_EQ(d.init[0].fval, -1.0);

  expectImm(m.globals[6].init[0], -5);
}

TEST(PtxParser, GlobalsAttributesAndLinkage) {
  Module m = parseOk(std::string(kHeader) + ".extern .shared .align 16 .b8 sdata[];\n"
                                            ".global .attribute(.managed) .align 4 .u32 man;\n"
                                            ".weak .global .align 8 .v2 .f32 vv;\n"
                                            ".common .global .u32 a1, a2 = 5;\n"
                                            ".shared .align 16 .v4 .b32 tile[8];\n"
                                            ".global .u32 .align 8 late;\n"
                                            ".extern .global .align 4 .b8 ext[];\n");
  ASSERT_EQ(m.globals.size(), 8u);
  EXPECT_EQ(m.globals[0].linkage, Linkage::Extern);
  EXPECT_EQ(m.globals[0].dims, std::vector<uint64_t>{0});
  EXPECT_TRUE(m.globals[1].managed);
  EXPECT_EQ(m.globals[1].align, 4u);
  EXPECT_FALSE(m.globals[0].managed);
  EXPECT_EQ(m.globals[2].linkage, Linkage::Weak);
  EXPECT_EQ(m.globals[2].vecWidth, 2u);
  EXPECT_EQ(m.globals[2].type, Type::F32);
  EXPECT_EQ(m.globals[3].name, "a1");
  EXPECT_EQ(m.globals[3].linkage, Linkage::Common);
  EXPECT_FALSE(m.globals[3].hasInit);
  EXPECT_EQ(m.globals[4].name, "a2");
  EXPECT_EQ(m.globals[4].linkage, Linkage::Common);
  EXPECT_TRUE(m.globals[4].hasInit);
  expectLoc(m.globals[4].loc, 7, 26);
  EXPECT_EQ(m.globals[5].space, Space::Shared);
  EXPECT_EQ(m.globals[5].vecWidth, 4u);
  EXPECT_EQ(m.globals[5].dims, std::vector<uint64_t>{8});
  EXPECT_EQ(m.globals[6].align, 8u);
  EXPECT_EQ(m.globals[6].type, Type::U32);
  EXPECT_EQ(m.globals[7].linkage, Linkage::Extern);
}

TEST(PtxParser, ModuleDirectives) {
  Module m = parseOk(std::string(kHeader) +
                     ".file 1 \"/home/u/a.cu\", 1700000000, 1234\n"
                     ".file 2 \"b.h\"\n"
                     ".pragma \"nounroll\";\n"
                     ".section .debug_abbrev\n{\n.b8 17\n.b8 1, 2\n.b32 $L__info_string0\n}\n"
                     ".func fn() { ret; }\n"
                     ".alias fa, fn;\n");
  ASSERT_EQ(m.directives.size(), 4u);
  const Directive &f1 = m.directives[0];
  EXPECT_EQ(f1.name, "file");
  EXPECT_EQ(f1.text, "/home/u/a.cu");
  ASSERT_EQ(f1.args.size(), 3u);
  expectImm(f1.args[0], 1);
  expectImm(f1.args[1], 1700000000);
  expectImm(f1.args[2], 1234);
  expectLoc(f1.loc, 4, 1);
  EXPECT_EQ(m.directives[1].text, "b.h");
  ASSERT_EQ(m.directives[1].args.size(), 1u);
  expectImm(m.directives[1].args[0], 2);
  EXPECT_EQ(m.directives[2].name, "pragma");
  EXPECT_EQ(m.directives[2].text, "nounroll");
  const Directive &alias = m.directives[3];
  EXPECT_EQ(alias.name, "alias");
  ASSERT_EQ(alias.args.size(), 2u);
  expectSymbol(alias.args[0], "fa");
  expectSymbol(alias.args[1], "fn");
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].name, "fn");
  EXPECT_TRUE(m.globals.empty());
}

// ---- Functions ---------------------------------------------------------------------------------

TEST(PtxParser, EntryParamAttributes) {
  Module m = parseOk(std::string(kHeader) + ".visible .entry k(\n"
                                            "\t.param .u64 .ptr .global .align 16 k_param_0,\n"
                                            "\t.param .align 8 .b8 k_param_1[16],\n"
                                            "\t.param .u64 .ptr .align 1 k_param_2,\n"
                                            "\t.param .u32 k_param_3\n"
                                            ")\n{\n\tret;\n}\n");
  ASSERT_EQ(m.functions.size(), 1u);
  const Function &f = m.functions[0];
  ASSERT_EQ(f.params.size(), 4u);
  const VarDecl &p0 = f.params[0].decl;
  EXPECT_EQ(p0.name, "k_param_0");
  EXPECT_EQ(p0.space, Space::Param);
  EXPECT_EQ(p0.type, Type::U64);
  EXPECT_TRUE(p0.ptrAttr);
  EXPECT_EQ(p0.ptrSpace, Space::Global);
  EXPECT_EQ(p0.ptrAlign, 16u);
  EXPECT_EQ(p0.align, 0u);
  expectLoc(p0.loc, 5, 37);
  const VarDecl &p1 = f.params[1].decl;
  EXPECT_EQ(p1.type, Type::B8);
  EXPECT_EQ(p1.align, 8u);
  EXPECT_EQ(p1.dims, std::vector<uint64_t>{16});
  EXPECT_FALSE(p1.ptrAttr);
  const VarDecl &p2 = f.params[2].decl;
  EXPECT_TRUE(p2.ptrAttr);
  EXPECT_EQ(p2.ptrSpace, Space::None);
  EXPECT_EQ(p2.ptrAlign, 1u);
  EXPECT_EQ(f.params[3].decl.type, Type::U32);
}

TEST(PtxParser, FuncReturnsAndRegisterParams) {
  Module m = parseOk(std::string(kHeader) +
                     ".func (.param .b32 func_retval0) _Z3addii(\n"
                     "\t.param .b32 _Z3addii_param_0,\n"
                     "\t.param .b32 _Z3addii_param_1\n"
                     ")\n{\n"
                     "\t.reg .b32 \t%r<4>;\n"
                     "\tld.param.b32 \t%r1, [_Z3addii_param_0];\n"
                     "\tst.param.b32 \t[func_retval0+0], %r3;\n"
                     "\tret;\n}\n"
                     ".visible .func (.param .align 16 .b8 rv[16]) g(.reg .b32 x, .reg .pred p)\n"
                     "{\n ret;\n}\n"
                     ".func h\n{\n ret;\n}\n");
  ASSERT_EQ(m.functions.size(), 3u);
  const Function &f = m.functions[0];
  EXPECT_FALSE(f.isEntry);
  EXPECT_EQ(f.linkage, Linkage::None);
  EXPECT_EQ(f.name, "_Z3addii");
  ASSERT_EQ(f.returns.size(), 1u);
  EXPECT_EQ(f.returns[0].decl.name, "func_retval0");
  EXPECT_EQ(f.returns[0].decl.type, Type::B32);
  EXPECT_EQ(f.returns[0].decl.space, Space::Param);
  ASSERT_EQ(f.params.size(), 2u);
  EXPECT_EQ(f.params[1].decl.name, "_Z3addii_param_1");
  std::vector<Instruction> v = insts(f);
  ASSERT_EQ(v.size(), 3u);
  expectAddr(v[1].operands[0], "func_retval0", false, 0);
  expectLoc(f.loc, 4, 1);

  const Function &g = m.functions[1];
  EXPECT_EQ(g.linkage, Linkage::Visible);
  ASSERT_EQ(g.returns.size(), 1u);
  EXPECT_EQ(g.returns[0].decl.align, 16u);
  EXPECT_EQ(g.returns[0].decl.dims, std::vector<uint64_t>{16});
  ASSERT_EQ(g.params.size(), 2u);
  EXPECT_EQ(g.params[0].decl.space, Space::Reg);
  EXPECT_EQ(g.params[1].decl.type, Type::Pred);

  EXPECT_EQ(m.functions[2].name, "h");
  EXPECT_TRUE(m.functions[2].params.empty());
  EXPECT_TRUE(m.functions[2].hasBody);
}

TEST(PtxParser, Prototypes) {
  Module m = parseOk(std::string(kHeader) +
                     ".extern .func (.param .b32 func_retval0) vprintf\n"
                     "(\n\t.param .b64 vprintf_param_0,\n\t.param .b64 vprintf_param_1\n);\n"
                     ".weak .func w(.param .b32 _);\n"
                     ".visible .entry e();\n");
  ASSERT_EQ(m.functions.size(), 3u);
  const Function &vp = m.functions[0];
  EXPECT_EQ(vp.name, "vprintf");
  EXPECT_EQ(vp.linkage, Linkage::Extern);
  EXPECT_FALSE(vp.hasBody);
  EXPECT_TRUE(vp.body.empty());
  ASSERT_EQ(vp.returns.size(), 1u);
  ASSERT_EQ(vp.params.size(), 2u);
  EXPECT_EQ(vp.params[0].decl.type, Type::B64);
  EXPECT_EQ(m.functions[1].linkage, Linkage::Weak);
  ASSERT_EQ(m.functions[1].params.size(), 1u);
  EXPECT_EQ(m.functions[1].params[0].decl.name, "_");
  EXPECT_TRUE(m.functions[2].isEntry);
  EXPECT_FALSE(m.functions[2].hasBody);
}

TEST(PtxParser, PerformanceDirectives) {
  Module m =
      parseOk(std::string(kHeader) +
              ".visible .entry a() .maxntid 256, 1, 1 .minnctapersm 2 .maxnreg 32\n{\n ret;\n}\n"
              ".entry b()\n.reqntid 32, 4\n.pragma \"nounroll\";\n{\n ret;\n}\n"
              ".entry c() .maxntid 128 .reqnctapercluster 2, 1, 1 .maxclusterrank 8 "
              ".explicitcluster .blocksareclusters\n{\n ret;\n}\n"
              ".func (.param .b32 r) d() .noreturn;\n"
              ".func e() .noreturn { trap; }\n");
  ASSERT_EQ(m.functions.size(), 5u);
  const Function &a = m.functions[0];
  EXPECT_EQ(a.maxntid[0], 256u);
  EXPECT_EQ(a.maxntid[1], 1u);
  EXPECT_EQ(a.maxntid[2], 1u);
  EXPECT_EQ(a.minnctapersm, 2u);
  EXPECT_EQ(a.maxnreg, 32u);
  EXPECT_EQ(a.reqntid[0], 0u);
  const Function &b = m.functions[1];
  EXPECT_EQ(b.reqntid[0], 32u);
  EXPECT_EQ(b.reqntid[1], 4u);
  EXPECT_EQ(b.reqntid[2], 1u);
  EXPECT_EQ(b.maxntid[0], 0u);
  EXPECT_EQ(b.pragmas, std::vector<std::string>{"nounroll"});
  EXPECT_TRUE(b.hasBody);
  const Function &c = m.functions[2];
  EXPECT_EQ(c.maxntid[0], 128u);
  EXPECT_EQ(c.maxntid[1], 1u);
  EXPECT_EQ(c.maxntid[2], 1u);
  EXPECT_EQ(c.reqnctapercluster[0], 2u);
  EXPECT_EQ(c.maxclusterrank, 8u);
  EXPECT_TRUE(c.explicitcluster);
  EXPECT_TRUE(c.blocksareclusters);
  EXPECT_TRUE(m.functions[3].noreturn);
  EXPECT_FALSE(m.functions[3].hasBody);
  EXPECT_TRUE(m.functions[4].noreturn);
  EXPECT_TRUE(m.functions[4].hasBody);
  EXPECT_FALSE(a.noreturn);
}

// ---- Function bodies ---------------------------------------------------------------------------

TEST(PtxParser, BodyDeclarations) {
  Function f = parseBody(".reg .b32 %r<6>;\n"
                         ".reg .pred %p, %q;\n"
                         ".local .align 8 .b8 __local_depot0[32];\n"
                         ".shared .align 4 .f32 tile[16][17];\n"
                         ".param .b64 param0;\n"
                         ".reg .b64 %SP, %SPL;\n"
                         ".reg .v4 .f32 %v;\n"
                         ".reg .b32 r;");
  std::vector<VarDecl> d = all<VarDecl>(f);
  ASSERT_EQ(d.size(), 10u);
  EXPECT_EQ(d[0].space, Space::Reg);
  EXPECT_EQ(d[0].name, "%r");
  EXPECT_EQ(d[0].rangeCount, 6);
  expectLoc(d[0].loc, 6, 11);
  EXPECT_EQ(d[1].name, "%p");
  EXPECT_EQ(d[1].type, Type::Pred);
  EXPECT_EQ(d[1].rangeCount, -1);
  expectLoc(d[1].loc, 7, 12);
  EXPECT_EQ(d[2].name, "%q");
  EXPECT_EQ(d[2].type, Type::Pred);
  expectLoc(d[2].loc, 7, 16);
  EXPECT_EQ(d[3].space, Space::Local);
  EXPECT_EQ(d[3].name, "__local_depot0");
  EXPECT_EQ(d[3].align, 8u);
  EXPECT_EQ(d[3].dims, std::vector<uint64_t>{32});
  EXPECT_EQ(d[4].space, Space::Shared);
  EXPECT_EQ(d[4].type, Type::F32);
  EXPECT_EQ(d[4].dims, (std::vector<uint64_t>{16, 17}));
  EXPECT_EQ(d[5].space, Space::Param);
  EXPECT_EQ(d[5].name, "param0");
  EXPECT_EQ(d[6].name, "%SP");
  EXPECT_EQ(d[7].name, "%SPL");
  EXPECT_EQ(d[8].vecWidth, 4u);
  EXPECT_EQ(d[9].name, "r");
}

TEST(PtxParser, LabelsAndGuards) {
  Function f = parseBody("$L__BB0_1:\n"
                         "@%p1 bra $L__BB0_2;\n"
                         "  @!%p bra.uni L;\n"
                         "L: $L__BB0_2: ret;\n"
                         "@p exit;");
  ASSERT_EQ(f.body.size(), 7u);
  const Label *l0 = std::get_if<Label>(&f.body[0]);
  ASSERT_NE(l0, nullptr);
  EXPECT_EQ(l0->name, "$L__BB0_1");
  expectLoc(l0->loc, 6, 1);
  std::vector<Instruction> v = insts(f);
  ASSERT_EQ(v.size(), 4u);
  ASSERT_TRUE(v[0].guard.has_value());
  EXPECT_EQ(v[0].guard->reg, "%p1");
  EXPECT_FALSE(v[0].guard->negate);
  expectLoc(v[0].loc, 7, 1);
  ASSERT_TRUE(v[1].guard.has_value());
  EXPECT_EQ(v[1].guard->reg, "%p");
  EXPECT_TRUE(v[1].guard->negate);
  EXPECT_EQ(v[1].opcode, "bra");
  EXPECT_EQ(v[1].mods, Mods{"uni"});
  expectSymbol(v[1].operands[0], "L");
  expectLoc(v[1].loc, 8, 3);
  expectLoc(v[1].operands[0].loc, 8, 16);
  std::vector<Label> labels = all<Label>(f);
  ASSERT_EQ(labels.size(), 3u);
  EXPECT_EQ(labels[1].name, "L");
  EXPECT_EQ(labels[2].name, "$L__BB0_2");
  expectLoc(labels[2].loc, 9, 4);
  EXPECT_EQ(v[2].opcode, "ret");
  expectLoc(v[2].loc, 9, 15);
  EXPECT_EQ(v[3].guard->reg, "p");
  EXPECT_EQ(v[3].opcode, "exit");
}

TEST(PtxParser, OpcodeSplitting) {
  Instruction a = parseInst("ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1+16];");
  EXPECT_EQ(a.opcode, "ld");
  EXPECT_EQ(a.mods, (Mods{"global", "nc", "v4"}));
  EXPECT_EQ(a.types, Types{Type::F32});

  Instruction b = parseInst("cvt.rn.f32.s32 %f1, %r1;");
  EXPECT_EQ(b.opcode, "cvt");
  EXPECT_EQ(b.mods, Mods{"rn"});
  EXPECT_EQ(b.types, (Types{Type::F32, Type::S32}));

  Instruction c = parseInst("setp.lt.and.s32 %p1, %r1, %r2, %p2;");
  EXPECT_EQ(c.mods, (Mods{"lt", "and"}));
  EXPECT_EQ(c.types, Types{Type::S32});

  Instruction d = parseInst("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%r1,%r2,%r3,%r4}, "
                            "[%rd1];");
  EXPECT_EQ(d.mods, (Mods{"global", "nc", "L1::no_allocate", "L2::256B", "v4"}));
  EXPECT_EQ(d.types, Types{Type::U32});

  Instruction e = parseInst("cvt.rn.bf16x2.f32 %r1, %f1, %f2;");
  EXPECT_EQ(e.types, (Types{Type::BF16x2, Type::F32}));

  Instruction f = parseInst("tex.1d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [%rd1, {%r1}];");
  EXPECT_EQ(f.mods, (Mods{"1d", "v4"}));
  EXPECT_EQ(f.types, (Types{Type::F32, Type::S32}));

  Instruction g = parseInst("and.pred %p3, %p1, !%p2;");
  EXPECT_EQ(g.types, Types{Type::Pred});

  Instruction h = parseInst("some.unknown.op.x4.e4m3 %r1, 1;");
  EXPECT_EQ(h.opcode, "some");
  EXPECT_EQ(h.mods, (Mods{"unknown", "op", "x4", "e4m3"}));
  EXPECT_TRUE(h.types.empty());

  Instruction i = parseInst("ret;");
  EXPECT_EQ(i.opcode, "ret");
  EXPECT_TRUE(i.mods.empty());
  EXPECT_TRUE(i.types.empty());
  EXPECT_TRUE(i.operands.empty());
}

TEST(PtxParser, RegisterOperands) {
  Instruction a = parseInst("setp.ne.and.s32 %p|%q, %r1, 0, %p2;");
  ASSERT_EQ(a.operands.size(), 4u);
  EXPECT_EQ(a.operands[0].kind, Kind::Reg);
  EXPECT_EQ(a.operands[0].name, "%p");
  EXPECT_EQ(a.operands[0].name2, "%q");
  expectLoc(a.operands[0].loc, 6, 17);
  expectImm(a.operands[2], 0);
  expectReg(a.operands[3], "%p2");

  Instruction b = parseInst("selp.b32 %r1, 1, 0, !%p1;");
  ASSERT_EQ(b.operands.size(), 4u);
  EXPECT_EQ(b.operands[3].kind, Kind::Reg);
  EXPECT_EQ(b.operands[3].name, "%p1");
  EXPECT_TRUE(b.operands[3].negate);
  EXPECT_FALSE(b.operands[3].minus);
  expectLoc(b.operands[3].loc, 6, 21);

  Instruction c = parseInst("mov.u32 %r3, %ntid.x;");
  expectReg(c.operands[1], "%ntid", 0);
  EXPECT_EQ(parseInst("mov.u32 %r3, %tid.y;").operands[1].component, 1);
  EXPECT_EQ(parseInst("mov.u32 %r3, %nctaid.z;").operands[1].component, 2);
  EXPECT_EQ(parseInst("mov.f32 %f1, %v.w;").operands[1].component, 3);
  expectReg(parseInst("mov.u32 %r1, %laneid;").operands[1], "%laneid");
  expectReg(parseInst("mov.u64 %rd1, %clock64;").operands[1], "%clock64");

  Instruction d = parseInst("neg.f32 %f1, -%f2;");
  EXPECT_EQ(d.operands[1].kind, Kind::Reg);
  EXPECT_EQ(d.operands[1].name, "%f2");
  EXPECT_TRUE(d.operands[1].minus);
  EXPECT_FALSE(d.operands[1].negate);

  Instruction e = parseInst("shfl.sync.bfly.b32 %r5|%p1, %r4, %r3, %r2, %r1;");
  EXPECT_EQ(e.operands[0].name, "%r5");
  EXPECT_EQ(e.operands[0].name2, "%p1");
}

TEST(PtxParser, ImmediateOperands) {
  Instruction a = parseInst("mov.b32 %r1, -1;");
  expectImm(a.operands[1], -1);
  expectLoc(a.operands[1].loc, 6, 14);
  expectImm(parseInst("mov.b32 %r1, 0x7fffffff;").operands[1], 0x7fffffff);
  expectImm(parseInst("mov.b32 %r1, 0xFFFFFFFFU;").operands[1], 0xFFFFFFFFll);
  expectImm(parseInst("mov.b32 %r1, 017;").operands[1], 15);
  expectImm(parseInst("mov.b32 %r1, 0b1011;").operands[1], 11);
  expectImm(parseInst("mov.b32 %r1, 0;").operands[1], 0);
  expectImm(parseInst("mov.b32 %r1, 42U;").operands[1], 42);
  expectImm(parseInst("mov.b64 %rd1, 0xFFFFFFFFFFFFFFFF;").operands[1], -1);
  expectImm(parseInst("mov.b64 %rd1, 18446744073709551615;").operands[1], -1);
  expectImm(parseInst("mov.b64 %rd1, -9223372036854775808;").operands[1], INT64_MIN);

  Operand f = parseInst("mov.f32 %f1, 0f3F800000;").operands[1];
  EXPECT_EQ(f.kind, Kind::FImm);
  EXPECT_EQ(f.fwidth, 32);
  EXPECT_EQ(f.fbits, 0x3F800000u);
  EXPECT_EQ(f.fval, 1.0);

  Operand nf = parseInst("mov.f32 %f1, -0f3F800000;").operands[1];
  EXPECT_EQ(nf.kind, Kind::FImm);
  EXPECT_EQ(nf.fbits, 0xBF800000u);
  EXPECT_EQ(nf.fval, -1.0);

  Operand inf = parseInst("mov.f32 %f1, 0f7F800000;").operands[1];
  EXPECT_TRUE(std::isinf(inf.fval));

  Operand dd = parseInst("mov.f64 %fd1, 0d3FF8000000000000;").operands[1];
  EXPECT_EQ(dd.kind, Kind::FImm);
  EXPECT_EQ(dd.fwidth, 64);
  EXPECT_EQ(dd.fbits, 0x3FF8000000000000u);
  EXPECT_EQ(dd.fval, 1.5);

  Operand dec = parseInst("mov.f32 %f1, 1.5;").operands[1];
  EXPECT_EQ(dec.kind, Kind::FImm);
  EXPECT_EQ(dec.fwidth, 0);
  EXPECT_EQ(dec.fval, 1.5);
  EXPECT_DOUBLE_EQ(parseInst("mov.f32 %f1, 1e-3;").operands[1].fval, 1e-3);
  EXPECT_DOUBLE_EQ(parseInst("mov.f32 %f1, 2.5E+2;").operands[1].fval, 250.0);
  EXPECT_DOUBLE_EQ(parseInst("mov.f32 %f1, -0.25;").operands[1].fval, -0.25);
}

TEST(PtxParser, AddressOperands) {
  Instruction a = parseInst("ld.shared.f32 %f, [sdata+4];");
  expectAddr(a.operands[1], "sdata", false, 4);
  expectLoc(a.operands[1].loc, 6, 19);
  Instruction b = parseInst("st.shared.f32 [%r6], %f12;");
  expectAddr(b.operands[0], "%r6", true, 0);
  expectReg(b.operands[1], "%f12");
  expectAddr(parseInst("ld.global.u32 %r1, [%rd1+-8];").operands[1], "%rd1", true, -8);
  expectAddr(parseInst("ld.global.u32 %r1, [%rd1-8];").operands[1], "%rd1", true, -8);
  expectAddr(parseInst("ld.global.u32 %r1, [%rd1+0x10];").operands[1], "%rd1", true, 16);
  expectAddr(parseInst("ld.global.u32 %r1, [256];").operands[1], "", false, 256);
  expectAddr(parseInst("st.param.b32 [func_retval0+0], %r1;").operands[0], "func_retval0", false,
             0);

  Instruction t = parseInst("tex.2d.v4.f32.f32 {%f1,%f2,%f3,%f4}, [tex, {%f5,%f6}];");
  ASSERT_EQ(t.operands.size(), 2u);
  const Operand &addr = t.operands[1];
  expectAddr(addr, "tex", false, 0);
  ASSERT_EQ(addr.elems.size(), 1u);
  EXPECT_EQ(addr.elems[0].kind, Kind::Vector);
  ASSERT_EQ(addr.elems[0].elems.size(), 2u);
  expectReg(addr.elems[0].elems[0], "%f5");
  expectReg(addr.elems[0].elems[1], "%f6");

  Instruction t2 = parseInst("tex.2d.v4.s32.f32 {%r1,%r2,%r3,%r4}, [%rd4, {%f1, %f2}];");
  expectAddr(t2.operands[1], "%rd4", true, 0);
  ASSERT_EQ(t2.operands[1].elems.size(), 1u);

  Instruction t3 = parseInst("tex.1d.v4.f32.s32 {%f1,%f2,%f3,%f4}, [tex, smp, {%r1}];");
  ASSERT_EQ(t3.operands[1].elems.size(), 2u);
  expectSymbol(t3.operands[1].elems[0], "smp");
  EXPECT_EQ(t3.operands[1].elems[1].kind, Kind::Vector);

  Instruction cp =
      parseInst("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::"
                "bytes [%r1], [%rd1, {%r2, %r3}], [%r4];");
  ASSERT_EQ(cp.operands.size(), 3u);
  EXPECT_EQ(cp.operands[1].elems.size(), 1u);
  EXPECT_EQ(cp.mods.back(), "mbarrier::complete_tx::bytes");
}

TEST(PtxParser, VectorOperands) {
  Instruction a = parseInst("ld.global.nc.v4.f32 {%f1,%f2,%f3,%f4}, [%rd1+16];");
  ASSERT_EQ(a.operands.size(), 2u);
  const Operand &v = a.operands[0];
  EXPECT_EQ(v.kind, Kind::Vector);
  expectLoc(v.loc, 6, 21);
  ASSERT_EQ(v.elems.size(), 4u);
  expectReg(v.elems[0], "%f1");
  expectReg(v.elems[3], "%f4");
  expectLoc(v.elems[1].loc, 6, 26);
  expectAddr(a.operands[1], "%rd1", true, 16);

  Instruction b = parseInst("mov.b32 {%rs1, _}, %r1;");
  ASSERT_EQ(b.operands[0].elems.size(), 2u);
  EXPECT_EQ(b.operands[0].elems[1].kind, Kind::Sink);
  Instruction c = parseInst("mov.b64 %rd1, {%r1, %r2};");
  EXPECT_EQ(c.operands[1].kind, Kind::Vector);
  Instruction d = parseInst("st.global.v2.u32 [%rd1], {%r1, 0};");
  expectImm(d.operands[1].elems[1], 0);
}

TEST(PtxParser, MmaAndWmma) {
  Instruction a = parseInst("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                            "{%f1,%f2,%f3,%f4}, {%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};");
  EXPECT_EQ(a.opcode, "mma");
  EXPECT_EQ(a.mods, (Mods{"sync", "aligned", "m16n8k16", "row", "col"}));
  EXPECT_EQ(a.types, (Types{Type::F32, Type::F16, Type::F16, Type::F32}));
  ASSERT_EQ(a.operands.size(), 4u);
  EXPECT_EQ(a.operands[0].elems.size(), 4u);
  EXPECT_EQ(a.operands[2].elems.size(), 2u);

  Instruction w = parseInst("wmma.load.a.sync.aligned.row.m16n16k16.global.f16 "
                            "{%r1,%r2,%r3,%r4,%r5,%r6,%r7,%r8}, [%rd1], %r9;");
  EXPECT_EQ(w.opcode, "wmma");
  EXPECT_EQ(w.mods, (Mods{"load", "a", "sync", "aligned", "row", "m16n16k16", "global"}));
  EXPECT_EQ(w.types, Types{Type::F16});
  ASSERT_EQ(w.operands.size(), 3u);
  EXPECT_EQ(w.operands[0].elems.size(), 8u);
  expectReg(w.operands[2], "%r9");

  Instruction l =
      parseInst("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1, %r2, %r3, %r4}, [%r5];");
  EXPECT_EQ(l.mods, (Mods{"sync", "aligned", "m8n8", "x4", "shared"}));
  EXPECT_EQ(l.types, Types{Type::B16});
}

TEST(PtxParser, CallsAndPrototypes) {
  Function f =
      parseBody("\t{ // callseq 0, 0\n"
                "\t.param .b64 param0;\n"
                "\tst.param.b64 \t[param0], %rd1;\n"
                "\t.param .b32 retval0;\n"
                "\tcall.uni (retval0), \n\tvprintf, \n\t(\n\tparam0, \n\tparam1\n\t);\n"
                "\tld.param.b32 \t%r1, [retval0];\n"
                "\t} // callseq 0\n"
                "prototype_0 : .callprototype (.param .b32 _) _ (.param .b64 _);\n"
                "call (%r1), %rd5, (%rd2), prototype_0;\n"
                "call.uni _Z3foov, ();\n"
                "proto_1 : .callprototype ()_ (.param .b64 _, .param .align 16 .b8 _[16]);");
  ASSERT_FALSE(f.body.empty());
  EXPECT_TRUE(std::holds_alternative<ScopeBegin>(f.body[0]));
  expectLoc(std::get<ScopeBegin>(f.body[0]).loc, 6, 2);
  std::vector<Instruction> v = insts(f);
  ASSERT_EQ(v.size(), 5u);

  const Instruction &c = v[1];
  EXPECT_EQ(c.opcode, "call");
  EXPECT_EQ(c.mods, Mods{"uni"});
  expectLoc(c.loc, 10, 2);
  ASSERT_EQ(c.operands.size(), 3u);
  EXPECT_EQ(c.operands[0].kind, Kind::List);
  ASSERT_EQ(c.operands[0].elems.size(), 1u);
  expectSymbol(c.operands[0].elems[0], "retval0");
  expectSymbol(c.operands[1], "vprintf");
  expectLoc(c.operands[1].loc, 11, 2);
  EXPECT_EQ(c.operands[2].kind, Kind::List);
  ASSERT_EQ(c.operands[2].elems.size(), 2u);
  expectSymbol(c.operands[2].elems[0], "param0");
  expectSymbol(c.operands[2].elems[1], "param1");
  expectLoc(c.operands[2].elems[1].loc, 14, 2);

  const Instruction &ind = v[3];
  ASSERT_EQ(ind.operands.size(), 4u);
  EXPECT_EQ(ind.operands[0].kind, Kind::List);
  expectReg(ind.operands[0].elems[0], "%r1");
  expectReg(ind.operands[1], "%rd5");
  expectReg(ind.operands[2].elems[0], "%rd2");
  expectSymbol(ind.operands[3], "prototype_0");

  const Instruction &empty = v[4];
  ASSERT_EQ(empty.operands.size(), 2u);
  EXPECT_EQ(empty.operands[1].kind, Kind::List);
  EXPECT_TRUE(empty.operands[1].elems.empty());

  std::vector<CallPrototype> protos = all<CallPrototype>(f);
  ASSERT_EQ(protos.size(), 2u);
  EXPECT_EQ(protos[0].label, "prototype_0");
  expectLoc(protos[0].loc, 18, 1);
  ASSERT_EQ(protos[0].returns.size(), 1u);
  EXPECT_EQ(protos[0].returns[0].decl.type, Type::B32);
  EXPECT_EQ(protos[0].returns[0].decl.name, "_");
  ASSERT_EQ(protos[0].params.size(), 1u);
  EXPECT_EQ(protos[0].params[0].decl.type, Type::B64);
  EXPECT_TRUE(protos[1].returns.empty());
  ASSERT_EQ(protos[1].params.size(), 2u);
  EXPECT_EQ(protos[1].params[1].decl.align, 16u);
  EXPECT_EQ(protos[1].params[1].decl.dims, std::vector<uint64_t>{16});
  EXPECT_TRUE(all<Label>(f).empty());
}

TEST(PtxParser, NestedScopes) {
  Function f = parseBody("{\n { .reg .b16 %t; mov.b32 {%t, _}, %r1; }\n}\n{ }");
  ASSERT_EQ(f.body.size(), 8u);
  EXPECT_TRUE(std::holds_alternative<ScopeBegin>(f.body[0]));
  EXPECT_TRUE(std::holds_alternative<ScopeBegin>(f.body[1]));
  expectLoc(std::get<ScopeBegin>(f.body[1]).loc, 7, 2);
  EXPECT_TRUE(std::holds_alternative<VarDecl>(f.body[2]));
  EXPECT_TRUE(std::holds_alternative<Instruction>(f.body[3]));
  EXPECT_TRUE(std::holds_alternative<ScopeEnd>(f.body[4]));
  expectLoc(std::get<ScopeEnd>(f.body[4]).loc, 7, 40);
  EXPECT_TRUE(std::holds_alternative<ScopeEnd>(f.body[5]));
  expectLoc(std::get<ScopeEnd>(f.body[5]).loc, 8, 1);
  EXPECT_TRUE(std::holds_alternative<ScopeBegin>(f.body[6]));
  EXPECT_TRUE(std::holds_alternative<ScopeEnd>(f.body[7]));

  // 200 levels are fine.
  Function deep = parseBody(std::string(200, '{') + "ret;" + std::string(200, '}'));
  EXPECT_EQ(deep.body.size(), 401u);
}

TEST(PtxParser, BodyDirectives) {
  Function f = parseBody("\t.loc\t1 12 5\n"
                         "\tadd.s32 %r1, %r2, %r3;\n"
                         "\t.loc 2 7 1, function_name $L__info_string0, inlined_at 1 55 3\n"
                         "\t.pragma \"nounroll\";\n"
                         "\t.file 3 \"x.cu\"\n"
                         "\tts: .branchtargets L1, L2;\n"
                         "\tret;");
  std::vector<Directive> d = all<Directive>(f);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].name, "loc");
  expectLoc(d[0].loc, 6, 2);
  ASSERT_EQ(d[0].args.size(), 3u);
  expectImm(d[0].args[0], 1);
  expectImm(d[0].args[1], 12);
  expectImm(d[0].args[2], 5);
  EXPECT_TRUE(d[0].text.empty());

  ASSERT_EQ(d[1].args.size(), 9u);
  expectImm(d[1].args[0], 2);
  expectSymbol(d[1].args[3], "function_name");
  expectSymbol(d[1].args[4], "$L__info_string0");
  expectSymbol(d[1].args[5], "inlined_at");
  expectImm(d[1].args[6], 1);
  expectImm(d[1].args[8], 3);

  EXPECT_EQ(d[2].name, "pragma");
  EXPECT_EQ(d[2].text, "nounroll");
  EXPECT_TRUE(d[2].args.empty());

  EXPECT_EQ(d[3].name, "file");
  EXPECT_EQ(d[3].text, "x.cu");

  EXPECT_EQ(d[4].name, "branchtargets");
  EXPECT_EQ(d[4].text, "ts");
  ASSERT_EQ(d[4].args.size(), 2u);
  expectSymbol(d[4].args[0], "L1");
  expectSymbol(d[4].args[1], "L2");

  std::vector<Instruction> v = insts(f);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].opcode, "add");
  EXPECT_EQ(v[1].opcode, "ret");
  // Statement order is preserved.
  EXPECT_TRUE(std::holds_alternative<Directive>(f.body[0]));
  EXPECT_TRUE(std::holds_alternative<Instruction>(f.body[1]));
}

TEST(PtxParser, CommentsAndStrings) {
  Module m = parseOk("/* header\n comment */ .version 9.0 // trailing\n"
                     ".target sm_80 /* inline */ , debug\n"
                     ".address_size 64\n"
                     ".pragma \"a \\\"quoted\\\" \\\\ word\";\n"
                     ".entry k() { /* { not a scope } */ ret; // }\n}\n");
  EXPECT_EQ(m.versionMajor, 9u);
  EXPECT_EQ(m.target, "sm_80");
  EXPECT_EQ(m.targetOptions, std::vector<std::string>{"debug"});
  ASSERT_EQ(m.directives.size(), 1u);
  EXPECT_EQ(m.directives[0].text, "a \"quoted\" \\ word");
  ASSERT_EQ(m.functions.size(), 1u);
  EXPECT_EQ(m.functions[0].body.size(), 1u);
}

TEST(PtxParser, WindowsLineEndingsAndTabs) {
  Module m = parseOk(".version 9.0\r\n.target sm_75\r\n.address_size 64\r\n"
                     ".entry k()\r\n{\r\n\t\tadd.s32\t%r1,\t%r2,\t1;\r\n}\r\n");
  ASSERT_EQ(m.functions.size(), 1u);
  std::vector<Instruction> v = insts(m.functions[0]);
  ASSERT_EQ(v.size(), 1u);
  expectLoc(v[0].loc, 6, 3);
  expectLoc(v[0].operands[2].loc, 6, 21);
}

TEST(PtxParser, PrintfKernelAsNvccEmitsIt) {
  const std::string text = R"(//
// Generated by NVIDIA NVVM Compiler
.version 8.4
.target sm_52
.address_size 64

	// .globl	_Z5helloi
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.global .align 1 .b8 $str[12] = {104, 101, 108, 108, 111, 32, 37, 100, 32, 37, 100, 10};

.visible .entry _Z5helloi(
	.param .u32 _Z5helloi_param_0
)
{
	.local .align 8 .b8 	__local_depot0[8];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<5>;


	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	ld.param.u32 	%r1, [_Z5helloi_param_0];
	add.u64 	%rd1, %SP, 0;
	add.u64 	%rd2, %SPL, 0;
	mov.u32 	%r2, %tid.x;
	st.local.v2.u32 	[%rd2], {%r2, %r1};
	mov.u64 	%rd3, $str;
	cvta.global.u64 	%rd4, %rd3;
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 	[param0], %rd4;
	.param .b64 param1;
	st.param.b64 	[param1], %rd1;
	.param .b32 retval0;
	call.uni (retval0), 
	vprintf, 
	(
	param0, 
	param1
	);
	ld.param.b32 	%r3, [retval0];
	} // callseq 0
	ret;

}
)";
  Module m = parseOk(text);
  EXPECT_EQ(m.versionMajor, 8u);
  EXPECT_EQ(m.versionMinor, 4u);
  ASSERT_EQ(m.functions.size(), 2u);
  EXPECT_FALSE(m.functions[0].hasBody);
  ASSERT_EQ(m.globals.size(), 1u);
  EXPECT_EQ(m.globals[0].init.size(), 12u);
  const Function &k = m.functions[1];
  EXPECT_EQ(k.name, "_Z5helloi");
  EXPECT_EQ(insts(k).size(), 14u);
  EXPECT_EQ(all<VarDecl>(k).size(), 8u);
  EXPECT_EQ(all<ScopeBegin>(k).size(), 1u);
  EXPECT_EQ(all<ScopeEnd>(k).size(), 1u);
  EXPECT_EQ(m.findFunction("vprintf"), &m.functions[0]);
  Instruction st = insts(k)[6];
  EXPECT_EQ(st.opcode, "st");
  EXPECT_EQ(st.mods, (Mods{"local", "v2"}));
  EXPECT_EQ(st.operands[1].kind, Kind::Vector);
}

TEST(PtxParser, ModuleScopeCallPrototype) {
  Module m = parseOk(std::string(kHeader) + "proto : .callprototype (.param .b32 _) _ ();\n");
  ASSERT_EQ(m.prototypes.size(), 1u);
  EXPECT_EQ(m.prototypes[0].label, "proto");
  EXPECT_EQ(m.prototypes[0].returns.size(), 1u);
  EXPECT_TRUE(m.prototypes[0].params.empty());
  expectLoc(m.prototypes[0].loc, 4, 1);
}

TEST(PtxParser, ParseIsDeterministicAndReusable) {
  std::string text = readFile(kernelsPath());
  ParseResult a = parse(text);
  ParseResult b = parse(text);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  ASSERT_EQ(a.module.functions.size(), b.module.functions.size());
  for (size_t i = 0; i < a.module.functions.size(); ++i)
    EXPECT_EQ(a.module.functions[i].body.size(), b.module.functions[i].body.size());
}

TEST(PtxParser, DebugInfoModule) {
  // The shape of `nvcc -G` output: .loc lines, debug labels, a trailing .file and .section blocks.
  const std::string text = R"(.version 8.4
.target sm_52, debug
.address_size 64

.visible .entry _Z3fooPi(
	.param .u64 _Z3fooPi_param_0
)
{
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<3>;
	.loc	1 3 0
$L__func_begin0:
	.loc	1 3 0

	ld.param.u64 	%rd1, [_Z3fooPi_param_0];
$L__tmp0:
	.loc	1 4 5
	mov.u32 	%r1, %tid.x;
	ret;
$L__func_end0:

}
	.file	1 "/tmp/foo.cu"
	.section	.debug_loc
	{
	}
	.section	.debug_info
	{
.b32 195
.b64 $L__func_begin0
.b32 $L__func_end0-$L__func_begin0
$L__info_string0:
.b8 95,90,51,102,111,111
	}
	.section	.debug_macinfo	{	}
)";
  Module m = parseOk(text);
  EXPECT_EQ(m.targetOptions, std::vector<std::string>{"debug"});
  ASSERT_EQ(m.functions.size(), 1u);
  const Function &f = m.functions[0];
  EXPECT_EQ(insts(f).size(), 3u);
  EXPECT_EQ(all<Label>(f).size(), 3u);
  std::vector<Directive> locs = all<Directive>(f);
  ASSERT_EQ(locs.size(), 3u);
  expectLoc(locs[2].loc, 17, 2);
  expectImm(locs[2].args[1], 4);
  ASSERT_EQ(m.directives.size(), 1u);
  EXPECT_EQ(m.directives[0].name, "file");
  EXPECT_EQ(m.directives[0].text, "/tmp/foo.cu");
  EXPECT_TRUE(m.globals.empty());
}
