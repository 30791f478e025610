// Scheduling stress tests, second batch: uniform values around varying loops, deep nests, exits,
// unrolled strided loads, shared atomics, many values across barriers, 2D and odd block sizes.
#include "run_grid.h"

#include <algorithm>
#include <functional>
#include <gtest/gtest.h>
#include <random>

namespace {

struct Schedules2 : ::testing::Test {
  void SetUp() override {
    prog = load(readSource("tests/unit/jit/schedule2_kernels.ptx"));
    ASSERT_TRUE(prog);
  }
  // Runs `name` over `blocks` 1D blocks of `n` threads, `perCall` blocks per call.
  void run(const char *name, int blocks, int n, std::vector<void *> args, int perCall = 2) {
    uint32_t grid[3] = {uint32_t(blocks), 1, 1}, block[3] = {uint32_t(n), 1, 1};
    runGrid(*prog, name, grid, block, std::move(args), 0, uint32_t(perCall));
  }
  std::unique_ptr<cucpu::jit::Program> prog;
};

// Pseudo-random words in [0, mod).
std::vector<int> words(size_t count, int mod, uint32_t seed) {
  std::mt19937 gen(seed);
  std::vector<int> v(count);
  for (int &w : v)
    w = int(gen() % uint32_t(mod));
  return v;
}

std::string shape(int blocks, int n, int param, int param2 = 0) {
  return "blocks " + std::to_string(blocks) + " n " + std::to_string(n) + " param " +
         std::to_string(param) + " param2 " + std::to_string(param2);
}

// Every output word against the host's; a failure names the first word that differs.
void expectWords(const std::vector<int> &got, const std::vector<int> &want, const std::string &s) {
  ASSERT_EQ(got.size(), want.size()) << s;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << s << ": first mismatch at word " << i;
}

const int kSizes[] = {64, 33, 50, 100, 7, 256, 1};
// Kernels that index with a stride of 64 words take at most 64 threads.
const int kSmallSizes[] = {64, 33, 50, 7, 32, 1};

TEST_F(Schedules2, UniformAfterAVaryingLoop) {
  const int blocks = 5, seed = 13;
  for (int perCall : {1, 2, 3, 5})
    for (int n : kSizes)
      for (int rounds : {0, 1, 3, 6}) {
        std::vector<int> in = words(size_t(blocks) * n, 1000, 21), out(blocks * n, -1);
        int *pi = in.data(), *po = out.data(), r = rounds, sd = seed;
        run("uniformAfterVaryingLoop", blocks, n, {&pi, &po, &r, &sd}, perCall);
        std::vector<int> want(out.size());
        for (int b = 0; b < blocks; ++b) {
          std::vector<int> s(in.begin() + b * n, in.begin() + (b + 1) * n), next(n);
          int u = b + seed;
          for (int r = 0; r < rounds; ++r) {
            u = (u * 3 + r) & 0xffff;
            const int w = (u ^ seed) + r * 11;
            for (int t = 0; t < n; ++t) {
              int sum = 0;
              for (int k = 0; k < (t + r) % 4; ++k)
                sum += s[(t + k + 1) % n];
              next[t] = (sum + w) & 0xffff;
            }
            s = next;
          }
          for (int t = 0; t < n; ++t)
            want[b * n + t] = s[t] + u;
        }
        expectWords(out, want, shape(blocks, n, rounds, perCall));
      }
}

TEST_F(Schedules2, UniformUpdatedInBothBranches) {
  const int blocks = 3, rounds = 7;
  for (int n : kSizes)
    for (int mode : {0, 1, 2}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 22), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds, m = mode;
      run("uniformBothBranches", blocks, n, {&pi, &po, &r, &m});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(in.begin() + b * n, in.begin() + (b + 1) * n), next(n);
        int u = mode + b;
        for (int r = 0; r < rounds; ++r) {
          const bool first = (r + mode) % 3 == 0;
          if (first)
            u = u * 5 + 1;
          else
            u = (u + r * 7) ^ 3;
          u &= 0xfffff;
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            if (first)
              for (int k = 0; k < t % 3; ++k)
                sum += s[(t + k) % n];
            else
              for (int k = 0; k < (t + r) % 5; ++k)
                sum -= s[(t * 2 + k) % n];
            next[t] = (sum + u) & 0xffff;
          }
          s = next;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = s[t] * 3 + u;
      }
      expectWords(out, want, shape(blocks, n, mode));
    }
}

