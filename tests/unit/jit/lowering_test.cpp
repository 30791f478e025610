// JIT: PTX kernels lowered to block functions and run block by block, checked against exact
// host references (integer-valued floats, so every sum is exact).
#include "run_grid.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

namespace {

// How many times `what` occurs in `text`.
size_t occurrences(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST(Lowering, KernelLayouts) {
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  const auto *va = prog->findKernel("VecAdd_kernel");
  ASSERT_NE(va, nullptr);
  ASSERT_EQ(va->params.size(), 4u);
  EXPECT_EQ(va->params[3].offset, 24u);
  EXPECT_EQ(va->paramBytes, 28u);
  EXPECT_EQ(va->regions, 1u);
  const auto *mm = prog->findKernel("matrixMul");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->staticSharedBytes, 2048u);
  EXPECT_EQ(mm->regions, 3u);
  EXPECT_GT(mm->scratchBytesPerThread, 0u);
  const auto *rd = prog->findKernel("reduce");
  ASSERT_NE(rd, nullptr);
  EXPECT_EQ(rd->dynamicSharedOffset % 16, 0u);
}

TEST(Lowering, VectorAddWithPartialLastBlock) {
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  const int n = 1000;
  std::vector<float> a(n), b(n), c(n, -1.f);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i);
    b[i] = float(3 * i + 1);
  }
  float *pa = a.data(), *pb = b.data(), *pc = c.data();
  int nn = n;
  uint32_t grid[3] = {(n + 127) / 128, 1, 1}, block[3] = {128, 1, 1};
  runGrid(*prog, "VecAdd_kernel", grid, block, {&pa, &pb, &pc, &nn});
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(c[i], float(4 * i + 1)) << i;
}

// One call of the block function runs several consecutive blocks (cucpu_block::more), stepping
// ctaid through x, then y, then z, from any starting block.
TEST(Lowering, OneCallRunsConsecutiveBlocks) {
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  uint32_t grid[3] = {3, 4, 2}, block[3] = {8, 2, 1};
  const uint32_t blocks = 3 * 4 * 2, threads = 16;
  for (uint32_t perCall : {1u, 5u, 7u, blocks}) {
    std::vector<unsigned> out(blocks * threads, 0xdeadbeef);
    unsigned *po = out.data();
    runGrid(*prog, "blockIds", grid, block, {&po}, 0, perCall);
    for (uint32_t i = 0; i < blocks; ++i) {
      unsigned want = (i % 3) | (i / 3 % 4) << 10 | (i / 12) << 20;
      for (uint32_t t = 0; t < threads; ++t)
        ASSERT_EQ(out[i * threads + t], want) << "per call " << perCall << " block " << i;
    }
  }
}

TEST(Lowering, TiledMatrixMultiplyAcrossBarriers) {
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  const int wA = 48, hA = 32, wB = 64;
  std::vector<float> A(hA * wA), B(wA * wB), C(hA * wB, -1.f);
  for (int i = 0; i < hA * wA; ++i)
    A[i] = float(i % 7 - 3);
  for (int i = 0; i < wA * wB; ++i)
    B[i] = float(i % 5 - 2);
  float *pc = C.data(), *pa = A.data(), *pb = B.data();
  int wa = wA, wb = wB;
  uint32_t grid[3] = {wB / 16, hA / 16, 1}, block[3] = {16, 16, 1};
  runGrid(*prog, "matrixMul", grid, block, {&pc, &pa, &pb, &wa, &wb});
  for (int r = 0; r < hA; ++r)
    for (int col = 0; col < wB; ++col) {
      float s = 0;
      for (int k = 0; k < wA; ++k)
        s += A[r * wA + k] * B[k * wB + col];
      ASSERT_EQ(C[r * wB + col], s) << r << "," << col;
    }
}

TEST(Lowering, TreeReductionWithBarriersInLoop) {
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  for (uint32_t threads : {32u, 64u, 256u}) {
    const unsigned n = 5000;
    std::vector<float> in(n);
    for (unsigned i = 0; i < n; ++i)
      in[i] = float(i % 11);
    uint32_t blocks = (n + threads * 2 - 1) / (threads * 2);
    std::vector<float> out(blocks, -1.f);
    float *pi = in.data(), *po = out.data();
    unsigned nn = n;
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
    runGrid(*prog, "reduce", grid, block, {&pi, &po, &nn}, threads * 4);
    for (uint32_t bk = 0; bk < blocks; ++bk) {
      float s = 0;
      for (unsigned i = bk * threads * 2; i < std::min(n, (bk + 1) * threads * 2); ++i)
        s += in[i];
      ASSERT_EQ(out[bk], s) << "block " << bk << " threads " << threads;
    }
  }
}

