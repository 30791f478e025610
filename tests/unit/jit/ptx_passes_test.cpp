// Golden tests of the PTX-to-PTX passes (jit/src/ptx_passes.h): PTX in, the pass, PTX out.
#include "cucpu/ptx/ast.h"
#include "cucpu/ptx/printer.h"
#include "ptx_passes.h"

#include <gtest/gtest.h>

namespace {

// The body of kernel `k` around `body`, after `pass` (given the module and k).
constexpr const char *kFunctions = ".func f(.param .b32 x)\n{\nret;\n}\n"
                                   ".func (.param .b32 r) g(.param .b32 x)\n{\nret;\n}\n"
                                   ".func (.param .b32 r) h(.param .b32 x)\n{\nret;\n}\n"
                                   ".global .u64 table[2] = {g, h};\n";
template <typename Pass> std::string after(const std::string &body, Pass pass) {
  const std::string ptx = std::string(".version 9.0\n.target sm_80\n.address_size 64\n") +
                          kFunctions + ".visible .entry k()\n{\n" + body + "}\n";
  auto r = cucpu::ptx::parse(ptx);
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors[0].format());
  cucpu::ptx::Function &k = r.module.functions.back();
  pass(r.module, k);
  return cucpu::ptx::printBody(k);
}

void splitGuardedSync(const cucpu::ptx::Module &, cucpu::ptx::Function &k) {
  cucpu::jit::passes::splitGuardedSync(k);
}

void expandIndirectCalls(const cucpu::ptx::Module &m, cucpu::ptx::Function &k) {
  cucpu::jit::passes::expandIndirectCalls(m, k, cucpu::jit::passes::addressTakenFunctions(m));
}

TEST(PtxPasses, SplitGuardedSyncBranchesAroundCallsAndSyncPoints) {
  const std::string in = ".reg .pred %p<2>;\n"
                         ".reg .b32 %r<3>;\n"
                         "@%p1 bar.sync 0;\n"
                         "@!%p1 shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;\n"
                         "{\n"
                         ".param .b32 a;\n"
                         "st.param.b32 [a], %r1;\n"
                         "@%p1 call f, (a);\n"
                         "}\n"
                         "@%p1 add.s32 %r1, %r1, 1;\n"
                         "@%p1 bar.warp.sync -1;\n"
                         "ret;\n";
  EXPECT_EQ(after(in, splitGuardedSync), ".reg .pred %p<2>;\n"
                                         ".reg .b32 %r<3>;\n"
                                         "@!%p1 bra $guard.skip0;\n"
                                         "bar.sync 0;\n"
                                         "$guard.skip0:\n"
                                         "@%p1 bra $guard.skip1;\n"
                                         "shfl.sync.bfly.b32 %r1, %r2, 1, 31, -1;\n"
                                         "$guard.skip1:\n"
                                         "{\n"
                                         ".param .b32 a;\n"
                                         "st.param.b32 [a], %r1;\n"
                                         "@!%p1 bra $guard.skip2;\n"
                                         "call f, (a);\n"
                                         "$guard.skip2:\n"
                                         "}\n"
                                         "@%p1 add.s32 %r1, %r1, 1;\n"
                                         "@!%p1 bra $guard.skip3;\n"
                                         "bar.warp.sync -1;\n"
                                         "$guard.skip3:\n"
                                         "ret;\n");
}

TEST(PtxPasses, SplitGuardedSyncLeavesUnguardedCodeAlone) {
  const std::string in = ".reg .b32 %r<3>;\n"
                         "bar.sync 0;\n"
                         "add.s32 %r1, %r2, 7;\n"
                         "ret;\n";
  EXPECT_EQ(after(in, splitGuardedSync), in);
}