TEST_F(Schedules2, ThreeDeepVaryingNest) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {0, 1, 2, 5}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 23), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds;
      run("threeDeepVarying", blocks, n, {&pi, &po, &r});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(in.begin() + b * n, in.begin() + (b + 1) * n), next(n);
        for (int r = 0; r < rounds; ++r) {
          for (int t = 0; t < n; ++t) {
            int sum = r;
            for (int i = 0; i < (t + r) % 3 + 1; ++i)
              for (int j = 0; j < (t + i) % 3; ++j)
                for (int k = 0; k < (t * j + i + r) % 4; ++k)
                  sum += s[(t + i * 5 + j * 3 + k) % n] ^ (i + j + k);
            next[t] = sum & 0xffff;
          }
          s = next;
        }
        std::copy(s.begin(), s.end(), want.begin() + b * n);
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules2, TwoVaryingLoopsBeforeABarrier) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {1, 2, 6}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 24), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds;
      run("twoVaryingLoops", blocks, n, {&pi, &po, &r});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(in.begin() + b * n, in.begin() + (b + 1) * n), next(n);
        for (int r = 0; r < rounds; ++r) {
          for (int t = 0; t < n; ++t) {
            int a = 0;
            for (int k = 0; k < (t + r) % 5; ++k)
              a += s[(t + k) % n];
            int bb = a & 7;
            for (int k = 0; k < (a & 3) + (t & 1); ++k)
              bb += s[(t + 3 * k + 1) % n] ^ a;
            next[t] = (a + bb * 3) & 0xffff;
          }
          s = next;
        }
        std::copy(s.begin(), s.end(), want.begin() + b * n);
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules2, VaryingLoopInAUniformLoopInABarrierLoop) {
  const int blocks = 3, rounds = 4;
  for (int n : kSizes)
    for (int inner : {0, 1, 3}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 25), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds, i = inner;
      run("varyingInUniformLoop", blocks, n, {&pi, &po, &r, &i});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(in.begin() + b * n, in.begin() + (b + 1) * n), next(n), acc(n, 0);
        for (int r = 0; r < rounds; ++r) {
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            for (int j = 0; j < inner; ++j) {
              for (int k = 0; k < (t + j + r) % 4; ++k)
                sum += s[(t + j * 3 + k) % n] * (k + 1);
              sum += j * (r + 1);
            }
            next[t] = (sum + inner * r + b) & 0xffff;
            acc[t] = (acc[t] + sum) & 0xfffff;
          }
          s = next;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = s[t] + acc[t];
      }
      expectWords(out, want, shape(blocks, n, inner));
    }
}

TEST_F(Schedules2, LoopReachedBySomeThreads) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int some : {0, 1, n / 2, n})
      for (int extra : {0, 2}) {
        std::vector<int> in = words(size_t(blocks) * n, 1000, 26), out(blocks * n, -1);
        int *pi = in.data(), *po = out.data(), sm = some, ex = extra;
        run("loopForSomeThreads", blocks, n, {&pi, &po, &sm, &ex});
        std::vector<int> want(out.size());
        for (int b = 0; b < blocks; ++b) {
          const int *s = in.data() + b * n;
          std::vector<int> s2(n);
          for (int t = 0; t < n; ++t) {
            const int a = s[t] * 3 + 1;
            int sum = a;
            if (t < some)
              for (int k = 0; k < t % 6 + extra; ++k)
                sum += s[(t + k) % n] ^ a;
            s2[t] = sum & 0xfffff;
          }
          const int u = b * 7 + some, v = u * 2 + extra;
          for (int t = 0; t < n; ++t)
            want[b * n + t] = s2[(t + 1) % n] + s[t] * 3 + 1 + u + v;
        }
        expectWords(out, want, shape(blocks, n, some, extra));
      }
}

