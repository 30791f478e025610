// Device-function calls: .func bodies are inlined at PTX level (so barriers inside them work);
// indirect calls become a choice between the functions they can reach; recursive functions run
// with an explicit stack.
#include "run_grid.h"

#include <gtest/gtest.h>

#include <functional>

namespace {

TEST(Calls, ChainOfCallsWithReturnValues) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog) << "module failed to load";
  const int n = 256;
  std::vector<int> in(n), out(n, -1);
  for (int i = 0; i < n; ++i)
    in[i] = i - 40;
  int *pi = in.data(), *po = out.data();
  uint32_t grid[3] = {2, 1, 1}, block[3] = {128, 1, 1};
  runGrid(*prog, "callChain", grid, block, {&pi, &po});
  for (int i = 0; i < n; ++i) {
    int v = (in[i] * 3 + 7) * 2 - 1;
    ASSERT_EQ(out[i], std::min(500, std::max(0, v))) << i;
  }
}

// Regression: cvta.param turned a parameter's offset into a generic address without adding the
// parameter buffer's base, so the device function read from a wild address.
TEST(Calls, AddressOfAGridConstantParameter) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog);
  int s[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  int n = 6;
  std::vector<int> out(32, -1);
  int *po = out.data();
  uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  runGrid(*prog, "paramAddress", grid, block, {s, &n, &po});
  for (int t = 0; t < 32; ++t)
    ASSERT_EQ(out[t], (3 + 1 + 4 + 1 + 5 + 9) * 100 + t) << t;
}

TEST(Calls, BarriersInsideACalledFunction) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog);
  const int threads = 256, blocks = 3;
  std::vector<float> in(threads * blocks), out(blocks, -1.f);
  for (int i = 0; i < threads * blocks; ++i)
    in[i] = float(i % 9);
  float *pi = in.data(), *po = out.data();
  uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
  runGrid(*prog, "callWithBarrier", grid, block, {&pi, &po});
  for (int bk = 0; bk < blocks; ++bk) {
    float s = 0;
    for (int i = bk * threads; i < (bk + 1) * threads; ++i)
      s += in[i];
    ASSERT_EQ(out[bk], s * 1000.f + threads) << bk;
  }
}

TEST(Calls, LoopedFactorial) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog);
  unsigned long long out = 0;
  unsigned long long *po = &out;
  unsigned n = 15;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  runGrid(*prog, "recursive", grid, block, {&po, &n});
  EXPECT_EQ(out, 1307674368000ull);
}

// A function calling itself twice, reading its parameter and predicates after the calls: each
// call pushes the caller's registers and variables on the thread's stack.
TEST(Calls, RecursionWithTwoCallsPerFrame) {
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 r) f(.param .b32 n)
{
  .reg .pred %small, %odd;
  .reg .b32 %v<6>;
  ld.param.b32 %v0, [n];
  setp.lt.u32 %small, %v0, 2;
  and.b32 %v5, %v0, 1;
  setp.eq.u32 %odd, %v5, 1;
  @%small bra DONE;
  sub.s32 %v1, %v0, 1;
  {
  .param .b32 a;
  st.param.b32 [a], %v1;
  .param .b32 b;
  call (b), f, (a);
  ld.param.b32 %v2, [b];
  }
  sub.s32 %v1, %v0, 2;
  {
  .param .b32 a;
  st.param.b32 [a], %v1;
  .param .b32 b;
  call (b), f, (a);
  ld.param.b32 %v3, [b];
  }
  ld.param.b32 %v4, [n];
  mad.lo.s32 %v0, %v3, 2, %v2;
  add.s32 %v0, %v0, %v4;
  @%odd add.s32 %v0, %v0, 1000;
DONE:
  st.param.b32 [r], %v0;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %t<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd0, [out];
  mov.u32 %t0, %tid.x;
  rem.u32 %t1, %t0, 16;
  {
  .param .b32 a;
  st.param.b32 [a], %t1;
  .param .b32 b;
  call (b), f, (a);
  ld.param.b32 %t2, [b];
  }
  mul.wide.u32 %rd1, %t0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %t2;
  ret;
}
)";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  std::vector<int> out(64, -1);
  int *po = out.data();
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  std::function<int(int)> f = [&](int n) {
    if (n < 2)
      return n;
    return f(n - 1) + 2 * f(n - 2) + n + (n % 2 ? 1000 : 0);
  };
  for (int t = 0; t < 64; ++t)
    ASSERT_EQ(out[t], f(t % 16)) << t;
}