TEST(Lowering, BarrierReductionsCountAndOr) {
  auto prog = load(readSource("tests/unit/jit/barrier_kernels.ptx"));
  ASSERT_TRUE(prog);
  const int threads = 128, blocks = 3;
  std::vector<int> in(threads * blocks), out(3 * blocks, -1);
  for (int i = 0; i < threads * blocks; ++i)
    in[i] = (i * 37) % 101 - (i == 200 ? 1000 : 0);
  in[300] = 77;
  int *pi = in.data(), *po = out.data();
  uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
  runGrid(*prog, "barrierReductions", grid, block, {&pi, &po});
  for (int bk = 0; bk < blocks; ++bk) {
    int count = 0, all = 1, any = 0;
    for (int i = bk * threads; i < (bk + 1) * threads; ++i) {
      count += in[i] > 50;
      all &= in[i] >= 0;
      any |= in[i] == 77;
    }
    EXPECT_EQ(out[3 * bk], count) << bk;
    EXPECT_EQ(out[3 * bk + 1], all) << bk;
    EXPECT_EQ(out[3 * bk + 2], any) << bk;
  }
}

// An instruction no PTX ISA defines is invalid PTX (ptxas: "Not a name of any known
// instruction"); a valid form cucpu does not lower is NOT_SUPPORTED, naming the form.
TEST(Lowering, UnknownInstructionIsInvalidAndUnloweredFormIsUnsupported) {
  std::string ptx = ".version 9.0\n.target sm_75\n.address_size 64\n"
                    ".visible .entry k()\n{\n.reg .b32 %r<3>;\n"
                    "frobnicate.b32 %r1, %r2;\nret;\n}\n";
  std::string log;
  auto p = cucpu::jit::Program::load(ptx, log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.error().code(), 218); // CUDA_ERROR_INVALID_PTX
  EXPECT_EQ(log, "ptx: 7:1: unknown instruction 'frobnicate'\n");
  ptx.replace(ptx.find("frobnicate.b32 %r1, %r2"), 23, "fns.b32 %r1, %r2, 1, 1");
  log.clear();
  p = cucpu::jit::Program::load(ptx, log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.error().code(), 801); // CUDA_ERROR_NOT_SUPPORTED
  EXPECT_EQ(log, "ptx: 7:1: instruction 'fns.b32' (form fns.b32) is not supported\n");
}

// 32-bit PTX is refused as NVIDIA's driver refuses it (CUDA_ERROR_INVALID_PTX, on an H100 with
// ptxas's "32-Bit ABI ... is not supported" in the error log), naming the directive's line.
TEST(Lowering, AddressSize32IsInvalidAsOnNvidiasDriver) {
  const std::string ptx = ".version 7.0\n.target sm_75\n.address_size 32\n"
                          ".visible .entry k(.param .u32 p)\n{\n.reg .b32 %r<3>;\n"
                          "ld.param.u32 %r1, [p];\nst.global.u32 [%r1], 1;\nret;\n}\n";
  std::string log;
  auto p = cucpu::jit::Program::load(ptx, log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.error().code(), 218) << log; // CUDA_ERROR_INVALID_PTX
  EXPECT_NE(log.find("3:1: .address_size 32: 32-bit addressing is not supported"),
            std::string::npos)
      << log;
  std::string ok = ptx;
  ok.replace(ok.find("32\n"), 2, "64");
  ok.replace(ok.find(".u32 p"), 6, ".u64 p");
  ok.replace(ok.find(".u32 %r1"), 8, ".u64 %rd");
  ok.replace(ok.find("[%r1]"), 5, "[%rd]");
  ok.replace(ok.find(".reg .b32"), 0, ".reg .b64 %rd;\n");
  EXPECT_TRUE(cucpu::jit::Program::load(ok, log).hasValue()) << ok << log;
}

