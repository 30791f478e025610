// Machine-limit probes run in the same process as the kernels: triad bandwidth and FMA peak.
#ifndef CUCPU_BENCH_PROBES_H
#define CUCPU_BENCH_PROBES_H

namespace bench {

// One STREAM-style triad a[i] = b[i] + s * c[i] over 2^25 floats per array with OpenMP;
// returns GB/s counting 12 bytes per element (reads and writes, no write-allocate).
double triadGBps();

// Independent 512-bit (or 256-bit) FMA chains on every OpenMP thread; returns GFLOP/s.
double fmaPeakGflops();

} // namespace bench

#endif