// numba's recursion: each call passes a pointer into its own .local frame where the callee
// stores its result (fib returned 0 for every n when the region's locals were one shared area
// saved and restored around calls: the callee's store through the pointer was lost).
TEST(Calls, RecursionThroughPointersIntoTheCallersLocalFrame) {
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 status) fib(.param .b64 result, .param .b64 n)
{
  .local .align 8 .b8 depot[16];
  .reg .pred %p;
  .reg .b64 %rd<12>;
  .reg .b32 %s;
  ld.param.u64 %rd1, [result];
  ld.param.u64 %rd2, [n];
  mov.u64 %rd3, depot;
  cvta.local.u64 %rd3, %rd3;
  add.u64 %rd4, %rd3, 8;
  setp.lt.s64 %p, %rd2, 2;
  @%p bra SMALL;
  add.s64 %rd5, %rd2, -1;
  {
  .param .b64 a;
  st.param.b64 [a], %rd3;
  .param .b64 b;
  st.param.b64 [b], %rd5;
  .param .b32 s;
  call (s), fib, (a, b);
  ld.param.b32 %s, [s];
  }
  add.s64 %rd6, %rd2, -2;
  {
  .param .b64 a;
  st.param.b64 [a], %rd4;
  .param .b64 b;
  st.param.b64 [b], %rd6;
  .param .b32 s;
  call (s), fib, (a, b);
  ld.param.b32 %s, [s];
  }
  ld.local.u64 %rd7, [depot];
  ld.local.u64 %rd8, [depot+8];
  add.s64 %rd9, %rd7, %rd8;
  st.u64 [%rd1], %rd9;
  bra.uni DONE;
SMALL:
  st.u64 [%rd1], %rd2;
DONE:
  st.param.b32 [status], 0;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .local .align 8 .b8 slot[8];
  .reg .b64 %rd<6>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, %tid.x;
  cvt.u64.u32 %rd2, %r1;
  mov.u64 %rd3, slot;
  cvta.local.u64 %rd3, %rd3;
  {
  .param .b64 a;
  st.param.b64 [a], %rd3;
  .param .b64 b;
  st.param.b64 [b], %rd2;
  .param .b32 s;
  call (s), fib, (a, b);
  ld.param.b32 %r2, [s];
  }
  ld.local.u64 %rd4, [slot];
  mul.wide.u32 %rd5, %r1, 8;
  add.s64 %rd5, %rd1, %rd5;
  st.global.u64 [%rd5], %rd4;
  ret;
}
)";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  std::vector<long long> out(16, -1);
  long long *po = out.data();
  uint32_t grid[3] = {1, 1, 1}, block[3] = {16, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  long long a = 0, b = 1;
  for (int t = 0; t < 16; ++t) {
    ASSERT_EQ(out[t], a) << "fib(" << t << ")";
    long long c = a + b;
    a = b;
    b = c;
  }
}