TEST(Lowering, UnsupportedTextureFormsNameFeatureAndLine) {
  const std::pair<const char *, const char *> cases[] = {
      {"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, {%f1, %f2}], %f3;", "depth comparison"},
      {"tex.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd1, {%r1, %r1, %r1, %r1}];", "multisample"},
      {"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd1, %rd1, {%f1, %f2}];", "separate sampler"},
      {"tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [texref0, {%f1, %f2}];", "texref0"}};
  for (const auto &[insn, what] : cases) {
    std::string ptx = std::string(".version 9.0\n.target sm_75\n.address_size 64\n"
                                  ".visible .entry k()\n{\n.reg .b32 %r<3>;\n.reg .f32 %f<5>;\n"
                                  ".reg .b64 %rd<2>;\n") +
                      insn + "\nret;\n}\n";
    std::string log;
    auto p = cucpu::jit::Program::load(ptx, log);
    ASSERT_FALSE(p.hasValue()) << insn;
    EXPECT_EQ(p.error().code(), 801) << insn << "\n" << log; // CUDA_ERROR_NOT_SUPPORTED
    EXPECT_NE(log.find("9:1:"), std::string::npos) << log;
    EXPECT_NE(log.find(what), std::string::npos) << log;
  }
}

// nvcc spreads an address over the bytes of a .b8 initializer (a struct holding a pointer):
// {0xFF(generic(x)), 0xFF00(generic(x)), ...} is x's generic address at that byte.
TEST(Lowering, ByteMaskedAddressesInInitializers) {
  std::string ptx = ".version 9.0\n.target sm_75\n.address_size 64\n"
                    ".global .align 4 .u32 x[2] = {7, 9};\n"
                    ".global .align 8 .b8 s[24] = {3, 0, 0, 0, 0, 0, 0, 0, "
                    "0xFF(generic(x)+4), 0xFF00(generic(x)+4), 0xFF0000(generic(x)+4), "
                    "0xFF000000(generic(x)+4), 0xFF00000000(generic(x)+4), "
                    "0xFF0000000000(generic(x)+4), 0xFF000000000000(generic(x)+4), "
                    "0xFF00000000000000(generic(x)+4), 5, 0, 0, 0, 0, 0, 0, 0};\n"
                    ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<5>;\n.reg .b32 %r<4>;\n"
                    "ld.param.u64 %rd1, [out];\nld.global.u64 %rd2, [s+8];\n"
                    "ld.u32 %r1, [%rd2];\nld.global.u32 %r2, [s];\nld.global.u32 %r3, [s+16];\n"
                    "st.global.u32 [%rd1], %r1;\nst.global.u32 [%rd1+4], %r2;\n"
                    "st.global.u32 [%rd1+8], %r3;\nret;\n}\n";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  uint32_t out[3] = {0, 0, 0};
  uint32_t *po = out;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  EXPECT_EQ(out[0], 9u); // through the address: x[1]
  EXPECT_EQ(out[1], 3u);
  EXPECT_EQ(out[2], 5u);
  // Half an address (a 32-bit pointer's worth) is reported, not guessed.
  std::string half = ".version 9.0\n.target sm_75\n.address_size 64\n.global .u32 x;\n"
                     ".global .align 1 .b8 s[2] = {0xFF(generic(x)), 0xFF00(generic(x))};\n";
  std::string log;
  auto p = cucpu::jit::Program::load(half, log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_NE(log.find("partial byte-masked address"), std::string::npos) << log;
}

// Guarded synchronisation: `@p bar.sync` with p the same in the whole block, and `@p shfl.sync`
// where only the lanes with p exchange (their mask). Expected values from exact host rules.
TEST(Lowering, GuardedBarrierAndShuffle) {
  std::string ptx = ".version 9.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry k(.param .u64 out, .param .u32 flag)\n{\n"
                    ".reg .pred %p<3>;\n.reg .b32 %r<9>;\n.reg .b64 %rd<4>;\n"
                    ".shared .align 4 .b32 sh[64];\n"
                    "mov.u32 %r1, %tid.x;\nld.param.u32 %r2, [flag];\n"
                    "setp.ne.u32 %p1, %r2, 0;\n"
                    "shl.b32 %r3, %r1, 2;\nmov.u32 %r4, sh;\nadd.u32 %r4, %r4, %r3;\n"
                    "mul.lo.u32 %r5, %r1, 5;\nst.shared.u32 [%r4], %r5;\n"
                    "@%p1 bar.sync 0;\n"
                    "xor.b32 %r6, %r1, 63;\nshl.b32 %r6, %r6, 2;\nmov.u32 %r7, sh;\n"
                    "add.u32 %r7, %r7, %r6;\nld.shared.u32 %r8, [%r7];\n"
                    "and.b32 %r6, %r1, 31;\nsetp.lt.u32 %p2, %r6, 16;\n"
                    "@%p2 shfl.sync.idx.b32 %r8, %r8, 0, 15, 0x0000ffff;\n"
                    "ld.param.u64 %rd1, [out];\nmul.wide.u32 %rd2, %r1, 4;\n"
                    "add.s64 %rd3, %rd1, %rd2;\nst.global.u32 [%rd3], %r8;\nret;\n}\n";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  std::vector<uint32_t> out(64, 0);
  uint32_t *po = out.data();
  uint32_t flag = 1;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  runGrid(*prog, "k", grid, block, {&po, &flag});
  for (uint32_t t = 0; t < 64; ++t) {
    const uint32_t lane = t % 32, warpBase = t - lane;
    // Lanes 0-15 of a warp take lane 0's value (within segments of 16); the others keep theirs.
    const uint32_t src = lane < 16 ? warpBase : t;
    EXPECT_EQ(out[t], (src ^ 63) * 5) << t;
  }
}

// Externs no input defines, answered as NVIDIA's driver does (probed on an H100): a call to an
// unresolved function is CUDA_ERROR_INVALID_PTX; an unresolved variable is defined, zero.
TEST(Lowering, UnresolvedExterns) {
  const std::string head = ".version 8.0\n.target sm_80\n.address_size 64\n";
  std::string log;
  auto p = cucpu::jit::Program::load(
      head + ".extern .func (.param .b32 r) ext(.param .b32 x);\n"
             ".visible .entry k()\n{\n.reg .b32 %r<3>;\nmov.u32 %r1, 5;\n{\n.param .b32 a;\n"
             "st.param.b32 [a], %r1;\n.param .b32 b;\ncall (b), ext, (a);\n"
             "ld.param.b32 %r2, [b];\n}\nret;\n}\n",
      log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.error().code(), 218) << log; // CUDA_ERROR_INVALID_PTX
  EXPECT_NE(log.find("13:1: unresolved extern function 'ext'"), std::string::npos) << log;
  auto prog =
      load(head + ".extern .global .align 4 .u32 gv;\n"
                  ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<3>;\n"
                  ".reg .b64 %rd<2>;\nld.param.u64 %rd1, [out];\nld.global.u32 %r1, [gv];\n"
                  "add.u32 %r1, %r1, 7;\nst.global.u32 [gv], %r1;\nld.global.u32 %r2, [gv];\n"
                  "st.global.u32 [%rd1], %r2;\nret;\n}\n");
  ASSERT_TRUE(prog);
  uint32_t out = 0;
  uint32_t *po = &out;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  EXPECT_EQ(out, 7u);
}

// A kernel's address (`mov.u64 %rd, kernel;`, what a device-side launch names) is a distinct
// non-null value per kernel, in code and in initializers, as a device function's is.
TEST(Lowering, KernelAddressesAreDistinct) {
  auto prog = load(".version 8.0\n.target sm_80\n.address_size 64\n"
                   ".visible .entry other()\n{\nret;\n}\n"
                   ".global .align 8 .u64 table[2] = {other, k};\n"
                   ".visible .entry k(.param .u64 out)\n{\n.reg .b64 %rd<6>;\n"
                   "ld.param.u64 %rd1, [out];\nmov.u64 %rd2, other;\nmov.u64 %rd3, k;\n"
                   "st.global.u64 [%rd1], %rd2;\nst.global.u64 [%rd1+8], %rd3;\n"
                   "ld.global.u64 %rd4, [table];\nld.global.u64 %rd5, [table+8];\n"
                   "st.global.u64 [%rd1+16], %rd4;\nst.global.u64 [%rd1+24], %rd5;\nret;\n}\n");
  ASSERT_TRUE(prog);
  uint64_t out[4] = {};
  uint64_t *po = out;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  EXPECT_NE(out[0], 0u);
  EXPECT_NE(out[1], 0u);
  EXPECT_NE(out[0], out[1]);
  EXPECT_EQ(out[2], out[0]);
  EXPECT_EQ(out[3], out[1]);
}

// Vector registers: `.reg .v4 .f32 %v;` is %v.x..%v.w, read and written by component or whole
// (vector loads and stores).
TEST(Lowering, VectorRegisters) {
  std::string ptx = ".version 9.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry k(.param .u64 in, .param .u64 out)\n{\n"
                    ".reg .v4 .f32 %v;\n.reg .v2 .u32 %w<2>;\n.reg .b64 %rd<3>;\n"
                    "ld.param.u64 %rd1, [in];\nld.param.u64 %rd2, [out];\n"
                    "ld.global.v4.f32 %v, [%rd1];\nadd.f32 %v.y, %v.x, %v.w;\n"
                    "st.global.v4.f32 [%rd2], %v;\nmov.u32 %w1.x, 5;\nmov.u32 %w1.y, %tid.x;\n"
                    "add.u32 %w1.y, %w1.y, %w1.x;\nst.global.v2.u32 [%rd2+16], %w1;\nret;\n}\n";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  alignas(16) float in[4] = {1.5f, 2.0f, 3.0f, 4.25f};
  alignas(16) uint32_t out[6] = {};
  const float *pi = in;
  uint32_t *po = out;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  runGrid(*prog, "k", grid, block, {&pi, &po});
  float got[4];
  std::memcpy(got, out, sizeof got);
  EXPECT_EQ(got[0], 1.5f);
  EXPECT_EQ(got[1], 5.75f); // x + w
  EXPECT_EQ(got[2], 3.0f);
  EXPECT_EQ(got[3], 4.25f);
  EXPECT_EQ(out[4], 5u);
  EXPECT_EQ(out[5], 5u); // tid.x (0) + 5
}

// Register parameters of device functions are passed by value: the callee changing one does
// not change the caller's register.
TEST(Lowering, RegisterParameters) {
  std::string ptx = ".version 9.0\n.target sm_80\n.address_size 64\n"
                    ".func (.reg .b32 r) twice(.reg .b32 a)\n{\nadd.u32 a, a, 1;\n"
                    "shl.b32 r, a, 1;\nret;\n}\n"
                    ".visible .entry k(.param .u64 out)\n{\n.reg .b32 %r<4>;\n.reg .b64 %rd<2>;\n"
                    "ld.param.u64 %rd1, [out];\nmov.u32 %r1, 20;\ncall (%r2), twice, (%r1);\n"
                    "add.u32 %r3, %r2, %r1;\nst.global.u32 [%rd1], %r3;\nret;\n}\n";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  uint32_t out = 0;
  uint32_t *po = &out;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  EXPECT_EQ(out, 62u); // (20 + 1) * 2 + 20
}

TEST(Lowering, MalformedPtxIsInvalidPtx) {
  std::string log;
  auto p = cucpu::jit::Program::load(".version 9.0\n.target sm_75\n.entry k( {", log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.error().code(), 218); // CUDA_ERROR_INVALID_PTX
  EXPECT_NE(log.find("3:"), std::string::npos) << log;
}

} // namespace