TEST_F(Schedules2, ReturnFromInsideAVaryingLoop) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {1, 3, 8}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 27), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds;
      run("returnInsideVaryingLoop", blocks, n, {&pi, &po, &r});
      std::vector<int> want(out.size(), -1);
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> v(in.begin() + b * n, in.begin() + (b + 1) * n), s = v;
        std::vector<bool> live(n, true);
        int *w = want.data() + b * n;
        for (int r = 0; r < rounds; ++r) {
          std::vector<int> sums(n, 0);
          for (int t = 0; t < n; ++t) {
            if (!live[t])
              continue;
            int sum = 0;
            for (int k = 0; k < (t + r) % 6; ++k) {
              sum += s[(t + k) % n];
              if (k == 3 && (t + r) % 7 == 0) {
                w[t] = -(sum & 0xffff) - 1;
                live[t] = false;
                break;
              }
            }
            sums[t] = sum;
          }
          for (int t = 0; t < n; ++t)
            if (live[t]) {
              v[t] = (v[t] + sums[t]) & 0xffff;
              s[t] = v[t];
            }
        }
        for (int t = 0; t < n; ++t)
          if (live[t])
            w[t] = v[t];
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules2, UnrolledStridedLoadsOfTwoBasesInABarrierLoop) {
  const int blocks = 3;
  for (int n : kSmallSizes)
    for (int len : {1, 4, 5, 13, 20})
      for (int rounds : {1, 4}) {
        std::vector<int> a = words(size_t(blocks) * 64 * len, 1000, 28),
                         bv = words(size_t(blocks) * 64 * len, 1000, 29), out(blocks * n, -1);
        int *pa = a.data(), *pb = bv.data(), *po = out.data(), l = len, r = rounds;
        run("unrolledTwoBases", blocks, n, {&pa, &pb, &po, &l, &r});
        std::vector<int> want(out.size());
        for (int b = 0; b < blocks; ++b) {
          std::vector<int> acc(n, 0), s(n), sa(n);
          for (int r = 0; r < rounds; ++r) {
            for (int t = 0; t < n; ++t) {
              const int *qa = a.data() + b * 64 * len + t, *qb = bv.data() + b * 64 * len + t;
              int x = 0, y = 0;
              for (int k = 0; k < len - (t + r) % 4; ++k) {
                x += qa[k * 64] ^ r;
                y += qb[k * 64] * (k + 1);
              }
              s[t] = x - y;
              sa[t] = x;
            }
            for (int t = 0; t < n; ++t)
              acc[t] = (acc[t] + s[(t + r + 1) % n] + sa[t]) & 0xfffff;
          }
          std::copy(acc.begin(), acc.end(), want.begin() + b * n);
        }
        expectWords(out, want, shape(blocks, n, len, rounds));
      }
}

TEST_F(Schedules2, Unroll16And8WithVaryingTrips) {
  const int blocks = 3;
  for (int n : kSmallSizes)
    for (int len : {0, 3, 7, 16, 17, 40}) {
      std::vector<int> in = words(size_t(blocks) * 64 * len + 1, 1000, 30), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), l = len;
      run("unrolled16", blocks, n, {&pi, &po, &l});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> sum(n, 0), s(n), sum2(n);
        for (int t = 0; t < n; ++t) {
          const int *p = in.data() + b * 64 * len + t;
          for (int k = 0; k < len - t % 7; ++k)
            sum[t] += p[k * 64];
        }
        for (int t = 0; t < n; ++t) {
          const int *p = in.data() + b * 64 * len + t;
          sum2[t] = sum[(t + 3) % n];
          for (int k = 0; k < len - (t % 3) * 5; ++k)
            sum2[t] += p[k * 64] ^ k;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = sum[t] * 2 + sum2[(t + 5) % n] - sum2[t];
      }
      expectWords(out, want, shape(blocks, n, len));
    }
}

TEST_F(Schedules2, PartialSumsUsedAfterDifferentBarriers) {
  const int blocks = 3;
  for (int n : kSmallSizes)
    for (int len : {0, 4, 9, 16, 23}) {
      std::vector<int> in = words(size_t(blocks) * 64 * len + 1, 1000, 31), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), l = len;
      run("partialSums", blocks, n, {&pi, &po, &l});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> p0(n), p1(n), p2(n), p3(n), x(n), s2(n);
        for (int t = 0; t < n; ++t) {
          const int *p = in.data() + b * 64 * len + t;
          const int m = len - t % 9;
          int k = 0;
          for (; k + 4 <= m; k += 4) {
            p0[t] += p[k * 64];
            p1[t] += p[k * 64 + 64];
            p2[t] += p[k * 64 + 128];
            p3[t] += p[k * 64 + 192];
          }
          for (; k < m; ++k)
            p0[t] += p[k * 64] * 2;
        }
        for (int t = 0; t < n; ++t)
          x[t] = p0[(t + 1) % n] + p1[t];
        for (int t = 0; t < n; ++t)
          s2[t] = p2[t] ^ x[t];
        for (int t = 0; t < n; ++t)
          want[b * n + t] = s2[(t + 2) % n] + p3[t] * 3 + x[t];
      }
      expectWords(out, want, shape(blocks, n, len));
    }
}

