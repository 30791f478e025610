// Inlined device functions see their own registers only: a register a .func uses without
// declaring it is refused at load with its line (ptxas refuses it too), where it would otherwise
// alias the calling kernel's register of the same name.
#include "run_grid.h"

namespace {

TEST(InlineScope, UndeclaredRegisterInAFunctionIsInvalidPtx) {
  const std::string ptx = ".version 7.0\n.target sm_80\n.address_size 64\n"
                          ".func (.param .b64 r) f()\n{\n.reg .b64 %rd<2>;\n"
                          "mov.u64 %rd2, 5;\nst.param.b64 [r], %rd2;\nret;\n}\n"
                          ".visible .entry k()\n{\n.reg .b64 %rd<4>;\n"
                          "{\n.param .b64 y;\ncall.uni (y), f, ();\nld.param.b64 %rd3, [y];\n}\n"
                          "ret;\n}\n";
  std::string log;
  auto p = cucpu::jit::Program::load(ptx, log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.error().code(), 218) << log; // CUDA_ERROR_INVALID_PTX
  EXPECT_NE(log.find("7:1: 'mov.u64': operand 1: unknown register '%rd2'"), std::string::npos)
      << log;
  // Declared, the function's %rd2 is its own: the kernel's %rd2 keeps its value.
  const std::string ok = ".version 7.0\n.target sm_80\n.address_size 64\n"
                         ".func (.param .b64 r) f()\n{\n.reg .b64 %rd<3>;\n"
                         "mov.u64 %rd2, 5;\nst.param.b64 [r], %rd2;\nret;\n}\n"
                         ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<4>;\n"
                         "ld.param.u64 %rd2, [out];\n"
                         "{\n.param .b64 y;\ncall.uni (y), f, ();\nld.param.b64 %rd3, [y];\n}\n"
                         "add.u64 %rd3, %rd3, 100;\nst.global.u64 [%rd2], %rd3;\nret;\n}\n";
  auto prog = load(ok);
  ASSERT_TRUE(prog) << ok;
  uint64_t result = 0;
  uint64_t *pr = &result;
  const uint32_t one[3] = {1, 1, 1};
  runGrid(*prog, "k", one, one, {&pr});
  EXPECT_EQ(result, 105u);
}

} // namespace