// An indirect call through a prototype reaches the address-taken functions of its shape (g
// and h, whose addresses the table holds; not f), a pointer to neither traps.
TEST(PtxPasses, ExpandIndirectCallsComparesThePointerWithEachTarget) {
  const std::string in = ".reg .b64 %rd<2>;\n"
                         ".reg .b32 %r<2>;\n"
                         "ld.global.u64 %rd1, [table];\n"
                         "{\n"
                         ".param .b32 a;\n"
                         ".param .b32 b;\n"
                         "proto : .callprototype (.param .b32 _) _ (.param .b32 _);\n"
                         "call (b), %rd1, (a), proto;\n"
                         "}\n"
                         "ret;\n";
  EXPECT_EQ(after(in, expandIndirectCalls), ".reg .b64 %rd<2>;\n"
                                            ".reg .b32 %r<2>;\n"
                                            "ld.global.u64 %rd1, [table];\n"
                                            "{\n"
                                            ".param .b32 a;\n"
                                            ".param .b32 b;\n"
                                            ".reg .pred %$icall0;\n"
                                            "setp.eq.u64 %$icall0, %rd1, g;\n"
                                            "@%$icall0 bra $icall0_0;\n"
                                            "setp.eq.u64 %$icall0, %rd1, h;\n"
                                            "@%$icall0 bra $icall0_1;\n"
                                            "trap.cucpu.badcall %rd1;\n"
                                            "$icall0_0:\n"
                                            "call (b), g, (a);\n"
                                            "bra $icall0_end;\n"
                                            "$icall0_1:\n"
                                            "call (b), h, (a);\n"
                                            "bra $icall0_end;\n"
                                            "$icall0_end:\n"
                                            "}\n"
                                            "ret;\n");
}

// Vector registers become their components: one per operand naming a component, a vector of
// all of them where the whole register is named; ranges and scopes too.
TEST(PtxPasses, ExpandVectorRegistersNamesTheComponents) {
  const std::string in = ".reg .b64 %rd<2>;\n"
                         ".reg .v2 .f32 %w<2>;\n"
                         ".reg .f32 %f;\n"
                         "ld.global.v2.f32 %w1, [%rd1];\n"
                         "{\n"
                         ".reg .v4 .u32 %v;\n"
                         "ld.global.v4.u32 %v, [%rd1];\n"
                         "add.u32 %v.y, %v.x, %v.w;\n"
                         "}\n"
                         "add.f32 %f, %w1.x, %w0.y;\n"
                         "ret;\n";
  EXPECT_EQ(
      after(in, [](const cucpu::ptx::Module &,
                   cucpu::ptx::Function &k) { cucpu::jit::passes::expandVectorRegisters(k); }),
      ".reg .b64 %rd<2>;\n"
      ".reg .f32 %w0.x;\n"
      ".reg .f32 %w0.y;\n"
      ".reg .f32 %w1.x;\n"
      ".reg .f32 %w1.y;\n"
      ".reg .f32 %f;\n"
      "ld.global.v2.f32 {%w1.x, %w1.y}, [%rd1];\n"
      "{\n"
      ".reg .u32 %v.x;\n"
      ".reg .u32 %v.y;\n"
      ".reg .u32 %v.z;\n"
      ".reg .u32 %v.w;\n"
      "ld.global.v4.u32 {%v.x, %v.y, %v.z, %v.w}, [%rd1];\n"
      "add.u32 %v.y, %v.x, %v.w;\n"
      "}\n"
      "add.f32 %f, %w1.x, %w0.y;\n"
      "ret;\n");
}

void markSpinLoops(const cucpu::ptx::Module &, cucpu::ptx::Function &k) {
  cucpu::jit::passes::markSpinLoops(k);
}