// Functions that call each other: the outer one is the recursion region, the other is inlined
// into it and its calls back jump to the region's entry.
TEST(Calls, MutualRecursion) {
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 r) ping(.param .b32 n);
.func (.param .b32 r) pong(.param .b32 n)
{
  .reg .b32 %v;
  ld.param.b32 %v, [n];
  {
  .param .b32 a;
  st.param.b32 [a], %v;
  .param .b32 b;
  call (b), ping, (a);
  ld.param.b32 %v, [b];
  }
  add.s32 %v, %v, 10;
  st.param.b32 [r], %v;
  ret;
}
.func (.param .b32 r) ping(.param .b32 n)
{
  .reg .pred %p;
  .reg .b32 %v;
  ld.param.b32 %v, [n];
  setp.eq.s32 %p, %v, 0;
  @%p bra DONE;
  sub.s32 %v, %v, 1;
  {
  .param .b32 a;
  st.param.b32 [a], %v;
  .param .b32 b;
  call (b), pong, (a);
  ld.param.b32 %v, [b];
  }
DONE:
  st.param.b32 [r], %v;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  mov.u32 %r0, %tid.x;
  {
  .param .b32 a;
  st.param.b32 [a], %r0;
  .param .b32 b;
  call (b), ping, (a);
  ld.param.b32 %r1, [b];
  }
  ld.param.u64 %rd0, [out];
  mul.wide.u32 %rd1, %r0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  std::vector<int> out(32, -1);
  int *po = out.data();
  uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  // ping(n) = n == 0 ? 0 : pong(n - 1); pong(n) = ping(n) + 10: ping(n) = 10 * n
  for (int t = 0; t < 32; ++t)
    ASSERT_EQ(out[t], 10 * t) << t;
}

// Function pointers: a table of function addresses and a variable's address as initializers, an
// indirect call through the table with a .calltargets list, and one through a prototype.
TEST(Calls, IndirectCallsThroughTablesAndPrototypes) {
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 r) twice(.param .b32 a)
{
  .reg .b32 %v;
  ld.param.b32 %v, [a];
  add.s32 %v, %v, %v;
  st.param.b32 [r], %v;
  ret;
}
.func (.param .b32 r) square(.param .b32 a)
{
  .reg .b32 %v;
  ld.param.b32 %v, [a];
  mul.lo.s32 %v, %v, %v;
  st.param.b32 [r], %v;
  ret;
}
.func (.param .b32 r) negate(.param .b32 a)
{
  .reg .b32 %v;
  ld.param.b32 %v, [a];
  neg.s32 %v, %v;
  st.param.b32 [r], %v;
  ret;
}
.global .align 8 .u64 table[3] = {twice, square, negate};
.global .align 4 .u32 bias = 1000;
.global .align 8 .u64 biasAddress = bias;
.visible .entry k(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd0, [out];
  mov.u32 %r0, %tid.x;
  rem.u32 %r1, %r0, 3;
  mul.wide.u32 %rd1, %r1, 8;
  mov.u64 %rd2, table;
  add.s64 %rd2, %rd2, %rd1;
  ld.global.u64 %rd3, [%rd2];
  ld.global.u64 %rd4, [biasAddress];
  ld.global.u32 %r2, [%rd4];
  {
  .param .b32 a;
  st.param.b32 [a], %r0;
  .param .b32 r;
  targets: .calltargets twice, square, negate;
  call (r), %rd3, (a), targets;
  ld.param.b32 %r3, [r];
  }
  and.b32 %r4, %r0, 1;
  setp.eq.u32 %p, %r4, 0;
  mov.u64 %rd5, square;
  mov.u64 %rd6, twice;
  selp.b64 %rd5, %rd5, %rd6, %p;
  {
  .param .b32 a;
  st.param.b32 [a], %r3;
  .param .b32 r;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  call (r), %rd5, (a), proto;
  ld.param.b32 %r5, [r];
  }
  add.s32 %r5, %r5, %r2;
  mul.wide.u32 %rd7, %r0, 4;
  add.s64 %rd7, %rd0, %rd7;
  st.global.u32 [%rd7], %r5;
  ret;
}
)";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  std::vector<int> out(64, -1);
  int *po = out.data();
  uint32_t grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  for (int t = 0; t < 64; ++t) {
    int first = t % 3 == 0 ? 2 * t : t % 3 == 1 ? t * t : -t;
    int second = t % 2 == 0 ? first * first : 2 * first;
    ASSERT_EQ(out[t], second + 1000) << t;
  }
}

