// Golden tests of the PTX-to-PTX passes (jit/src/ptx_passes.h): PTX in, the pass, PTX out.
#include "cucpu/ptx/ast.h"
#include "cucpu/ptx/printer.h"
#include "ptx_passes.h"

#include <gtest/gtest.h>

namespace {

// The body of kernel `k` around `body`, after `pass`.
template <typename Pass> std::string after(const std::string &body, Pass pass) {
  const std::string ptx = ".version 9.0\n.target sm_80\n.address_size 64\n"
                          ".func f(.param .b32 x)\n{\nret;\n}\n"
                          ".visible .entry k()\n{\n" +
                          body + "}\n";
  auto r = cucpu::ptx::parse(ptx);
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors[0].format());
  cucpu::ptx::Function &k = r.module.functions.back();
  pass(k);
  return cucpu::ptx::printBody(k);
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
  EXPECT_EQ(after(in, cucpu::jit::passes::splitGuardedSync),
            ".reg .pred %p<2>;\n"
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
  EXPECT_EQ(after(in, cucpu::jit::passes::splitGuardedSync), in);
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
  EXPECT_EQ(after(in, [](cucpu::ptx::Function &) {}), in);
}

} // namespace