// Each block shape a kernel is launched with gets its own compiled form (%ntid constant in it);
// past eight shapes, one unspecialised form serves the rest. Both give exact results.
TEST(Lowering, BlockShapeSpecialisationAndItsFallback) {
  auto prog = load(readSource("tests/unit/jit/kernels.ptx"));
  ASSERT_TRUE(prog);
  const unsigned n = 5000;
  std::vector<float> in(n);
  for (unsigned i = 0; i < n; ++i)
    in[i] = float(i % 17);
  for (unsigned threads : {1024u, 512u, 256u, 128u, 64u, 32u, 16u, 8u, 4u, 2u, 1u, 256u}) {
    const unsigned blocks = (n + 2 * threads - 1) / (2 * threads);
    std::vector<float> out(blocks, -1.f);
    const float *pin = in.data();
    float *pout = out.data();
    unsigned nn = n;
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
    runGrid(*prog, "reduce", grid, block, {&pin, &pout, &nn}, threads * sizeof(float));
    for (unsigned b = 0; b < blocks; ++b) {
      float want = 0;
      for (unsigned i = b * 2 * threads; i < std::min(n, (b + 1) * 2 * threads); ++i)
        want += in[i];
      ASSERT_EQ(out[b], want) << threads << " threads, block " << b;
    }
  }
}

