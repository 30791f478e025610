// Scheduling stress tests: barriers around loops of varying trips, buffering, exits, atomics.
#include "run_grid.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <random>

namespace {

struct Schedules : ::testing::Test {
  void SetUp() override {
    prog = load(readSource("tests/unit/jit/schedule_kernels.ptx"));
    ASSERT_TRUE(prog);
  }
  // Runs `name` over `blocks` 1D blocks of `n` threads, two blocks per call.
  void run(const char *name, int blocks, int n, std::vector<void *> args) {
    uint32_t grid[3] = {uint32_t(blocks), 1, 1}, block[3] = {uint32_t(n), 1, 1};
    runGrid(*prog, name, grid, block, std::move(args), 0, 2);
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

std::string shape(int blocks, int n, int param) {
  return "blocks " + std::to_string(blocks) + " n " + std::to_string(n) + " param " +
         std::to_string(param);
}

// Every output word against the host's; a failure names the first word that differs.
void expectWords(const std::vector<int> &got, const std::vector<int> &want, const std::string &s) {
  ASSERT_EQ(got.size(), want.size()) << s;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << s << ": first mismatch at word " << i;
}

const int kSizes[] = {64, 50, 96, 33, 256, 7};

TEST_F(Schedules, TopBarrierWithTripCountsFromMemory) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {0, 1, 2, 5}) {
      std::vector<int> trips = words(size_t(blocks) * n, 7, 1), out(blocks * n, -1);
      int *pt = trips.data(), *po = out.data();
      run("topBarrierDataTrips", blocks, n, {&pt, &po, &rounds});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(n), next(n);
        for (int t = 0; t < n; ++t)
          s[t] = t * 3 + b;
        for (int r = 0; r < rounds; ++r) {
          for (int t = 0; t < n; ++t) {
            int sum = r;
            for (int k = 0; k < trips[b * n + t]; ++k)
              sum += s[(t + 3 * k) % n] ^ k;
            next[t] = sum & 0xfffff;
          }
          s = next;
        }
        std::copy(s.begin(), s.end(), want.begin() + b * n);
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules, DoubleBufferWithBarrierAtTheBottom) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {0, 1, 2, 7}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 2), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("bottomBarrierDoubleBuffer", blocks, n, {&pi, &po, &rounds});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> cur(in.begin() + b * n, in.begin() + (b + 1) * n), next(n);
        for (int r = 0; r < rounds; ++r) {
          for (int t = 0; t < n; ++t) {
            int sum = cur[t];
            for (int k = 0; k < (t + r) % 5; ++k)
              sum += cur[(t + k + 1) % n] * (k + 1);
            next[t] = sum & 0xffff;
          }
          cur = next;
        }
        std::copy(cur.begin(), cur.end(), want.begin() + b * n);
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules, TripleBuffer) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {0, 1, 2, 3, 8}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 3), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("tripleBuffered", blocks, n, {&pi, &po, &rounds});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> buf[3] = {{in.begin() + b * n, in.begin() + (b + 1) * n},
                                   std::vector<int>(n),
                                   std::vector<int>(n)};
        std::iota(buf[2].begin(), buf[2].end(), 0);
        for (int r = 0; r < rounds; ++r) {
          const auto &cur = buf[r % 3], &prev = buf[(r + 2) % 3];
          auto &next = buf[(r + 1) % 3];
          for (int t = 0; t < n; ++t) {
            int sum = cur[t];
            for (int k = 0; k < (t * 7 + r) % 6; ++k)
              sum += cur[(t + k) % n] - prev[(t + 2 * k) % n];
            next[t] = sum & 0xffff;
          }
        }
        std::copy(buf[rounds % 3].begin(), buf[rounds % 3].end(), want.begin() + b * n);
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules, UniformBreakOnASharedAtomicCounter) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int limit : {1, 200, 1500}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 4), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("breakOnSharedCounter", blocks, n, {&pi, &po, &limit});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        const int *s = in.data() + b * n;
        std::vector<int> acc(n, 0);
        int total = 0, iter = 0;
        for (;;) {
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            for (int k = 0; k < (t + iter) % 4; ++k)
              sum += s[(t + k * 5) % n];
            total += t % 3 + 1;
            acc[t] = (acc[t] ^ sum) + iter;
          }
          ++iter;
          if (total >= limit)
            break;
        }
        for (int t = 0; t < n; ++t)
          want[b * n + t] = acc[t] + total * 7 + iter * 100000;
      }
      expectWords(out, want, shape(blocks, n, limit));
    }
}

