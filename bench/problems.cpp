// Inputs, launch shapes and serial reference results of the bench kernels, and output checks.
#include "bench.h"

#include <cmath>
#include <cstdio>
#include <random>

namespace bench {
namespace {

Array floats(size_t n) {
  Array a;
  a.f.assign(n, 0.0f);
  return a;
}

Array uints(size_t n) {
  Array a;
  a.isFloat = false;
  a.u.assign(n, 0u);
  return a;
}

Array uniform(size_t n, float lo, float hi, unsigned seed) {
  Array a = floats(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  for (float &x : a.f) {
    x = dist(rng);
  }
  return a;
}

Arg buf(int i) { return Arg{Arg::Buffer, i}; }
Arg sint(int32_t v) { return Arg{Arg::Int, -1, v}; }
Arg uint(uint32_t v) { return Arg{Arg::Uint, -1, 0, v}; }
Arg flt(float v) { return Arg{Arg::Float, -1, 0, 0, v}; }

void shape1d(Problem &p, unsigned n, unsigned block) {
  p.block[0] = block;
  p.grid[0] = (n + block - 1) / block;
}

// Serial reference cumulative normal (double precision), the formula of the kernels.
double cndRef(double d) {
  const double A1 = 0.31938153, A2 = -0.356563782, A3 = 1.781477937, A4 = -1.821255978,
               A5 = 1.330274429, RSQRT2PI = 0.39894228040143267794;
  double K = 1.0 / (1.0 + 0.2316419 * std::fabs(d));
  double c = RSQRT2PI * std::exp(-0.5 * d * d) * (K * (A1 + K * (A2 + K * (A3 + K * (A4 + K * A5)))));
  return d > 0.0 ? 1.0 - c : c;
}

} // namespace

Problem makeProblem(Kernel k) {
  Problem p;
  p.kernel = k;
  switch (k) {
  case Kernel::VectorAdd: {
    const int n = kVectorN;
    p.name = "vectorAdd 2^24, 256";
    p.entry = "vectorAdd";
    p.ptxFile = "vector_add.ptx";
    shape1d(p, n, 256);
    p.buffers = {uniform(n, -1, 1, 1), uniform(n, -1, 1, 2), floats(n)};
    Array c = floats(n);
    for (int i = 0; i < n; ++i) {
      c.f[i] = p.buffers[0].f[i] + p.buffers[1].f[i];
    }
    p.outputs = {2};
    p.expected = {c};
    p.args = {buf(0), buf(1), buf(2), sint(n)};
    p.bytes = 12.0 * n;
    break;
  }
  case Kernel::Saxpy: {
    const int n = kVectorN;
    p.name = "SAXPY 2^24, 256";
    p.entry = "saxpy";
    p.ptxFile = "saxpy.ptx";
    shape1d(p, n, 256);
    p.buffers = {uniform(n, -1, 1, 3), uniform(n, -1, 1, 4)};
    Array y = floats(n);
    for (int i = 0; i < n; ++i) {
      y.f[i] = static_cast<float>(static_cast<double>(kSaxpyAlpha) * p.buffers[0].f[i] +
                                  p.buffers[1].f[i]);
    }
    p.outputs = {1};
    p.expected = {y};
    p.args = {flt(kSaxpyAlpha), buf(0), buf(1), sint(n)};
    p.absTol = 1e-6;
    p.relTol = 1e-6;
    p.bytes = 12.0 * n;
    break;
  }
  case Kernel::Reduce: {
    const int n = kVectorN;
    const int perBlock = kReduceThreads * kReducePerThread;
    const int blocks = n / perBlock;
    p.name = "reduction 2^24, 256 x 512/block";
    p.entry = "reduceBlocks";
    p.ptxFile = "reduce.ptx";
    p.grid[0] = blocks;
    p.block[0] = kReduceThreads;
    p.buffers = {uniform(n, 0, 1, 5), floats(blocks)};
    Array partial = floats(blocks);
    for (int b = 0; b < blocks; ++b) {
      double s = 0.0;
      for (int i = 0; i < perBlock; ++i) {
        s += p.buffers[0].f[static_cast<size_t>(b) * perBlock + i];
      }
      partial.f[b] = static_cast<float>(s);
    }
    p.outputs = {1};
    p.expected = {partial};
    p.args = {buf(0), buf(1)};
    p.relTol = 1e-4;
    p.bytes = 4.0 * n;
    break;
  }
  case Kernel::Sgemm: {
    const int n = kSgemmN;
    p.name = "SGEMM 1024^3, 16x16 tiles";
    p.entry = "sgemm";
    p.ptxFile = "sgemm.ptx";
    p.block[0] = p.block[1] = kSgemmTile;
    p.grid[0] = p.grid[1] = n / kSgemmTile;
    p.buffers = {uniform(size_t(n) * n, -1, 1, 6), uniform(size_t(n) * n, -1, 1, 7),
                 floats(size_t(n) * n)};
    const std::vector<float> &A = p.buffers[0].f;
    const std::vector<float> &B = p.buffers[1].f;
    Array C = floats(size_t(n) * n);
    std::vector<double> row(n);
    for (int i = 0; i < n; ++i) {
      std::fill(row.begin(), row.end(), 0.0);
      for (int kk = 0; kk < n; ++kk) {
        double a = A[size_t(i) * n + kk];
        const float *b = &B[size_t(kk) * n];
        for (int j = 0; j < n; ++j) {
          row[j] += a * b[j];
        }
      }
      for (int j = 0; j < n; ++j) {
        C.f[size_t(i) * n + j] = static_cast<float>(row[j]);
      }
    }
    p.outputs = {2};
    p.expected = {C};
    p.args = {buf(0), buf(1), buf(2), sint(n)};
    p.absTol = 1e-3;
    p.relTol = 1e-4;
    p.bytes = 12.0 * n * n;
    p.flops = 2.0 * n * n * n;
    break;
  }
  case Kernel::Histogram: {
    const unsigned nwords = kHistogramBytes / 4;
    p.name = "histogram 256 bins, 64 MiB";
    p.entry = "histogram256";
    p.ptxFile = "histogram.ptx";
    p.grid[0] = kHistogramBlocks;
    p.block[0] = 256;
    Array words = uints(nwords);
    std::mt19937 rng(8);
    for (uint32_t &w : words.u) {
      w = static_cast<uint32_t>(rng()); // uniformly distributed bytes
    }
    Array hist = uints(256);
    for (uint32_t w : words.u) {
      for (int s = 0; s < 32; s += 8) {
        ++hist.u[(w >> s) & 0xff];
      }
    }
    p.buffers = {words, uints(256)};
    p.zeroEachRun = {false, true};
    p.outputs = {1};
    p.expected = {hist};
    p.args = {buf(0), uint(nwords), buf(1)};
    p.bytes = kHistogramBytes;
    break;
  }
  case Kernel::BlackScholes: {
    const int n = kOptions;
    p.name = "Black-Scholes 4M options";
    p.entry = "blackScholes";
    p.ptxFile = "black_scholes.ptx";
    shape1d(p, n, 256);
    p.buffers = {floats(n), floats(n), uniform(n, 5, 30, 9), uniform(n, 1, 100, 10),
                 uniform(n, 0.25f, 10, 11)};
    Array call = floats(n), put = floats(n);
    for (int i = 0; i < n; ++i) {
      double S = p.buffers[2].f[i], X = p.buffers[3].f[i], T = p.buffers[4].f[i];
      double R = kRiskFree, V = kVolatility;
      double sqrtT = std::sqrt(T);
      double d1 = (std::log(S / X) + (R + 0.5 * V * V) * T) / (V * sqrtT);
      double d2 = d1 - V * sqrtT;
      double expRT = std::exp(-R * T);
      call.f[i] = static_cast<float>(S * cndRef(d1) - X * expRT * cndRef(d2));
      put.f[i] = static_cast<float>(X * expRT * (1.0 - cndRef(d2)) - S * (1.0 - cndRef(d1)));
    }
    p.outputs = {0, 1};
    p.expected = {call, put};
    p.args = {buf(0), buf(1), buf(2), buf(3), buf(4), flt(kRiskFree), flt(kVolatility), sint(n)};
    p.absTol = 1e-3;
    p.relTol = 1e-4;
    p.bytes = 20.0 * n;
    break;
  }
  case Kernel::Stencil: {
    const int n = kStencilN;
    p.name = "stencil 5-point 4096^2, 32x8";
    p.entry = "stencil5";
    p.ptxFile = "stencil.ptx";
    p.block[0] = 32;
    p.block[1] = 8;
    p.grid[0] = n / 32;
    p.grid[1] = n / 8;
    p.buffers = {uniform(size_t(n) * n, 0, 1, 12), floats(size_t(n) * n)};
    const std::vector<float> &in = p.buffers[0].f;
    Array out = floats(size_t(n) * n);
    for (int y = 0; y < n; ++y) {
      for (int x = 0; x < n; ++x) {
        size_t i = size_t(y) * n + x;
        if (x == 0 || y == 0 || x == n - 1 || y == n - 1) {
          out.f[i] = in[i];
        } else {
          out.f[i] = static_cast<float>(double(kStencilCenter) * in[i] +
                                        double(kStencilNeighbour) *
                                            (double(in[i - 1]) + in[i + 1] + in[i - n] + in[i + n]));
        }
      }
    }
    p.outputs = {1};
    p.expected = {out};
    p.args = {buf(0), buf(1), sint(n), sint(n), flt(kStencilCenter), flt(kStencilNeighbour)};
    p.absTol = 1e-6;
    p.relTol = 1e-6;
    p.bytes = 8.0 * n * n;
    break;
  }
  case Kernel::Empty:
    p.name = "empty 1 x 32";
    p.entry = "empty";
    p.ptxFile = "empty.ptx";
    p.block[0] = 32;
    break;
  }
  return p;
}

std::string verify(const Problem &p, const std::vector<Array> &got) {
  if (got.size() != p.expected.size()) {
    return "wrong number of outputs";
  }
  for (size_t o = 0; o < got.size(); ++o) {
    const Array &want = p.expected[o];
    const Array &have = got[o];
    if (have.bytes() != want.bytes()) {
      return "output " + std::to_string(o) + " has the wrong size";
    }
    size_t n = want.bytes() / 4;
    for (size_t i = 0; i < n; ++i) {
      // The message is formatted only for the first wrong element (formatting every element
      // took seconds per kernel).
      char msg[160];
      if (want.isFloat) {
        double w = want.f[i], h = have.f[i];
        if (std::fabs(h - w) <= p.absTol + p.relTol * std::fabs(w)) {
          continue;
        }
        std::snprintf(msg, sizeof msg, "output %zu [%zu]: got %.9g, expected %.9g", o, i, h, w);
      } else {
        if (have.u[i] == want.u[i]) {
          continue;
        }
        std::snprintf(msg, sizeof msg, "output %zu [%zu]: got %u, expected %u", o, i, have.u[i],
                      want.u[i]);
      }
      return msg;
    }
  }
  return "";
}

} // namespace bench