// The block reduction's per-thread loop (an implicit loop barrier) vectorises across threads,
// and saving the resume state and the block-uniform loop counter costs no scatter: the state
// slot is one pointer on every path, and a uniform value goes to its slot in one store.
TEST(Lowering, ReductionLoopVectorisesWithoutScatteredState) {
  uint32_t block[3] = {256, 1, 1};
  auto ir = cucpu::jit::Program::inspect(readSource("bench/cuda/reduce.ptx"), "reduceBlocks",
                                         cucpu::jit::Program::Stage::OptimizedIR, block);
  const char *loopBarriers = std::getenv("CUCPU_LOOP_BARRIERS");
  const char *schedule = std::getenv("CUCPU_SCHEDULE");
  if ((loopBarriers && std::string(loopBarriers) == "0") || (schedule && *schedule))
    GTEST_SKIP() << "about the block scheduler with loop barriers";
  ASSERT_TRUE(ir.hasValue()) << ir.error().message();
  // 16 vector adds are the tree's levels; the summing loop adds 16 elements per iteration, in
  // vectors too when it vectorises.
  EXPECT_GE(occurrences(*ir, "fadd contract <"), 32u) << "the summing loop is scalar";
  for (const char *bad : {"masked.scatter.v8i32", "masked.scatter.v16i32", "masked.scatter.v8i64",
                          "masked.scatter.v16i64"})
    EXPECT_EQ(ir->find(bad), std::string::npos) << bad;
}

