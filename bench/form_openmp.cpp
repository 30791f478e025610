// The OpenMP form: each kernel's algorithm hand-written in C++ for the CPU (-O3 -march=native).
#include "forms.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>

namespace bench {

// Defined in openmp_black_scholes.cpp (two builds: with and without vector math).
void blackScholesScalar(float *call, float *put, const float *S, const float *X, const float *T,
                        int n, float R, float V);
void blackScholesVectorMath(float *call, float *put, const float *S, const float *X,
                            const float *T, int n, float R, float V);

namespace {

void vectorAdd(const float *a, const float *b, float *c, int n) {
#pragma omp parallel for simd schedule(static)
  for (int i = 0; i < n; ++i) {
    c[i] = a[i] + b[i];
  }
}

void saxpy(float alpha, const float *x, float *y, int n) {
#pragma omp parallel for simd schedule(static)
  for (int i = 0; i < n; ++i) {
    y[i] = alpha * x[i] + y[i];
  }
}

void reduceBlocks(const float *in, float *partial, int blocks) {
  const int perBlock = kReduceThreads * kReducePerThread;
#pragma omp parallel for schedule(static)
  for (int b = 0; b < blocks; ++b) {
    const float *p = in + static_cast<size_t>(b) * perBlock;
    float s = 0.0f;
#pragma omp simd reduction(+ : s)
    for (int i = 0; i < perBlock; ++i) {
      s += p[i];
    }
    partial[b] = s;
  }
}

// Cache-blocked SGEMM: a 64-row by 256-column tile of C stays in L1/L2 while 256-deep panels
// of A and B stream past it; the inner loop is a vector FMA along a row of B.
void sgemm(const float *A, const float *B, float *C, int n) {
  constexpr int MB = 64, NB = 256, KB = 256;
#pragma omp parallel for collapse(2) schedule(static)
  for (int ib = 0; ib < n; ib += MB) {
    for (int jb = 0; jb < n; jb += NB) {
      alignas(64) float acc[MB][NB];
      std::memset(acc, 0, sizeof(acc));
      for (int kb = 0; kb < n; kb += KB) {
        for (int i = 0; i < MB; ++i) {
          const float *a = A + static_cast<size_t>(ib + i) * n + kb;
          for (int k = 0; k < KB; ++k) {
            const float aik = a[k];
            const float *b = B + static_cast<size_t>(kb + k) * n + jb;
#pragma omp simd aligned(acc : 64)
            for (int j = 0; j < NB; ++j) {
              acc[i][j] += aik * b[j];
            }
          }
        }
      }
      for (int i = 0; i < MB; ++i) {
        std::memcpy(C + static_cast<size_t>(ib + i) * n + jb, acc[i], sizeof(acc[i]));
      }
    }
  }
}

// Per-thread private bins, merged at the end.
void histogram(const uint32_t *words, unsigned nwords, uint32_t *hist) {
  std::memset(hist, 0, 256 * sizeof(uint32_t));
  const unsigned char *bytes = reinterpret_cast<const unsigned char *>(words);
  const size_t n = static_cast<size_t>(nwords) * 4;
#pragma omp parallel
  {
    uint32_t local[256] = {0};
#pragma omp for schedule(static)
    for (size_t i = 0; i < n; ++i) {
      ++local[bytes[i]];
    }
    for (int b = 0; b < 256; ++b) {
#pragma omp atomic
      hist[b] += local[b];
    }
  }
}

void stencil(const float *in, float *out, int w, int h, float center, float neighbour) {
#pragma omp parallel for schedule(static)
  for (int y = 0; y < h; ++y) {
    const float *r = in + static_cast<size_t>(y) * w;
    float *o = out + static_cast<size_t>(y) * w;
    if (y == 0 || y == h - 1) {
      std::memcpy(o, r, sizeof(float) * w);
      continue;
    }
    o[0] = r[0];
    o[w - 1] = r[w - 1];
#pragma omp simd
    for (int x = 1; x < w - 1; ++x) {
      o[x] = center * r[x] + neighbour * (r[x - 1] + r[x + 1] + r[x - w] + r[x + w]);
    }
  }
}

class OpenMPForm final : public Form {
public:
  explicit OpenMPForm(bool vectorMath) : vectorMath_(vectorMath) {}

  std::string name() const override { return vectorMath_ ? "OpenMP+vecmath" : "OpenMP"; }
  std::string describe() const override {
    return std::to_string(omp_get_max_threads()) + " threads" +
           (vectorMath_ ? ", -ffast-math (glibc libmvec)" : "");
  }
  bool supports(Kernel k) const override { return !vectorMath_ || k == Kernel::BlackScholes; }

  std::string prepare(const Problem &p, double &setupMs) override {
    setupMs = 0.0;
    p_ = &p;
    bufs_ = p.buffers;
    return "";
  }

  std::string run() override {
    std::vector<Array> &b = bufs_;
    switch (p_->kernel) {
    case Kernel::VectorAdd:
      vectorAdd(b[0].f.data(), b[1].f.data(), b[2].f.data(), kVectorN);
      break;
    case Kernel::Saxpy:
      saxpy(kSaxpyAlpha, b[0].f.data(), b[1].f.data(), kVectorN);
      break;
    case Kernel::Reduce:
      reduceBlocks(b[0].f.data(), b[1].f.data(), static_cast<int>(p_->grid[0]));
      break;
    case Kernel::Sgemm:
      sgemm(b[0].f.data(), b[1].f.data(), b[2].f.data(), kSgemmN);
      break;
    case Kernel::Histogram:
      histogram(b[0].u.data(), kHistogramBytes / 4, b[1].u.data());
      break;
    case Kernel::BlackScholes:
      (vectorMath_ ? blackScholesVectorMath : blackScholesScalar)(
          b[0].f.data(), b[1].f.data(), b[2].f.data(), b[3].f.data(), b[4].f.data(), kOptions,
          kRiskFree, kVolatility);
      break;
    case Kernel::Stencil:
      stencil(b[0].f.data(), b[1].f.data(), kStencilN, kStencilN, kStencilCenter,
              kStencilNeighbour);
      break;
    case Kernel::Empty:
      return emptyRegion();
    }
    return "";
  }

  std::string fetch(std::vector<Array> &outputs) override {
    outputs.clear();
    for (int o : p_->outputs) {
      outputs.push_back(bufs_[o]);
    }
    return "";
  }

  void release() override { bufs_.clear(); }

  // Launch + wait is a parallel region with an empty body; OpenMP has no queue.
  std::string emptyLaunches(int count, bool queued, double &secondsPerLaunch) override {
    if (queued) {
      secondsPerLaunch = std::numeric_limits<double>::quiet_NaN();
      return "";
    }
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) {
      emptyRegion();
    }
    secondsPerLaunch =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / count;
    return "";
  }

private:
  static std::string emptyRegion() {
#pragma omp parallel
    {
      asm volatile("" ::: "memory");
    }
    return "";
  }

  bool vectorMath_;
  const Problem *p_ = nullptr;
  std::vector<Array> bufs_;
};

} // namespace

std::unique_ptr<Form> makeOpenMPForm() { return std::make_unique<OpenMPForm>(false); }
std::unique_ptr<Form> makeOpenMPVectorMathForm() { return std::make_unique<OpenMPForm>(true); }

} // namespace bench