TEST_F(Schedules2, SharedWritesAndAtomicsInVaryingLoops) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {1, 2, 5}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 32), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds;
      run("sharedWritesAndAtomics", blocks, n, {&pi, &po, &r});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> v(in.begin() + b * n, in.begin() + (b + 1) * n), s(4 * n);
        for (int r = 0; r < rounds; ++r) {
          int bins[8] = {}, mx = -1;
          for (int t = 0; t < n; ++t) {
            int k = 0;
            for (; k < (t + r) % 4 + 1; ++k)
              s[t * 4 + k] = v[t] ^ k;
            for (; k < 4; ++k)
              s[t * 4 + k] = -k;
            for (int j = 0; j < (v[t] + r) % 5; ++j) {
              bins[(t + j) & 7] += j + 1;
              mx = std::max(mx, v[t] * 4 + j);
            }
          }
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            for (int j = 0; j < 4; ++j)
              sum += s[((t + 1) % n) * 4 + j];
            v[t] = (sum + bins[t & 7] * 3 + mx) & 0xffff;
          }
        }
        std::copy(v.begin(), v.end(), want.begin() + b * n);
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules2, EightValuesEachLiveAcrossBarriers) {
  const int blocks = 3;
  for (int perCall : {1, 2})
    for (int n : kSizes) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 33), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("eightValuesAcrossBarriers", blocks, n, {&pi, &po}, perCall);
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> b0(in.begin() + b * n, in.begin() + (b + 1) * n), b1(n);
        std::vector<int> v0(n), v1(n), v2(n), v3(n), v4(n), v5(n), v6(n), v7(n);
        for (int t = 0; t < n; ++t) {
          v0[t] = b0[(t + 1) % n] + t;
          b1[t] = v0[t] ^ 5;
        }
        for (int t = 0; t < n; ++t) {
          v1[t] = b1[(t + 2) % n] * 3;
          for (int k = 0; k < t % 3; ++k)
            v1[t] += b1[(t + k) % n];
          b0[t] = v1[t] & 0xffff;
        }
        for (int t = 0; t < n; ++t) {
          v2[t] = b0[(t + 3) % n] ^ v0[t];
          b1[t] = v2[t];
        }
        for (int t = 0; t < n; ++t) {
          v3[t] = b1[(t + 5) % n] + v1[t];
          for (int k = 0; k < (t + 1) % 4; ++k)
            v3[t] ^= b1[(t + k * 2) % n] + k;
          b0[t] = (v3[t] - v0[t]) & 0xffff;
        }
        for (int t = 0; t < n; ++t) {
          v4[t] = b0[(t + 7) % n] + v2[t] * 2;
          b1[t] = v4[t] & 0xffff;
        }
        for (int t = 0; t < n; ++t) {
          v5[t] = b1[n - 1 - t] ^ v3[t];
          for (int k = 0; k < t % 5; ++k)
            v5[t] += b1[(t + k) % n] & 15;
          b0[t] = v5[t] & 0xffff;
        }
        for (int t = 0; t < n; ++t) {
          v6[t] = b0[(t + 11) % n] + v4[t] * 3;
          b1[t] = (v6[t] ^ v3[t]) & 0xffff;
        }
        for (int t = 0; t < n; ++t) {
          v7[t] = b1[(t + 13) % n] - v5[t];
          b0[t] = (v7[t] + v4[t]) & 0xffff;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = b0[(t + 17) % n] + v6[t] + v7[t] * 2 + v5[t];
      }
      expectWords(out, want, shape(blocks, n, perCall));
    }
}

TEST_F(Schedules2, WhileOnASharedCondition) {
  const int blocks = 4;
  for (int n : kSizes)
    for (int limit : {-1, 0, 1, 10, 40}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 34), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), l = limit;
      run("whileSharedCondition", blocks, n, {&pi, &po, &l});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(in.begin() + b * n, in.begin() + (b + 1) * n), acc(n, 0);
        int ctl = limit + b, it = 0;
        while (ctl > 0) {
          for (int t = 0; t < n; ++t)
            for (int k = 0; k < (t + it) % 3; ++k)
              acc[t] += s[(t + k) % n] ^ it;
          ctl -= it + 1;
          for (int t = 0; t < n; ++t)
            s[t] = (acc[t] + it) & 0xffff;
          ++it;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = acc[t] + it * 1000;
      }
      expectWords(out, want, shape(blocks, n, limit));
    }
}