// An indirect call whose prototype no address-taken function has loads (numba's runtime calls
// destructors this way): a kernel that does not run it works; running it faults (e2e test).
TEST(Calls, IndirectCallWithNoPossibleTargetLoadsAndRunsWhenNotCalled) {
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 r) one(.param .b32 a)
{
  st.param.b32 [r], 1;
  ret;
}
.visible .entry k(.param .u64 f, .param .u64 out)
{
  .reg .b64 %rd<3>;
  .reg .pred %p;
  ld.param.u64 %rd1, [f];
  ld.param.u64 %rd2, [out];
  setp.eq.u64 %p, %rd1, 0;
  @%p bra done;
  {
  .param .b64 a;
  st.param.b64 [a], 0;
  .param .b32 r;
  proto: .callprototype (.param .b32 _) _ (.param .b64 _);
  call (r), %rd1, (a), proto;
  }
done:
  st.global.u32 [%rd2], 7;
  ret;
}
)";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  int out = 0;
  int *po = &out;
  unsigned long long none = 0;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  runGrid(*prog, "k", grid, block, {&none, &po});
  EXPECT_EQ(out, 7);
}

// A guarded call runs only in the threads whose predicate holds, direct or indirect.
TEST(Calls, GuardedDirectAndIndirectCalls) {
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 r) triple(.param .b32 a)
{
  .reg .b32 %v;
  ld.param.b32 %v, [a];
  mul.lo.s32 %v, %v, 3;
  st.param.b32 [r], %v;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .pred %p, %q;
  .reg .b32 %t<4>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd0, [out];
  mov.u32 %t0, %tid.x;
  mov.u32 %t1, 7;
  mov.u32 %t2, 5;
  setp.lt.u32 %p, %t0, 10;
  setp.ge.u32 %q, %t0, 20;
  mov.u64 %rd3, triple;
  {
  .param .b32 a;
  st.param.b32 [a], %t0;
  .param .b32 b;
  @%p call (b), triple, (a);
  @%p ld.param.b32 %t1, [b];
  }
  {
  .param .b32 a;
  st.param.b32 [a], %t0;
  .param .b32 b;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  @!%q call (b), %rd3, (a), proto;
  @!%q ld.param.b32 %t2, [b];
  }
  add.s32 %t3, %t1, %t2;
  mul.wide.u32 %rd1, %t0, 4;
  add.s64 %rd2, %rd0, %rd1;
  st.global.u32 [%rd2], %t3;
  ret;
}
)";
  auto prog = load(ptx);
  ASSERT_TRUE(prog);
  std::vector<int> out(32, -1);
  int *po = out.data();
  uint32_t grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  runGrid(*prog, "k", grid, block, {&po});
  for (int t = 0; t < 32; ++t)
    ASSERT_EQ(out[t], (t < 10 ? 3 * t : 7) + (t >= 20 ? 5 : 3 * t)) << t;
}

} // namespace

namespace {

// A recursive function with __syncthreads on every level: each call is one level of a tree
// reduction over shared memory (block sizes 256, 64 and 2: 7, 5 and 0 calls back).
TEST(Calls, RecursionThroughBlockBarriers) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog) << "module failed to load";
  for (uint32_t threads : {256u, 64u, 2u}) {
    const uint32_t blocks = 3, n = blocks * threads;
    std::vector<int> in(n), out(n, -1);
    for (uint32_t i = 0; i < n; ++i)
      in[i] = int(i * 7919 % 1000) - 300;
    int *pi = in.data(), *po = out.data();
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
    runGrid(*prog, "recursiveSync", grid, block, {&pi, &po}, 0, 2);
    for (uint32_t bk = 0; bk < blocks; ++bk) {
      std::vector<int> v(in.begin() + bk * threads, in.begin() + (bk + 1) * threads);
      int calls = 0;
      for (uint32_t width = threads / 2;; width /= 2, ++calls) {
        std::vector<int> next = v;
        for (uint32_t t = 0; t < width; ++t)
          next[t] = v[t] + v[t + width];
        v = next;
        if (width == 1)
          break;
      }
      for (uint32_t t = 0; t < threads; ++t)
        ASSERT_EQ(out[bk * threads + t], v[t] + calls) << threads << " threads, thread " << t;
    }
  }
}