// lop3 with a predicate output (PTX 8.2): d = lut(a, b, c), p = (d != 0) or/and q.
TEST(Lowering, Lop3WithPredicateOutput) {
  const std::string ptx = R"(.version 8.2
.target sm_75
.address_size 64
.visible .entry k(.param .u64 in, .param .u64 out)
{
  .reg .pred %q, %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd0, [in];
  ld.param.u64 %rd1, [out];
  mov.u32 %r0, %tid.x;
  mul.wide.u32 %rd2, %r0, 12;
  add.s64 %rd2, %rd0, %rd2;
  ld.global.u32 %r1, [%rd2];
  ld.global.u32 %r2, [%rd2+4];
  ld.global.u32 %r3, [%rd2+8];
  and.b32 %r4, %r0, 1;
  setp.eq.u32 %q, %r4, 1;
  lop3.or.b32 %r5|%p0, %r1, %r2, %r3, 0x80, %q;
  lop3.and.b32 %r6|%p1, %r1, %r2, %r3, 0x96, %q;
  selp.u32 %r7, 1, 0, %p0;
  selp.u32 %r4, 2, 0, %p1;
  or.b32 %r7, %r7, %r4;
  mul.wide.u32 %rd3, %r0, 12;
  add.s64 %rd3, %rd1, %rd3;
  st.global.u32 [%rd3], %r5;
  st.global.u32 [%rd3+4], %r6;
  st.global.u32 [%rd3+8], %r7;
  ret;
}
)";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  const unsigned n = 64;
  std::vector<uint32_t> in(3 * n), out(3 * n, 0xdeadbeef);
  for (unsigned t = 0; t < n; ++t) {
    in[3 * t] = t % 3 ? 0xf0f0f0f0u * t : 0;
    in[3 * t + 1] = t % 5 ? 0xff00ff00u ^ (t << 7) : 0;
    in[3 * t + 2] = t * 0x01010101u;
  }
  uint32_t *pi = in.data(), *po = out.data();
  uint32_t grid[3] = {1, 1, 1}, block[3] = {n, 1, 1};
  runGrid(*prog, "k", grid, block, {&pi, &po});
  for (unsigned t = 0; t < n; ++t) {
    uint32_t a = in[3 * t], b = in[3 * t + 1], c = in[3 * t + 2];
    uint32_t andAll = a & b & c, parity = a ^ b ^ c; // LUTs 0x80 and 0x96
    bool q = t & 1;
    uint32_t flags = ((andAll != 0) || q ? 1u : 0u) | ((parity != 0) && q ? 2u : 0u);
    ASSERT_EQ(out[3 * t], andAll) << t;
    ASSERT_EQ(out[3 * t + 1], parity) << t;
    ASSERT_EQ(out[3 * t + 2], flags) << t;
  }
}

// A register saved in scratch memory between barriers does not alias shared memory: the tile of
// B that SGEMM's inner loop reads through every thread's iteration is loaded once, before the
// thread loop, not reloaded after each thread's store of its sum.
TEST(Lowering, SharedTileLoadsLeaveTheThreadLoop) {
  const char *schedule = std::getenv("CUCPU_SCHEDULE");
  if (schedule && *schedule)
    GTEST_SKIP() << "about the block scheduler's thread loops";
  uint32_t block[3] = {16, 16, 1};
  auto ir = cucpu::jit::Program::inspect(readSource("bench/cuda/sgemm.ptx"), "sgemm",
                                         cucpu::jit::Program::Stage::OptimizedIR, block);
  ASSERT_TRUE(ir.hasValue()) << ir.error().message();
  // The basic block holding the multiply-adds (one per k, 16 lanes of x) and its vector loads.
  size_t fma = ir->find("@llvm.fma.v16f32(");
  ASSERT_NE(fma, std::string::npos);
  size_t begin = ir->rfind("\n\n", fma);
  size_t end = ir->find("\n\n", fma);
  ASSERT_NE(begin, std::string::npos);
  std::string body = ir->substr(begin, end - begin);
  EXPECT_EQ(occurrences(body, "@llvm.fma.v16f32("), 16u) << body;
  EXPECT_LE(occurrences(body, "load <16 x float>"), 1u)
      << "only the running sum is loaded per row:\n"
      << body;
}