TEST_F(Schedules2, BarrierLoopWithATripCountFromSharedMemory) {
  const int blocks = 4;
  for (int n : kSizes)
    for (int base : {-2, 0, 1, 4}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 35), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), bs = base;
      run("sharedTripCount", blocks, n, {&pi, &po, &bs});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(in.begin() + b * n, in.begin() + (b + 1) * n), v(n, 0);
        const int m = base + b % 3;
        for (int j = 0; j < m; ++j) {
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            for (int k = 0; k < (t + j) % 4; ++k)
              sum += s[(t + k * 3) % n];
            v[t] = (v[t] * 2 + sum + j) & 0xffff;
          }
          s = v;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = v[t] + m;
      }
      expectWords(out, want, shape(blocks, n, base));
    }
}

TEST_F(Schedules2, LoopLeftOnASharedFlagKeepsPerThreadValues) {
  const int blocks = 4;
  for (int n : kSizes)
    for (int rounds : {1, 2, 5}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 41), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), rr = rounds;
      run("untilSharedFlag", blocks, n, {&pi, &po, &rr});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> v(in.begin() + b * n, in.begin() + (b + 1) * n), flag(n, 0), hits(n, 0);
        for (int r = 0;;) {
          for (int t = 0; t < n; ++t) {
            flag[t] = (v[t] + r) % 3 == 0 ? r + 1 : 0;
            hits[t] += flag[t] ? v[t] : 0;
          }
          const std::vector<int> s = v;
          if (++r >= rounds + b % 2)
            break;
          for (int t = 0; t < n; ++t)
            v[t] = (flag[t] ? s[(t + 1) % n] + v[t] : v[t] - s[n - 1 - t]) & 0xffff;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = v[t] * 4 + flag[t] * 100000 + hits[t] * 1000;
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

// The reference of three kernels that set values in some threads only: each round, thread t
// with (t + r) % 3 != 0 sets w = 2p + b + r and lastR = r and adds part(s, t, r) of the words
// to its next word; each thread outputs s + 3w + lastR + extra (n * rounds or 0).
void expectDefinedUnderVaryingCondition(
    Schedules2 &f, const char *kernel, uint32_t seed,
    const std::function<int(const std::vector<int> &, int, int)> &part, bool extra) {
  const int blocks = 3, p = 17;
  for (int n : kSizes)
    for (int rounds : {0, 1, 2, 5}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, seed), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), pp = p, r = rounds;
      f.run(kernel, blocks, n, {&pi, &po, &pp, &r});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(in.begin() + b * n, in.begin() + (b + 1) * n), next(n), w(n, p),
            lastR(n, -1);
        for (int r = 0; r < rounds; ++r) {
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            if ((t + r) % 3 != 0) {
              w[t] = p * 2 + b + r;
              lastR[t] = r;
              sum = part(s, t, r);
            }
            next[t] = (sum + w[t]) & 0xffff;
          }
          s = next;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = s[t] + w[t] * 3 + lastR[t] + (extra ? n * rounds : 0);
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules2, ValuesDefinedOnlyInsideAVaryingLoop) {
  expectDefinedUnderVaryingCondition(
      *this, "definedInsideVaryingLoop", 36,
      [](const std::vector<int> &s, int t, int r) {
        int sum = 0;
        for (int k = 0; k < (t + r) % 3; ++k)
          sum += s[(t + k) % s.size()];
        return sum;
      },
      false);
}

TEST_F(Schedules2, ValuesDefinedOnlyUnderAVaryingIf) {
  expectDefinedUnderVaryingCondition(
      *this, "definedUnderVaryingIf", 40,
      [](const std::vector<int> &s, int t, int) { return s[(t + 1) % s.size()]; }, false);
}

TEST_F(Schedules2, ValuesDefinedOnlyUnderAVaryingIfJoiningBeforeTheBarrier) {
  expectDefinedUnderVaryingCondition(
      *this, "definedUnderVaryingIfJoin", 41,
      [](const std::vector<int> &s, int t, int) { return s[(t + 1) % s.size()]; }, true);
}