TEST_F(Schedules, ContinueAndBreakAroundBarriers) {
  const int blocks = 3, rounds = 7;
  for (int n : kSizes)
    for (int skip : {1, 2, 3}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 5), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), r = rounds, sk = skip;
      run("continueAroundBarriers", blocks, n, {&pi, &po, &r, &sk});
      std::vector<int> want(in);
      for (int b = 0; b < blocks; ++b) {
        int *v = want.data() + b * n;
        for (int r = 0; r < rounds; ++r) {
          if (r % skip == 1)
            continue;
          const std::vector<int> s(v, v + n);
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            for (int k = 0; k < 8; ++k) {
              if ((t + k + r) % 3 == 0)
                continue;
              if (sum > 2000)
                break;
              sum += s[(t + k) % n];
            }
            v[t] = (v[t] + sum) % 10007;
          }
        }
      }
      expectWords(out, want, shape(blocks, n, skip));
    }
}

TEST_F(Schedules, ReturnBeforeALoopOfBarriers) {
  const int blocks = 3, rounds = 4;
  for (int n : kSizes)
    for (int live : {n, n / 2 + 1, 1, 0}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 6), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), l = live, r = rounds;
      run("returnBeforeLoop", blocks, n, {&pi, &po, &l, &r});
      std::vector<int> want(out.size(), -1);
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> v(in.begin() + b * n, in.begin() + b * n + live);
        for (int r = 0; r < rounds; ++r) {
          const std::vector<int> s(v);
          for (int t = 0; t < live; ++t) {
            int sum = 0;
            for (int k = 0; k < t % 4; ++k)
              sum += s[(t + k + 1) % live];
            v[t] = (v[t] * 3 + sum) & 0x3fff;
          }
        }
        std::copy(v.begin(), v.end(), want.begin() + b * n);
      }
      expectWords(out, want, shape(blocks, n, live));
    }
}

TEST_F(Schedules, ReturnsFromInsideALoopOfBarriers) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {1, 3, 12, 60}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 7), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("returnInsideBarrierLoop", blocks, n, {&pi, &po, &rounds});
      std::vector<int> want(in);
      for (int b = 0; b < blocks; ++b) {
        int *v = want.data() + b * n, active = n;
        for (int r = 0; r < rounds && active > 0; ++r) {
          const int live = n - r * 5;
          for (; active > std::max(live, 0); --active)
            v[active - 1] += 1000000;
          const std::vector<int> s(v, v + active);
          for (int t = 0; t < active; ++t) {
            int sum = 0;
            for (int k = 0; k < (t + r) % 3; ++k)
              sum += s[(t * 3 + k) % live];
            v[t] = (v[t] + sum * (r + 1)) & 0xffff;
          }
        }
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules, ReturnBeforeTheFirstBarrier) {
  const int blocks = 3;
  for (int n : kSizes) {
    std::vector<int> in = words(size_t(blocks) * n, 1000, 8), out(blocks * n, -1);
    int *pi = in.data(), *po = out.data();
    run("returnBeforeBarrier", blocks, n, {&pi, &po});
    std::vector<int> want(out.size());
    for (int b = 0; b < blocks; ++b) {
      std::vector<int> s(n), sums(n);
      for (int t = 0; t < n; ++t)
        s[t] = in[b * n + t] * 2 + 1;
      for (int t = 0; t < n; ++t)
        for (int k = 0; k < t % 6; ++k)
          sums[t] += s[(t + k) % n];
      for (int t = 0; t < n; ++t)
        if (t % 5 != 2)
          s[t] = sums[t];
      for (int t = 0; t < n; ++t)
        want[b * n + t] = t % 5 == 2 ? -(in[b * n + t] * 2 + 1) : sums[t] - s[(t + 1) % n];
    }
    expectWords(out, want, shape(blocks, n, 0));
  }
}