// SGEMM's tile pointers (`a += 16`, `b += 16 * n`) step through a loop around two barriers: split
// into a base each region recomputes from the thread index and a block-uniform offset, their
// loads are contiguous vectors, not gathers through pointers saved per thread.
TEST(Lowering, PointersSteppedAroundBarriersStayContiguous) {
  const char *schedule = std::getenv("CUCPU_SCHEDULE");
  if (schedule && *schedule)
    GTEST_SKIP() << "about the block scheduler's thread loops";
  if (const char *e = std::getenv("CUCPU_LOOP_BARRIERS"); e && std::string(e) == "0")
    GTEST_SKIP() << "the split is part of the loop transformations CUCPU_LOOP_BARRIERS=0 turns off";
  uint32_t block[3] = {16, 16, 1};
  auto ir = cucpu::jit::Program::inspect(readSource("bench/cuda/sgemm.ptx"), "sgemm",
                                         cucpu::jit::Program::Stage::OptimizedIR, block);
  ASSERT_TRUE(ir.hasValue()) << ir.error().message();
  EXPECT_EQ(ir->find("@llvm.masked.gather"), std::string::npos) << *ir;
}

// Whole-line stores of a streaming kernel get a non-temporal path (taken when the launch says
// the grid's output exceeds the cache); an in-place update (SAXPY reads the line it writes) and a
// compute-bound loop (Black-Scholes) keep plain stores.
TEST(Lowering, StreamingStoresOnlyWhereTheyPay) {
  const char *schedule = std::getenv("CUCPU_SCHEDULE");
  if (schedule && *schedule)
    GTEST_SKIP() << "about the block scheduler's thread loops";
  uint32_t block[3] = {256, 1, 1};
  auto nontemporal = [&](const char *file, const char *kernel) {
    auto ir = cucpu::jit::Program::inspect(readSource(file), kernel,
                                           cucpu::jit::Program::Stage::OptimizedIR, block);
    EXPECT_TRUE(ir.hasValue()) << ir.error().message();
    return ir.hasValue() && ir->find("!nontemporal") != std::string::npos;
  };
  EXPECT_TRUE(nontemporal("bench/cuda/vector_add.ptx", "vectorAdd"));
  EXPECT_FALSE(nontemporal("bench/cuda/saxpy.ptx", "saxpy"));
  EXPECT_FALSE(nontemporal("bench/cuda/black_scholes.ptx", "blackScholes"));
}

// Non-temporal stores are weakly ordered on x86: a release store that publishes them (st.release
// after a barrier) gets an sfence before it, as does the block function's return.
TEST(Lowering, ReleaseStoresOrderStreamingStores) {
  const char *schedule = std::getenv("CUCPU_SCHEDULE");
  if (schedule && *schedule)
    GTEST_SKIP() << "about the block scheduler's thread loops";
  uint32_t block[3] = {256, 1, 1};
  auto ir = cucpu::jit::Program::inspect(readSource("tests/unit/jit/barrier_kernels.ptx"),
                                         "publishAfterStreaming",
                                         cucpu::jit::Program::Stage::OptimizedIR, block);
  ASSERT_TRUE(ir.hasValue()) << ir.error().message();
  ASSERT_NE(ir->find("!nontemporal"), std::string::npos) << *ir;
  size_t releases = 0;
  for (size_t at = ir->find("store atomic"); at != std::string::npos;
       at = ir->find("store atomic", at + 1)) {
    size_t end = ir->find('\n', at);
    if (ir->substr(at, end - at).find(" release") == std::string::npos)
      continue;
    ++releases;
    size_t lineStart = ir->rfind('\n', at);
    size_t prevStart = ir->rfind('\n', lineStart - 1);
    EXPECT_NE(ir->substr(prevStart, lineStart - prevStart).find("@llvm.x86.sse.sfence"),
              std::string::npos)
        << ir->substr(prevStart, end - prevStart);
  }
  EXPECT_GE(releases, 1u);
}

