// Malformed warp-level matrix and mbarrier instructions are CUDA_ERROR_INVALID_PTX at load, with
// their line, where ptxas refuses them too ("Vector of size 4 is expected for argument 0 of
// instruction 'ldmatrix'", "value '0' expected to be a non-zero positive"); well-formed ones load.
#include "run_grid.h"

namespace {

std::string kernel(const std::string &body) {
  return ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n"
         ".reg .b32 %r<9>;\n.reg .f32 %f<9>;\n.reg .b64 %rd<4>;\n" +
         body + "\nret;\n}\n";
}

void expectInvalid(const std::string &body, const std::string &message) {
  std::string log;
  auto p = cucpu::jit::Program::load(kernel(body), log);
  ASSERT_FALSE(p.hasValue()) << body;
  EXPECT_EQ(p.error().code(), 218) << log; // CUDA_ERROR_INVALID_PTX
  EXPECT_NE(log.find(message), std::string::npos) << log;
}

TEST(MatrixValidation, RegisterCountsMustMatchTheShape) {
  expectInvalid("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%r1,%r2,%r3,%r4}, [%r5];",
                "9:1: vector of 1 registers expected");
  expectInvalid("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%r1}, [%r5];",
                "9:1: vector of 4 registers expected");
  expectInvalid("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r5], {%r1};",
                "9:1: vector of 2 registers expected");
  expectInvalid("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, {%r1}, "
                "{%r2,%r3}, {%f5,%f6,%f7,%f8};",
                "9:1: vector of 4 registers expected for A");
  expectInvalid("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%f1,%f2,%f3,%f4}, "
                "{%r1,%r2,%r3}, {%r4}, {%f5,%f6,%f7,%f8};",
                "9:1: vector of 2 registers expected for A");
}

TEST(MatrixValidation, MbarrierCountsArePositive) {
  expectInvalid("mbarrier.arrive.shared.b64 %rd2, [%rd1], 0;", "must be positive");
  expectInvalid("mbarrier.init.shared.b64 [%rd1], 0;", "must be positive");
}

TEST(MatrixValidation, WellFormedFormsLoad) {
  for (const char *body : {"ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r1,%r2}, [%r5];",
                           "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%f1,%f2,%f3,%f4}, "
                           "{%r1,%r2,%r3,%r4}, {%r5,%r6}, {%f5,%f6,%f7,%f8};",
                           "mbarrier.arrive.shared.b64 %rd2, [%rd1], 3;"}) {
    std::string log;
    EXPECT_TRUE(cucpu::jit::Program::load(kernel(body), log).hasValue()) << body << "\n" << log;
  }
}

} // namespace