TEST_F(Schedules, PointerChasingBetweenBarriers) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {1, 4}) {
      const int total = blocks * n;
      // Lists of 0 to 6 nodes, scattered over shuffled node numbers.
      std::vector<int> len = words(total, 7, 9), head(total, -1), val = words(total * 6, 999, 10);
      std::vector<int> ids(val.size()), next(val.size(), -1), out(total, -1);
      std::iota(ids.begin(), ids.end(), 0);
      std::shuffle(ids.begin(), ids.end(), std::mt19937(11));
      for (int h = 0, used = 0; h < total; ++h)
        for (int k = 0; k < len[h]; ++k, ++used)
          (k == 0 ? head[h] : next[ids[used - 1]]) = ids[used];
      int *pn = next.data(), *pv = val.data(), *ph = head.data(), *po = out.data();
      run("pointerChase", blocks, n, {&pn, &pv, &ph, &po, &rounds});
      std::vector<int> want(total, 0);
      for (int r = 0; r < rounds; ++r)
        for (int b = 0; b < blocks; ++b) {
          std::vector<int> s(n, 0);
          for (int t = 0; t < n; ++t)
            for (int i = head[(b * n + t + r) % total]; i >= 0; i = next[i])
              s[t] += val[i] ^ r;
          for (int t = 0; t < n; ++t)
            want[b * n + t] += s[(t + r) % n];
        }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules, NestedVaryingLoops) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {1, 2, 6}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 12), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("nestedVarying", blocks, n, {&pi, &po, &rounds});
      std::vector<int> want(in);
      for (int b = 0; b < blocks; ++b) {
        int *s = want.data() + b * n;
        for (int r = 0; r < rounds; ++r) {
          const std::vector<int> old(s, s + n);
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            for (int i = 0; i < (t + r) % 4; ++i)
              for (int j = 0; j < (t * i + r) % 5; ++j)
                sum += old[(t + i * 7 + j) % n] * (i + 1);
            s[t] = (old[t] + sum) & 0xffff;
          }
        }
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules, LoadsInBothBranchesOfAnIf) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int len : {0, 1, 2, 5, 9}) {
      std::vector<int> a = words(size_t(blocks) * n * len, 1000, 13);
      std::vector<int> bw = words(a.size(), 1000, 14), out(blocks * n, -1);
      int *pa = a.data(), *pb = bw.data(), *po = out.data();
      run("loadsInBothBranches", blocks, n, {&pa, &pb, &po, &len});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        const int *ba = a.data() + b * len * n, *bb = bw.data() + b * len * n;
        std::vector<int> s(n, 0);
        for (int t = 0; t < n; ++t)
          for (int k = 0; k < len - t % 4; ++k)
            s[t] += (k + t) & 1 ? ba[k * n + t] : -bb[k * n + (t * 3) % n] * 2;
        for (int t = 0; t < n; ++t)
          want[b * n + t] = s[t] + s[(t + 5) % n];
      }
      expectWords(out, want, shape(blocks, n, len));
    }
}