// ld/st.relaxed/.acquire/.release of a vector up to 16 bytes is one atomic access of the whole
// vector, as on a GPU: CUB's decoupled look-back publishes {status, value} with
// st.relaxed.gpu.v2.u32 and a reader must never see the status without its value.
TEST(Lowering, OrderedVectorAccessIsOneAtomicAccess) {
  const char *ptx = R"(.version 8.0
.target sm_75
.address_size 64
.visible .entry status(.param .u64 p)
{
  .reg .b64 %rd<6>;
  .reg .b32 %r<4>;
  ld.param.u64 %rd1, [p];
  ld.relaxed.gpu.global.v2.u32 {%r1, %r2}, [%rd1];
  add.u32 %r3, %r1, %r2;
  st.release.gpu.global.v2.u32 [%rd1+8], {%r3, %r1};
  ld.acquire.gpu.global.v2.u64 {%rd2, %rd3}, [%rd1+16];
  add.u64 %rd4, %rd2, %rd3;
  st.relaxed.gpu.global.u64 [%rd1+32], %rd4;
  ret;
}
)";
  auto ir = cucpu::jit::Program::inspect(ptx, "status", cucpu::jit::Program::Stage::LoweredIR);
  ASSERT_TRUE(ir.hasValue()) << ir.error().message();
  EXPECT_NE(ir->find("load atomic i64, ptr %"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("store atomic i64 %"), std::string::npos) << *ir;
  EXPECT_NE(ir->find("load atomic i128, ptr %"), std::string::npos) << *ir;
  EXPECT_EQ(ir->find("load atomic i32"), std::string::npos) << *ir;
  EXPECT_EQ(ir->find("store atomic i32"), std::string::npos) << *ir;
}

// Warp mode runs each region's lanes as a loop; LLVM unrolling those loops (and the lane loops
// of the collective steps) multiplied CUB's radix-sort kernels (600 regions) into minutes of
// compile time and made them slower. Every region's lane loop survives optimisation as one loop.
TEST(Lowering, WarpLaneLoopsAreNotUnrolled) {
  uint32_t block[3] = {256, 1, 1};
  std::string src = readSource("tests/unit/jit/warp_kernels.ptx");
  auto prog = load(src);
  ASSERT_TRUE(prog);
  const auto *k = prog->findKernel("blockReduce");
  ASSERT_NE(k, nullptr);
  ASSERT_TRUE(k->warpScheduled);
  auto ir = cucpu::jit::Program::inspect(src, "blockReduce",
                                         cucpu::jit::Program::Stage::OptimizedIR, block);
  ASSERT_TRUE(ir.hasValue()) << ir.error().message();
  EXPECT_EQ(occurrences(*ir, "\nlanes.body"), k->regions) << *ir;
}

// A thread loop with a long chain of divisions, square roots and exponentials (Black-Scholes)
// is interleaved as many 16-lane vectors deep as the block's x extent fills, up to eight, so the
// CPU has independent work while one vector waits: 8 at 256 threads, 4 at 64 (a count beyond
// the trip count made LLVM fall back to 8-lane vectors, not interleaved).
TEST(Lowering, LongLatencyThreadLoopIsInterleaved) {
  const char *schedule = std::getenv("CUCPU_SCHEDULE");
  if (schedule && *schedule)
    GTEST_SKIP() << "about the block scheduler's thread loops";
  for (auto [threads, ways] : {std::pair{256u, 8u}, std::pair{64u, 4u}}) {
    uint32_t block[3] = {threads, 1, 1};
    auto ir =
        cucpu::jit::Program::inspect(readSource("bench/cuda/black_scholes.ptx"), "blackScholes",
                                     cucpu::jit::Program::Stage::OptimizedIR, block);
    ASSERT_TRUE(ir.hasValue()) << ir.error().message();
    EXPECT_GE(occurrences(*ir, "fdiv <16 x float>"), 3u * ways)
        << "three or more divisions per option, " << ways << " ways at " << threads << " threads";
  }
}

// Programmatic dependent launch (CuPy's Thrust sort, cudaGridDependencySynchronize): the grids
// before a kernel in its stream have finished when it starts, so both forms do nothing and the
// kernel runs; another form is not supported.
TEST(Lowering, GridDependencyControlRuns) {
  const std::string ptx = R"(.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{
  .reg .b64 %rd;
  ld.param.u64 %rd, [out];
  griddepcontrol.wait;
  st.global.u32 [%rd], 5;
  griddepcontrol.launch_dependents;
  ret;
}
)";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  int out = 0;
  int *po = &out;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  EXPECT_EQ(out, 5);
  std::string bad = ptx, log;
  bad.replace(bad.find("griddepcontrol.wait"), 19, "griddepcontrol.bogus");
  auto p = cucpu::jit::Program::load(bad, log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.error().code(), 218) << log; // CUDA_ERROR_INVALID_PTX: an unknown modifier
}