TEST_F(Schedules2, BarriersOnlyInOddRounds) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {1, 2, 3, 6}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 37), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds;
      run("barriersInOddRounds", blocks, n, {&pi, &po, &r});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(in.begin() + b * n, in.begin() + (b + 1) * n), next(n), v(n, 0);
        for (int r = 0; r < rounds; ++r) {
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            for (int k = 0; k < (t + r) % 5; ++k)
              sum += s[(t + 2 * k + 1) % n];
            if (r & 1)
              next[t] = (sum + v[t]) & 0xffff;
            else
              v[t] = (v[t] + sum) & 0xffff;
          }
          if (r & 1)
            s = next;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = s[t] + v[t];
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

const int kShapes2D[][2] = {{16, 8}, {7, 5}, {16, 16}, {3, 11}, {1, 1}};

TEST_F(Schedules2, TwoDimensionalRowsWithAtomics) {
  const uint32_t blocks = 3;
  for (const auto &sh : kShapes2D)
    for (int rounds : {1, 3}) {
      const int bx = sh[0], by = sh[1], n = bx * by;
      std::vector<int> in = words(size_t(blocks) * n, 1000, 38), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds;
      uint32_t grid[3] = {blocks, 1, 1}, block[3] = {uint32_t(bx), uint32_t(by), 1};
      runGrid(*prog, "block2DRows", grid, block, {&pi, &po, &r}, 0, 2);
      std::vector<int> want(in);
      for (uint32_t b = 0; b < blocks; ++b) {
        int *v = want.data() + b * n;
        for (int r = 0; r < rounds; ++r) {
          const std::vector<int> tile(v, v + n);
          std::vector<int> rowSum(by, 0), sums(n);
          for (int y = 0; y < by; ++y)
            for (int x = 0; x < bx; ++x) {
              int sum = 0;
              for (int k = 0; k < (x * 2 + y + r) % 5; ++k)
                sum += tile[((y + k) % by) * bx + (x + k * 2) % bx];
              rowSum[(y + r) % by] += sum & 0xff;
              sums[y * bx + x] = sum;
            }
          for (int y = 0; y < by; ++y)
            for (int x = 0; x < bx; ++x)
              v[y * bx + x] = (v[y * bx + x] + sums[y * bx + x] + rowSum[y]) & 0xffff;
        }
      }
      expectWords(out, want, shape(int(blocks), n, rounds, bx));
    }
}

TEST_F(Schedules2, TwoDimensionalReturnsFromAVaryingLoop) {
  const uint32_t blocks = 3;
  for (const auto &sh : kShapes2D)
    for (int rounds : {1, 2, 5}) {
      const int bx = sh[0], by = sh[1], n = bx * by;
      std::vector<int> in = words(size_t(blocks) * n, 1000, 39), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds;
      uint32_t grid[3] = {blocks, 1, 1}, block[3] = {uint32_t(bx), uint32_t(by), 1};
      runGrid(*prog, "block2DReturns", grid, block, {&pi, &po, &r}, 0, 2);
      std::vector<int> want(out.size(), -1);
      for (uint32_t b = 0; b < blocks; ++b) {
        std::vector<int> v(in.begin() + b * n, in.begin() + (b + 1) * n), tile = v, sums(n);
        std::vector<bool> live(n, true);
        int *w = want.data() + b * n;
        for (int r = 0; r < rounds; ++r) {
          for (int y = 0; y < by; ++y)
            for (int x = 0; x < bx; ++x) {
              const int i = y * bx + x;
              if (!live[i])
                continue;
              int sum = 0;
              for (int k = 0; k < (x + r) % 4; ++k) {
                sum += tile[((y + k) % by) * bx + (x + 1) % bx];
                if ((y & 1) && k == r % 3) {
                  w[i] = sum + 100000;
                  live[i] = false;
                  break;
                }
              }
              sums[i] = sum;
            }
          for (int i = 0; i < n; ++i)
            if (live[i]) {
              v[i] = (v[i] + sums[i]) & 0xffff;
              tile[i] = v[i];
            }
        }
        for (int i = 0; i < n; ++i)
          if (live[i])
            w[i] = v[i];
      }
      expectWords(out, want, shape(int(blocks), n, rounds, bx));
    }
}

} // namespace