TEST_F(Schedules, UnrolledStridedLoadsAroundABarrier) {
  const int blocks = 3;
  for (int n : {64, 50, 33, 7})
    for (int rounds : {1, 3, 8, 13, 17}) {
      std::vector<int> in = words(size_t(blocks) * 128 * rounds, 1000, 15), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("unrolledStrided8", blocks, n, {&pi, &po, &rounds});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> s(n, 0);
        for (int t = 0; t < n; ++t) {
          const int *p = in.data() + b * 128 * rounds + t;
          for (int k = 0; k < rounds - t % 5; ++k)
            s[t] += (p[k * 128] ^ k) - p[k * 128 + 64];
        }
        for (int t = 0; t < n; ++t) {
          const int *p = in.data() + b * 128 * rounds + t;
          int sum2 = s[(t + 1) % n];
          for (int k = 0; k < rounds - t % 3; ++k)
            sum2 += p[k * 128 + 64] * (k + 1);
          want[b * n + t] = sum2 - s[t];
        }
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules, SharedAtomicHistogramEachRound) {
  const int blocks = 3, rounds = 4;
  for (int n : {64, 50, 96, 33, 256, 16})
    for (int len : {0, 1, 3, 6}) {
      std::vector<int> in = words(size_t(blocks) * len * n, 1000, 16), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data(), l = len, r = rounds;
      run("sharedHistogramRounds", blocks, n, {&pi, &po, &l, &r});
      std::vector<int> want(out.size(), 0);
      for (int b = 0; b < blocks; ++b)
        for (int r = 0; r < rounds; ++r) {
          int bins[16] = {}, total = 0;
          for (int t = 0; t < n; ++t)
            for (int k = 0; k < len - (t + r) % 3; ++k) {
              const int v = in[(b * len + k) * n + (t + r) % n];
              ++bins[v & 15];
              total += v;
            }
          for (int t = 0; t < n; ++t)
            want[b * n + t] += bins[t % 16] * (r + 1) + (total & 0xff);
        }
      expectWords(out, want, shape(blocks, n, len));
    }
}

TEST_F(Schedules, GridStrideLoopWithAnExchange) {
  for (int n : kSizes)
    for (int blocks : {1, 3})
      for (int total : {1, n * blocks, 5 * n * blocks + n / 2 + 1}) {
        std::vector<int> in = words(total, 1000, 17), out(total, -1);
        int *pi = in.data(), *po = out.data(), tot = total;
        run("gridStrideExchange", blocks, n, {&pi, &po, &tot});
        std::vector<int> want(total);
        for (int base = 0; base < total; base += n)
          for (int t = 0; t < n && base + t < total; ++t) {
            auto s = [&](int u) { return base + u < total ? in[base + u] : 0; };
            int sum = 0;
            for (int k = 0; k < (base + t) % 4; ++k)
              sum += s((t + k + 1) % n);
            want[base + t] = sum - s(t);
          }
        expectWords(out, want, shape(blocks, n, total));
      }
}

TEST_F(Schedules, TwoDimensionalBlocks) {
  const int blocks = 3, rounds = 5;
  for (auto [bx, by] : {std::pair{16, 4}, std::pair{8, 8}, std::pair{5, 3}, std::pair{16, 16}}) {
    const int n = bx * by;
    std::vector<int> in = words(size_t(blocks) * n, 1000, 18), out(blocks * n, -1);
    int *pi = in.data(), *po = out.data(), r = rounds;
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {uint32_t(bx), uint32_t(by), 1};
    runGrid(*prog, "tile2D", grid, block, {&pi, &po, &r}, 0, 2);
    std::vector<int> want(in);
    for (int b = 0; b < blocks; ++b) {
      int *v = want.data() + b * n;
      for (int r = 0; r < rounds; ++r) {
        const std::vector<int> tile(v, v + n);
        for (int y = 0; y < by; ++y)
          for (int x = 0; x < bx; ++x) {
            int sum = 0;
            for (int k = 0; k < (x + y + r) % 4; ++k)
              sum += tile[(y + k) % by * bx + (x * 3 + k) % bx];
            v[y * bx + x] = (v[y * bx + x] + sum) & 0xffff;
          }
      }
    }
    expectWords(out, want, "block " + std::to_string(bx) + "x" + std::to_string(by));
  }
}

TEST_F(Schedules, TreeReductionOverOddBlockSizes) {
  const int blocks = 3;
  for (int n : {64, 50, 96, 33, 256, 7, 1, 100}) {
    std::vector<int> in = words(size_t(blocks) * n, 1000, 19), out(blocks * n, -1);
    int *pi = in.data(), *po = out.data();
    run("oddTreeReduction", blocks, n, {&pi, &po});
    std::vector<int> want(out.size());
    for (int b = 0; b < blocks; ++b) {
      std::vector<int> s(n, 0);
      for (int t = 0; t < n; ++t)
        for (int k = 0; k < t % 5; ++k)
          s[t] += in[b * n + (t + k) % n];
      for (int stride = 1; stride < n; stride *= 2)
        for (int t = 0; t + stride < n; t += 2 * stride)
          s[t] += s[t + stride];
      for (int t = 0; t < n; ++t)
        want[b * n + t] = s[0] * (t + 1) - s[t];
    }
    expectWords(out, want, shape(blocks, n, 0));
  }
}

TEST_F(Schedules, ManyValuesLiveAcrossBarriers) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {0, 1, 4}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 20), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("manyLiveAcrossBarriers", blocks, n, {&pi, &po, &rounds});
      std::vector<int> want(out.size());
      for (int blk = 0; blk < blocks; ++blk) {
        std::vector<int> a(in.begin() + blk * n, in.begin() + (blk + 1) * n), b(n), c(n), d(n);
        for (int t = 0; t < n; ++t)
          b[t] = a[t] * 3 + 1, c[t] = t;
        for (int r = 0; r < rounds; ++r) {
          const std::vector<int> s(a);
          std::vector<int> s2(n);
          for (int t = 0; t < n; ++t) {
            b[t] = (b[t] + s[(t + 1) % n]) & 0xfffff;
            for (int k = 0; k < (t + r) % 3; ++k)
              c[t] = (c[t] + (s[(t + k * 2) % n] ^ b[t])) & 0xfffff;
            s2[t] = b[t] ^ c[t];
          }
          for (int t = 0; t < n; ++t) {
            d[t] = (d[t] + s2[(t + 2) % n]) & 0xfffff;
            a[t] = (s2[n - 1 - t] + c[t]) & 0xffff;
          }
        }
        for (int t = 0; t < n; ++t)
          want[blk * n + t] = a[t] + b[t] + c[t] + d[t];
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules, UniformLoopOfBarriersAfterAVaryingLoop) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int rounds : {0, 1, 3}) {
      std::vector<int> in = words(size_t(blocks) * n, 1000, 21), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("uniformBarrierLoopInside", blocks, n, {&pi, &po, &rounds});
      std::vector<int> want(in);
      for (int b = 0; b < blocks; ++b) {
        int *s = want.data() + b * n;
        for (int r = 0; r < rounds; ++r) {
          std::vector<int> old(s, s + n);
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            for (int k = 0; k < (t * 5 + r) % 7; ++k)
              sum += old[(t + k) % n];
            s[t] = sum & 0xffff;
          }
          for (int j = 1; j < 4; ++j) {
            old.assign(s, s + n);
            for (int t = 0; t < n; ++t)
              s[t] = (s[t] + old[(t + j) % n]) & 0xffff;
          }
        }
      }
      expectWords(out, want, shape(blocks, n, rounds));
    }
}

TEST_F(Schedules, DoWhileUntilASharedCountSettles) {
  const int blocks = 3;
  for (int n : kSizes)
    for (int mod : {1, 40, 500, 100000}) {
      std::vector<int> in = words(size_t(blocks) * n, mod, 22), out(blocks * n, -1);
      int *pi = in.data(), *po = out.data();
      run("untilSettled", blocks, n, {&pi, &po});
      std::vector<int> want(out.size());
      for (int b = 0; b < blocks; ++b) {
        std::vector<int> v(in.begin() + b * n, in.begin() + (b + 1) * n);
        int rounds = 0, busy;
        do {
          const std::vector<int> s(v);
          busy = 0;
          for (int t = 0; t < n; ++t) {
            int sum = 0;
            for (int k = 0; k < s[t] % 4; ++k)
              sum += s[(t + k + 1) % n] & 7;
            v[t] = s[t] / 2 + sum;
            busy += v[t] > 30;
          }
          ++rounds;
        } while (busy != 0 && rounds < 20);
        for (int t = 0; t < n; ++t)
          want[b * n + t] = v[t] * 100 + rounds;
      }
      expectWords(out, want, shape(blocks, n, mod));
    }
}

} // namespace