// Loops that go round again on a polled value wait at a yield point on their way round: a
// volatile load deciding the back edge (through a conversion), an atomic deciding an exit branch
// (the back edge unguarded), an acquire load in a loop with its own nanosleep (which goes). A
// nanosleep in no loop goes too.
TEST(PtxPasses, MarkSpinLoopsYieldsWhereLoopsPollMemory) {
  const std::string in = ".reg .pred %p<3>;\n"
                         ".reg .b32 %r<4>;\n"
                         ".reg .b64 %rd<2>;\n"
                         "nanosleep.u32 1180;\n"
                         "$wait:\n"
                         "ld.volatile.shared.u32 %r1, [%rd1];\n"
                         "and.b32 %r2, %r1, 1;\n"
                         "setp.eq.s32 %p1, %r2, 0;\n"
                         "@%p1 bra $wait;\n"
                         "$lock:\n"
                         "atom.global.cas.b32 %r3, [%rd1], 0, 1;\n"
                         "setp.eq.s32 %p2, %r3, 0;\n"
                         "@%p2 bra $locked;\n"
                         "bra.uni $lock;\n"
                         "$locked:\n"
                         "$acquire:\n"
                         "nanosleep.u32 268;\n"
                         "ld.acquire.gpu.global.u32 %r1, [%rd1];\n"
                         "setp.ne.s32 %p1, %r1, 7;\n"
                         "@!%p1 bra $done;\n"
                         "bra.uni $acquire;\n"
                         "$done:\n"
                         "ret;\n";
  EXPECT_EQ(after(in, markSpinLoops), ".reg .pred %p<3>;\n"
                                      ".reg .b32 %r<4>;\n"
                                      ".reg .b64 %rd<2>;\n"
                                      "$wait:\n"
                                      "ld.volatile.shared.u32 %r1, [%rd1];\n"
                                      "and.b32 %r2, %r1, 1;\n"
                                      "setp.eq.s32 %p1, %r2, 0;\n"
                                      "@!%p1 bra $spin.skip0;\n"
                                      "nanosleep.u32 0;\n"
                                      "bra $wait;\n"
                                      "$spin.skip0:\n"
                                      "$lock:\n"
                                      "atom.global.cas.b32 %r3, [%rd1], 0, 1;\n"
                                      "setp.eq.s32 %p2, %r3, 0;\n"
                                      "@%p2 bra $locked;\n"
                                      "nanosleep.u32 0;\n"
                                      "bra.uni $lock;\n"
                                      "$locked:\n"
                                      "$acquire:\n"
                                      "ld.acquire.gpu.global.u32 %r1, [%rd1];\n"
                                      "setp.ne.s32 %p1, %r1, 7;\n"
                                      "@!%p1 bra $done;\n"
                                      "nanosleep.u32 0;\n"
                                      "bra.uni $acquire;\n"
                                      "$done:\n"
                                      "ret;\n");
}

// Not spin loops: a loop summing volatile loads (the count decides, not the values; a branch on a
// value that stays inside the loop), a loop polling with plain loads, one waiting at an mbarrier
// (its own yield point; its nanosleep stays), a forward branch on a volatile value.
TEST(PtxPasses, MarkSpinLoopsLeavesOtherLoopsAlone) {
  const std::string in = ".reg .pred %p<3>;\n"
                         ".reg .b32 %r<5>;\n"
                         ".reg .b64 %rd<3>;\n"
                         "$sum:\n"
                         "ld.volatile.global.u32 %r1, [%rd1];\n"
                         "setp.eq.s32 %p2, %r1, 0;\n"
                         "@%p2 bra $skip;\n"
                         "add.s32 %r2, %r2, %r1;\n"
                         "$skip:\n"
                         "add.s32 %r3, %r3, 1;\n"
                         "setp.lt.s32 %p1, %r3, 10;\n"
                         "@%p1 bra $sum;\n"
                         "$plain:\n"
                         "ld.global.u32 %r1, [%rd1];\n"
                         "setp.eq.s32 %p1, %r1, 0;\n"
                         "@%p1 bra $plain;\n"
                         "$phase:\n"
                         "nanosleep.u32 100;\n"
                         "mbarrier.test_wait.shared.b64 %p1, [%rd1], %rd2;\n"
                         "@!%p1 bra $phase;\n"
                         "ld.volatile.global.u32 %r4, [%rd1];\n"
                         "setp.eq.s32 %p1, %r4, 0;\n"
                         "@%p1 bra $end;\n"
                         "$end:\n"
                         "ret;\n";
  EXPECT_EQ(after(in, markSpinLoops), in);
}

TEST(PtxPrinter, OperandsRoundTrip) {
  const std::string in = ".reg .b64 %rd<3>;\n"
                         ".reg .v4 .f32 %v;\n"
                         ".reg .f32 %f<2>;\n"
                         ".reg .pred %p<2>;\n"
                         "ld.global.v4.f32 {%f1, _, %v.z, %f1}, [%rd1+-16];\n"
                         "fma.rn.f32 %f1, %f1, 0f3F800000, 0fBF000000;\n"
                         "setp.eq.and.s64 %p1|%p0, %rd1, -3, !%p0;\n"
                         "ret;\n";
  EXPECT_EQ(after(in, [](const cucpu::ptx::Module &, cucpu::ptx::Function &) {}), in);
}

} // namespace
