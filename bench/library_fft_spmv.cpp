// cucpu-library-fft-spmv-bench: cuFFT's single-precision C2C transforms against FFTW's, and
// cuSPARSE's CSR SpMV against a hand-written OpenMP CSR loop, on the same cores in one run
// (NVIDIA's kernels from the PTX the libraries ship, run by cucpu): milliseconds per call (best
// of three runs of five calls, after a warm-up call that compiles the kernels) and the ratio to
// the CPU code. FFTW (dlopened, as the GEMM bench does OpenBLAS) plans with FFTW_MEASURE and as
// many threads as cucpu has workers. Results are checked against the CPU's.
#include "openblas.h" // bench::bestOf3
#include "openmp_spmv.h"

#include <cuda_runtime.h>
#include <cufft.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <string>
#include <thread>
#include <vector>

namespace {

// Milliseconds per call: the best of three runs of five calls (single calls of a few
// milliseconds vary too much on a shared machine).
template <class F> double perCall(F &&call) {
  return bench::bestOf3([&] {
           for (int i = 0; i < 5; ++i)
             call();
         }) /
         5;
}

// The part of FFTW's API the bench calls (fftw3.h's names and values).
struct Fftw {
  using Plan = void *;
  void *(*malloc)(size_t);
  void (*free)(void *);
  Plan (*planMany)(int, const int *, int, float *, const int *, int, int, float *, const int *, int,
                   int, int, unsigned);
  void (*execute)(Plan);
  void (*destroy)(Plan);
  static constexpr int kForward = -1;
  static constexpr unsigned kMeasure = 0;
};

bool loadFftw(Fftw *f, int threads) {
  void *lib = dlopen("libfftw3f.so.3", RTLD_NOW | RTLD_GLOBAL);
  void *thr = lib ? dlopen("libfftw3f_threads.so.3", RTLD_NOW | RTLD_GLOBAL) : nullptr;
  if (!lib || !thr) {
    std::printf("FFTW (libfftw3f.so.3, libfftw3f_threads.so.3) not found: no FFT comparison\n");
    return false;
  }
  auto init = reinterpret_cast<int (*)()>(dlsym(thr, "fftwf_init_threads"));
  auto withThreads = reinterpret_cast<void (*)(int)>(dlsym(thr, "fftwf_plan_with_nthreads"));
  f->malloc = reinterpret_cast<void *(*)(size_t)>(dlsym(lib, "fftwf_malloc"));
  f->free = reinterpret_cast<void (*)(void *)>(dlsym(lib, "fftwf_free"));
  f->planMany = reinterpret_cast<decltype(f->planMany)>(dlsym(lib, "fftwf_plan_many_dft"));
  f->execute = reinterpret_cast<void (*)(Fftw::Plan)>(dlsym(lib, "fftwf_execute"));
  f->destroy = reinterpret_cast<void (*)(Fftw::Plan)>(dlsym(lib, "fftwf_destroy_plan"));
  if (!init || !withThreads || !f->malloc || !f->planMany || !init())
    return false;
  withThreads(threads);
  return true;
}

// `batch` forward C2C transforms of shape `dims` (1 or 2 dimensions), out of place.
bool fftCase(const Fftw &fftw, std::vector<int> dims, int batch) {
  int points = 1;
  for (int d : dims)
    points *= d;
  const size_t count = size_t(points) * batch;
  auto *in = static_cast<float *>(fftw.malloc(count * 8));
  auto *out = static_cast<float *>(fftw.malloc(count * 8));
  const int rank = int(dims.size());
  Fftw::Plan p = fftw.planMany(rank, dims.data(), batch, in, nullptr, 1, points, out, nullptr, 1,
                               points, Fftw::kForward, Fftw::kMeasure);
  for (size_t i = 0; i < 2 * count; ++i) // after planning: FFTW_MEASURE overwrites the arrays
    in[i] = float(int((i * 2654435761u) % 2001) - 1000) / 1000.0f;
  const double cpuMs = perCall([&] { fftw.execute(p); });

  cufftComplex *din, *dout;
  cudaMalloc(&din, count * 8);
  cudaMalloc(&dout, count * 8);
  cudaMemcpy(din, in, count * 8, cudaMemcpyHostToDevice);
  cufftHandle plan;
  cufftResult st = cufftPlanMany(&plan, rank, dims.data(), nullptr, 1, points, nullptr, 1, points,
                                 CUFFT_C2C, batch);
  auto call = [&] {
    if (st == CUFFT_SUCCESS)
      st = cufftExecC2C(plan, din, dout, CUFFT_FORWARD);
    cudaDeviceSynchronize();
  };
  call(); // compiles the kernels cuFFT picks
  const double ms = perCall(call);
  std::vector<float> got(2 * count);
  cudaMemcpy(got.data(), dout, count * 8, cudaMemcpyDeviceToHost);
  double worst = 0, scale = 1;
  for (size_t i = 0; i < 2 * count; ++i)
    scale = std::max(scale, double(std::fabs(out[i])));
  for (size_t i = 0; i < 2 * count; ++i)
    worst = std::max(worst, std::fabs(double(got[i]) - out[i]) / scale);
  char shape[64];
  if (dims.size() == 1)
    std::snprintf(shape, sizeof shape, "%d x%d", dims[0], batch);
  else
    std::snprintf(shape, sizeof shape, "%dx%d x%d", dims[0], dims[1], batch);
  const bool ok = st == CUFFT_SUCCESS && worst < 1e-5;
  if (ok)
    std::printf("  C2C %-16s FFTW %9.2f ms  cuFFT on cucpu %9.2f ms  ratio %6.1fx\n", shape, cpuMs,
                ms, ms / cpuMs);
  else
    std::printf("  C2C %s: cuFFT status %d, largest difference from FFTW %g\n", shape, int(st),
                worst);
  cufftDestroy(plan);
  cudaFree(din);
  cudaFree(dout);
  fftw.destroy(p);
  fftw.free(in);
  fftw.free(out);
  return ok;
}

// y = A x for a `rows` x `rows` CSR matrix with `perRow` nonzeros in each row.
bool spmvCase(int rows, int perRow) {
  bench::Csr a = bench::randomCsr(rows, perRow);
  std::vector<float> x(rows), ref(rows), got(rows);
  for (int i = 0; i < rows; ++i)
    x[i] = float(i % 17) / 8.0f - 1.0f;
  const double cpuMs = perCall([&] { bench::openmpSpmv(a, x.data(), ref.data()); });

  int *doff, *dcol;
  float *dval, *dx, *dy;
  cudaMalloc(&doff, a.offsets.size() * 4);
  cudaMalloc(&dcol, a.columns.size() * 4);
  cudaMalloc(&dval, a.values.size() * 4);
  cudaMalloc(&dx, rows * 4);
  cudaMalloc(&dy, rows * 4);
  cudaMemcpy(doff, a.offsets.data(), a.offsets.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dcol, a.columns.data(), a.columns.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dval, a.values.data(), a.values.size() * 4, cudaMemcpyHostToDevice);
  cudaMemcpy(dx, x.data(), rows * 4, cudaMemcpyHostToDevice);
  cusparseHandle_t h;
  cusparseStatus_t st = cusparseCreate(&h);
  cusparseSpMatDescr_t ma;
  cusparseDnVecDescr_t vx, vy;
  cusparseCreateCsr(&ma, rows, rows, int64_t(a.values.size()), doff, dcol, dval, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseCreateDnVec(&vx, rows, dx, CUDA_R_32F);
  cusparseCreateDnVec(&vy, rows, dy, CUDA_R_32F);
  const float one = 1, zero = 0;
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  size_t bytes = 0;
  if (st == CUSPARSE_STATUS_SUCCESS)
    st = cusparseSpMV_bufferSize(h, op, &one, ma, vx, &zero, vy, CUDA_R_32F,
                                 CUSPARSE_SPMV_ALG_DEFAULT, &bytes);
  void *buf = nullptr;
  cudaMalloc(&buf, bytes + 1);
  auto call = [&] {
    if (st == CUSPARSE_STATUS_SUCCESS)
      st = cusparseSpMV(h, op, &one, ma, vx, &zero, vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf);
    cudaDeviceSynchronize();
  };
  call(); // compiles the kernels cuSPARSE picks
  const double ms = perCall(call);
  cudaMemcpy(got.data(), dy, rows * 4, cudaMemcpyDeviceToHost);
  double worst = 0;
  for (int i = 0; i < rows; ++i)
    worst = std::max(worst, std::fabs(double(got[i]) - ref[i]) / (1 + std::fabs(ref[i])));
  const bool ok = st == CUSPARSE_STATUS_SUCCESS && worst < 1e-4;
  if (ok)
    std::printf(
        "  SpMV %7d rows x %2d  OpenMP %9.2f ms  cuSPARSE on cucpu %9.2f ms  ratio %6.1fx\n", rows,
        perRow, cpuMs, ms, ms / cpuMs);
  else
    std::printf("  SpMV %d rows: cuSPARSE status %d, largest difference from OpenMP %g\n", rows,
                int(st), worst);
  cusparseDestroySpMat(ma);
  cusparseDestroyDnVec(vx);
  cusparseDestroyDnVec(vy);
  cusparseDestroy(h);
  for (void *p : {static_cast<void *>(doff), static_cast<void *>(dcol), static_cast<void *>(dval),
                  static_cast<void *>(dx), static_cast<void *>(dy), buf})
    cudaFree(p);
  return ok;
}

} // namespace

// Usage: cucpu-library-fft-spmv-bench [fft|spmv] (both by default; one of them, e.g. to profile).
int main(int argc, char **argv) {
  const std::string only = argc > 1 ? argv[1] : "";
  const int threads = int(std::max(1u, std::thread::hardware_concurrency()));
  bool ok = true;
  Fftw fftw;
  if (only != "spmv" && loadFftw(&fftw, threads)) {
    std::printf("cuFFT against FFTW (%d threads):\n", threads);
    ok = fftCase(fftw, {1024}, 1024) && ok;
    ok = fftCase(fftw, {16384}, 64) && ok;
    ok = fftCase(fftw, {512, 512}, 4) && ok;
  }
  if (only != "fft") {
    std::printf("cuSPARSE SpMV against OpenMP (%d threads):\n", bench::openmpThreads());
    ok = spmvCase(1 << 18, 16) && ok;
    ok = spmvCase(1 << 20, 8) && ok;
  }
  return ok ? 0 : 1;
}
