// Shared types of the bench suite: kernels, problems (inputs and reference outputs), forms.
#ifndef CUCPU_BENCH_BENCH_H
#define CUCPU_BENCH_BENCH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bench {

enum class Kernel { VectorAdd, Saxpy, Reduce, Sgemm, Histogram, BlackScholes, Stencil, Empty };

// Problem sizes and launch shapes, the same for every form.
inline constexpr int kVectorN = 1 << 24;
inline constexpr int kReduceThreads = 256;
inline constexpr int kReducePerThread = 512;
inline constexpr int kSgemmN = 1024;
inline constexpr int kSgemmTile = 16;
inline constexpr unsigned kHistogramBytes = 64u << 20;
inline constexpr unsigned kHistogramBlocks = 512;
inline constexpr int kOptions = 4 << 20;
inline constexpr float kRiskFree = 0.02f;
inline constexpr float kVolatility = 0.30f;
inline constexpr int kStencilN = 4096;
inline constexpr float kStencilCenter = 0.5f;
inline constexpr float kStencilNeighbour = 0.125f;
inline constexpr float kSaxpyAlpha = 0.75f;
inline constexpr int kEmptyLaunches = 2000;

// A host array: float or 32-bit unsigned elements.
struct Array {
  bool isFloat = true;
  std::vector<float> f;
  std::vector<uint32_t> u;

  const void *data() const { return isFloat ? static_cast<const void *>(f.data()) : u.data(); }
  void *data() { return isFloat ? static_cast<void *>(f.data()) : u.data(); }
  size_t bytes() const { return 4 * (isFloat ? f.size() : u.size()); }
};

// One kernel argument of the CUDA and OpenCL forms: a buffer index or a 32-bit scalar.
struct Arg {
  enum Kind { Buffer, Int, Uint, Float } kind;
  int buffer = -1;
  int32_t i = 0;
  uint32_t u = 0;
  float f = 0.0f;
};

// Everything a form needs to run one kernel and everything needed to check its result.
struct Problem {
  Kernel kernel;
  std::string name;       // row label
  std::string entry;      // kernel name in the PTX and the OpenCL program
  std::string ptxFile;    // bench/cuda/<ptxFile>
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  std::vector<Array> buffers;   // initial contents, in the order Arg::buffer refers to
  std::vector<bool> zeroEachRun; // buffers cleared (inside the timed region) before every run
  std::vector<int> outputs;     // buffers compared against expected after the first run
  std::vector<Array> expected;  // serial reference, one per outputs entry
  std::vector<Arg> args;
  double absTol = 0.0;          // float outputs match when |got - want| <= absTol + relTol * |want|
  double relTol = 0.0;
  double bytes = 0.0;           // memory traffic the algorithm needs (reads + writes)
  double flops = 0.0;           // floating-point operations (SGEMM only)
};

// Builds the inputs, launch shape and serial reference of a kernel (Empty: shape only).
Problem makeProblem(Kernel k);
// Compares a form's outputs with the reference; returns "" or a description of the first mismatch.
std::string verify(const Problem &p, const std::vector<Array> &got);

// One implementation of the kernels (cucpu, PoCL, OpenMP...). Every call returns "" on success
// or an error message; a form that fails a kernel is skipped for that kernel only.
class Form {
public:
  virtual ~Form() = default;
  virtual std::string name() const = 0;
  virtual std::string describe() const = 0; // device and thread count, as the form reports them
  virtual bool supports(Kernel k) const = 0;
  // Allocates and fills the buffers and loads the kernel's code; setupMs reports the part of it
  // that compiles (module load, program build), 0 when nothing is compiled here.
  virtual std::string prepare(const Problem &p, double &setupMs) = 0;
  virtual std::string run() = 0; // one complete execution, waited for
  virtual std::string fetch(std::vector<Array> &outputs) = 0; // the Problem's outputs, in order
  virtual void release() = 0;
  // Seconds per empty 1 x 32 launch over `count` launches, each waited for, or (queued) all
  // issued and then waited for once. A form without a queue reports NaN for queued.
  virtual std::string emptyLaunches(int count, bool queued, double &secondsPerLaunch) = 0;
};

} // namespace bench

#endif