// A recursive function inside another one's recursion gets a region of its own; one that also
// calls back into the enclosing recursion would re-enter its own region with frames of it live,
// and is reported with the line of the call.
TEST(Calls, InnerRecursionCallingBackIntoTheOuterIsNotSupported) {
  const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64
.func (.param .b32 r) outer(.param .b32 n);
.func (.param .b32 r) inner(.param .b32 n)
{
  .reg .pred %p;
  .reg .b32 %v;
  ld.param.b32 %v, [n];
  setp.lt.s32 %p, %v, 2;
  @%p bra DONE;
  sub.s32 %v, %v, 1;
  {
  .param .b32 a;
  st.param.b32 [a], %v;
  .param .b32 b;
  call (b), inner, (a);
  ld.param.b32 %v, [b];
  }
  {
  .param .b32 a;
  st.param.b32 [a], %v;
  .param .b32 b;
  call (b), outer, (a);
  ld.param.b32 %v, [b];
  }
DONE:
  st.param.b32 [r], %v;
  ret;
}
.func (.param .b32 r) outer(.param .b32 n)
{
  .reg .b32 %v;
  ld.param.b32 %v, [n];
  shr.s32 %v, %v, 1;
  {
  .param .b32 a;
  st.param.b32 [a], %v;
  .param .b32 b;
  call (b), inner, (a);
  ld.param.b32 %v, [b];
  }
  st.param.b32 [r], %v;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<2>;
  mov.u32 %r0, %tid.x;
  {
  .param .b32 a;
  st.param.b32 [a], %r0;
  .param .b32 b;
  call (b), outer, (a);
  ld.param.b32 %r1, [b];
  }
  ret;
}
)";
  std::string log;
  auto p = cucpu::jit::Program::load(ptx, log);
  ASSERT_FALSE(p.hasValue());
  EXPECT_EQ(p.error().code(), 801) << log; // CUDA_ERROR_NOT_SUPPORTED
  EXPECT_NE(log.find("'inner' that also calls back into the recursion of 'outer'"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("40:3:"), std::string::npos) << log;
}

// Regression guard for the scratch alias scope: a .local array (in scratch) written through a
// generic address in a device function must be reread afterwards, not forwarded from before.
TEST(Calls, LocalArrayWrittenThroughAGenericAddress) {
  auto prog = load(readSource("tests/unit/jit/calls_kernels.ptx"));
  ASSERT_TRUE(prog);
  const int n = 128, k = 3;
  std::vector<int> in(n), out(n, -1);
  for (int t = 0; t < n; ++t)
    in[t] = t * 7 - 300;
  int *pi = in.data(), *po = out.data();
  int kk = k;
  uint32_t grid[3] = {1, 1, 1}, block[3] = {n, 1, 1};
  runGrid(*prog, "localThroughGeneric", grid, block, {&pi, &po, &kk});
  for (int t = 0; t < n; ++t) {
    int a[8];
    for (int i = 0; i < 8; ++i)
      a[i] = in[t] * (i + 1);
    a[(t * k) & 7] += in[(t + 1) % n];
    ASSERT_EQ(out[t], a[(t * k) & 7] * 1000 + a[(t * k + 1) & 7]) << t;
  }
}

} // namespace
