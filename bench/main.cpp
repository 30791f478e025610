// cucpu-bench: the bench kernels as CUDA on cucpu, OpenCL on PoCL and OpenMP, side by side.
#include "bench.h"
#include "forms.h"
#include "probes.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace bench {
namespace {

// Pause before each timed run, longer than other runtimes' idle spinning.
constexpr int kQuietMs = 20;

struct Options {
  int threads = 0;
  int reps = 9;
  std::vector<Kernel> kernels;
  std::vector<std::string> forms{"cucpu", "pocl", "openmp"};
};

const std::vector<std::pair<std::string, Kernel>> kKernelNames = {
    {"vectorAdd", Kernel::VectorAdd}, {"saxpy", Kernel::Saxpy},
    {"reduce", Kernel::Reduce},       {"sgemm", Kernel::Sgemm},
    {"histogram", Kernel::Histogram}, {"blackscholes", Kernel::BlackScholes},
    {"stencil", Kernel::Stencil},     {"empty", Kernel::Empty}};

void usage(FILE *out) {
  std::fprintf(out,
               "usage: cucpu-bench [--threads N] [--reps N] [--only K[,K...]] [--forms F[,F...]]\n"
               "  --threads N  threads for every form (default: online CPUs): sets OMP_NUM_THREADS,\n"
               "               POCL_MAX_PTHREAD_COUNT (+ POCL_AFFINITY=1) and CUCPU_THREADS\n"
               "  --reps N     timed repetitions per form and kernel, interleaved (default 9, min 7)\n"
               "  --forms F    forms to run: cucpu, pocl, openmp (default: all three)\n"
               "  --only K     kernels to run:");
  for (const auto &[n, k] : kKernelNames) {
    std::fprintf(out, " %s", n.c_str());
  }
  std::fprintf(out, "\n");
}

bool parse(int argc, char **argv, Options &o) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  o.threads = cpus > 0 ? static_cast<int>(cpus) : 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--threads") {
      o.threads = std::atoi(value().c_str());
    } else if (a == "--reps") {
      o.reps = std::atoi(value().c_str());
    } else if (a == "--only") {
      std::stringstream list(value());
      std::string name;
      while (std::getline(list, name, ',')) {
        auto it = std::find_if(kKernelNames.begin(), kKernelNames.end(),
                               [&](const auto &e) { return strcasecmp(e.first.c_str(), name.c_str()) == 0; });
        if (it == kKernelNames.end()) {
          std::fprintf(stderr, "cucpu-bench: unknown kernel '%s'\n", name.c_str());
          return false;
        }
        o.kernels.push_back(it->second);
      }
    } else if (a == "--forms") {
      o.forms.clear();
      std::stringstream list(value());
      std::string name;
      while (std::getline(list, name, ',')) {
        if (name != "cucpu" && name != "pocl" && name != "openmp") {
          std::fprintf(stderr, "cucpu-bench: unknown form '%s'\n", name.c_str());
          return false;
        }
        o.forms.push_back(name);
      }
    } else if (a == "-h" || a == "--help") {
      usage(stdout);
      std::exit(0);
    } else {
      std::fprintf(stderr, "cucpu-bench: unknown argument '%s'\n", a.c_str());
      return false;
    }
  }
  if (o.threads < 1 || o.reps < 7) {
    std::fprintf(stderr, "cucpu-bench: --threads must be >= 1 and --reps >= 7\n");
    return false;
  }
  if (o.kernels.empty()) {
    for (const auto &e : kKernelNames) {
      o.kernels.push_back(e.second);
    }
  }
  return true;
}

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string exeDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) {
    return ".";
  }
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.rfind('/'));
}

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

struct Stats {
  double median = NAN, min = NAN, max = NAN;
  bool ok() const { return !std::isnan(median); }
};

Stats stats(std::vector<double> v) {
  Stats s;
  if (v.empty()) {
    return s;
  }
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  s.min = v.front();
  s.max = v.back();
  return s;
}

// One row of the results table: per-form statistics in the row's unit (ms or µs).
struct Row {
  Kernel kernel;
  std::string variant;      // "", "queued" (empty kernel) or "vecmath" (Black-Scholes)
  std::string label;
  std::string unit;
  std::map<std::string, Stats> byForm;
  std::string limitName;    // "triad" or "FMA peak"
  double workPerRun = 0.0;  // bytes or flops
  bool compute = false;     // flops against the FMA peak, else bytes against triad
  double triad = NAN;       // median triad GB/s and FMA GFLOP/s probed between this row's reps
  double peak = NAN;
};

std::string cell(const Stats &s) {
  if (!s.ok()) {
    return "—";
  }
  char buf[96];
  int prec = s.median < 10 ? 2 : (s.median < 100 ? 1 : 0);
  std::snprintf(buf, sizeof buf, "%.*f (%.*f–%.*f)", prec, s.median, prec, s.min, prec, s.max);
  return buf;
}

std::string ratio(const Stats &a, const Stats &b) {
  if (!a.ok() || !b.ok()) {
    return "—";
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", a.median / b.median);
  return buf;
}

double msToSeconds(const Row &r, double v) { return r.unit == "µs" ? v / 1e6 : v / 1e3; }

std::string fraction(const Row &r, const Stats &s) {
  if (!s.ok() || r.workPerRun == 0.0) {
    return "—";
  }
  double sec = msToSeconds(r, s.median);
  double achieved = r.workPerRun / sec / 1e9;
  double limit = r.compute ? r.peak : r.triad;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f%% (%.1f %s)", 100.0 * achieved / limit, achieved,
                r.compute ? "GFLOP/s" : "GB/s");
  return buf;
}

// The targets of issue 5, checked against this run's medians.
// First results in fresh processes (this program run with --first-result): cold, with an empty
// code cache, then warm, from the cache the cold run filled (median of three).
struct FreshStarts {
  double coldMs = NAN;
  double warmMs = NAN;
};

// --first-result DIR: with cucpu's code cache in DIR, the cold-start figure of the main run in a
// process of its own: cuInit + primary context, module load, and the first vectorAdd launch to
// its completion (buffers are allocated and filled outside the clock; the result is verified).
int firstResult(const char *cacheDir) {
  setenv("CUDA_CACHE_PATH", cacheDir, 1);
  Problem p = makeProblem(Kernel::VectorAdd);
  double initMs = 0.0, loadMs = 0.0, runMs = 0.0;
  std::string err;
  auto form = makeCudaForm(exeDir() + "/cuda", initMs, err);
  std::vector<Array> got;
  if (form) {
    err = form->prepare(p, loadMs);
  }
  if (form && err.empty()) {
    auto t0 = std::chrono::steady_clock::now();
    err = form->run();
    runMs = msSince(t0);
  }
  if (form && err.empty()) {
    err = form->fetch(got);
  }
  if (err.empty()) {
    err = verify(p, got);
  }
  if (!err.empty()) {
    std::fprintf(stderr, "cucpu-bench --first-result: %s\n", err.c_str());
    return 1;
  }
  std::printf("%.3f\n", initMs + loadMs + runMs);
  return 0;
}

double childFirstResult(const std::string &cacheDir) {
  std::string cmd = "'" + exeDir() + "/cucpu-bench' --first-result '" + cacheDir + "'";
  FILE *f = popen(cmd.c_str(), "r");
  if (f == nullptr) {
    return NAN;
  }
  double ms = NAN;
  if (std::fscanf(f, "%lf", &ms) != 1) {
    ms = NAN;
  }
  return pclose(f) == 0 ? ms : NAN;
}

FreshStarts measureFreshStarts() {
  FreshStarts r;
  char dir[] = "/tmp/cucpu-bench-cache-XXXXXX";
  if (mkdtemp(dir) == nullptr) {
    return r;
  }
  r.coldMs = childFirstResult(dir);
  std::vector<double> warm;
  for (int i = 0; i < 3; ++i) {
    warm.push_back(childFirstResult(dir));
  }
  std::sort(warm.begin(), warm.end());
  r.warmMs = warm[1];
  std::filesystem::remove_all(dir);
  return r;
}

void printTargets(const std::vector<Row> &rows, const FreshStarts &fresh) {
  auto median = [&](Kernel k, const char *variant, const char *form) {
    for (const Row &r : rows) {
      if (r.kernel == k && r.variant == variant && r.byForm.count(form)) {
        return r.byForm.at(form).median;
      }
    }
    return static_cast<double>(NAN);
  };
  auto name = [](Kernel k) {
    for (const auto &[n, kk] : kKernelNames) {
      if (kk == k) {
        return n;
      }
    }
    return std::string();
  };
  std::printf("\n## Targets (issue 5)\n\n| target | this run | met |\n|---|---|---|\n");
  auto line = [](const std::string &target, double value, const char *fmt, bool known, bool met) {
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, value);
    std::printf("| %s | %s | %s |\n", target.c_str(), known ? buf : "not measured",
                !known ? "—" : (met ? "yes" : "**no**"));
  };
  double logOmp = 0.0;
  int nOmp = 0;
  for (const auto &[n, k] : kKernelNames) {
    double c = median(k, "", "cucpu"), pc = median(k, "", "PoCL"), om = median(k, "", "OpenMP");
    bool strict = k == Kernel::Reduce || k == Kernel::Sgemm || k == Kernel::Histogram;
    line(n + ": cucpu/PoCL <= " + (strict ? "0.10" : "0.33"), c / pc, "%.2f",
         !std::isnan(c / pc), c / pc <= (strict ? 0.10 : 1.0 / 3.0));
    if (k != Kernel::Empty && !std::isnan(c / om)) {
      logOmp += std::log(c / om);
      ++nOmp;
    }
  }
  line("geometric mean cucpu/OpenMP (7 kernels) <= 1.25", std::exp(logOmp / std::max(nOmp, 1)),
       "%.2f", nOmp == 7, std::exp(logOmp / std::max(nOmp, 1)) <= 1.25);
  for (Kernel k : {Kernel::VectorAdd, Kernel::Saxpy, Kernel::Stencil}) {
    double bytes = NAN, triad = NAN;
    for (const Row &r : rows) {
      if (r.kernel == k) {
        bytes = r.workPerRun;
        triad = r.triad;
      }
    }
    double gbps = bytes / (median(k, "", "cucpu") / 1e3) / 1e9;
    line(name(k) + ": >= 85% of triad", 100.0 * gbps / triad, "%.0f%%", !std::isnan(gbps),
         gbps >= 0.85 * triad);
  }
  double bs = median(Kernel::BlackScholes, "", "cucpu") /
              median(Kernel::BlackScholes, "vecmath", "OpenMP");
  line("Black-Scholes: cucpu/OpenMP vector math <= 1", bs, "%.2f", !std::isnan(bs), bs <= 1.0);
  double wait = median(Kernel::Empty, "", "cucpu"), queued = median(Kernel::Empty, "queued", "cucpu");
  line("empty launch + wait <= 5 µs", wait, "%.2f µs", !std::isnan(wait), wait <= 5.0);
  line("queued launches <= 2 µs each", queued, "%.2f µs", !std::isnan(queued), queued <= 2.0);
  line("first result in a fresh process <= 150 ms", fresh.coldMs, "%.0f ms",
       !std::isnan(fresh.coldMs), fresh.coldMs <= 150.0);
  line("first result with a warm on-disk cache <= 20 ms", fresh.warmMs, "%.1f ms",
       !std::isnan(fresh.warmMs), fresh.warmMs <= 20.0);
}

} // namespace

int run(int argc, char **argv) {
  Options opt;
  if (!parse(argc, argv, opt)) {
    usage(stderr);
    return 2;
  }

  // Thread counts, before any runtime starts: libgomp has already read its environment when the
  // program was loaded, so OpenMP is also told through omp_set_num_threads.
  std::string n = std::to_string(opt.threads);
  setenv("OMP_NUM_THREADS", n.c_str(), 1);
  setenv("POCL_MAX_PTHREAD_COUNT", n.c_str(), 1);
  setenv("POCL_AFFINITY", "1", 1);
  // PoCL compiles into a kernel cache of its own for this run, so its compile times are cold.
  char cacheDir[] = "/tmp/cucpu-bench-pocl-XXXXXX";
  if (mkdtemp(cacheDir) != nullptr) {
    setenv("POCL_CACHE_DIR", cacheDir, 1);
  }
  setenv("CUCPU_THREADS", n.c_str(), 1);
  omp_set_num_threads(opt.threads);
  // cucpu's code cache also starts empty, so its first launches compile.
  char cucpuCacheDir[] = "/tmp/cucpu-bench-cache-XXXXXX";
  if (mkdtemp(cucpuCacheDir) != nullptr) {
    setenv("CUDA_CACHE_PATH", cucpuCacheDir, 1);
  }

  std::printf("# cucpu-bench: %d threads, %d interleaved repetitions, medians (min–max)\n",
              opt.threads, opt.reps);
  std::printf("load average at start: %s\n", loadAverage().c_str());

  // Machine limits (repeated at the end; the best of all runs is the limit, as STREAM does).
  std::vector<double> triads, peaks;
  for (int i = 0; i < 10; ++i) {
    triads.push_back(triadGBps());
  }
  for (int i = 0; i < 5; ++i) {
    peaks.push_back(fmaPeakGflops());
  }

  // Forms. cucpu's cold start is measured from cuInit to the first kernel's first result.
  const std::string dir = exeDir();
  std::vector<std::unique_ptr<Form>> forms;
  std::string err;
  auto wanted = [&](const char *f) {
    return std::find(opt.forms.begin(), opt.forms.end(), f) != opt.forms.end();
  };
  double cuInitMs = 0.0;
  if (!wanted("cucpu")) {
  } else if (auto f = makeCudaForm(dir + "/cuda", cuInitMs, err)) {
    forms.push_back(std::move(f));
  } else {
    std::printf("cucpu: cannot start: %s\n", err.c_str());
  }
  double poclPlatformMs = NAN, poclColdBuildMs = NAN, poclWarmBuildMs = NAN;
#ifdef CUCPU_BENCH_OPENCL
  std::ifstream clFile(dir + "/kernels.cl");
  std::stringstream clSource;
  clSource << clFile.rdbuf();
  if (!wanted("pocl")) {
  } else if (!clFile) {
    std::printf("PoCL: missing (cannot read %s/kernels.cl)\n", dir.c_str());
  } else if (auto f = makeOpenCLForm(clSource.str(), poclPlatformMs, poclColdBuildMs,
                                              poclWarmBuildMs, err)) {
    forms.push_back(std::move(f));
  } else {
    std::printf("PoCL: missing or failed, its column stays empty: %s\n", err.c_str());
  }
#else
  if (wanted("pocl"))
  std::printf("PoCL: missing (built without OpenCL: run scripts/install-bench-deps.sh and "
              "reconfigure)\n");
#endif
  if (wanted("openmp")) {
    forms.push_back(makeOpenMPForm());
    forms.push_back(makeOpenMPVectorMathForm());
  }
  for (const auto &f : forms) {
    std::printf("%-15s %s\n", f->name().c_str(), f->describe().c_str());
  }
  std::fflush(stdout);

  std::vector<Row> rows;
  std::vector<std::string> compileLines;
  double coldFirstResultMs = NAN;
  std::string coldKernel;
  for (Kernel k : opt.kernels) {
    auto tRef = std::chrono::steady_clock::now();
    Problem p = makeProblem(k);
    std::printf("\n## %s  (inputs + serial reference %.0f ms)\n", p.name.c_str(), msSince(tRef));

    std::vector<Form *> active;
    std::map<std::string, double> firstMs, setupMs;
    for (const auto &f : forms) {
      if (!f->supports(k)) {
        continue;
      }
      double setup = 0.0;
      std::string e = f->prepare(p, setup);
      std::vector<Array> got;
      double first = NAN;
      if (e.empty()) {
        double perLaunch = 0.0;
        auto t0 = std::chrono::steady_clock::now();
        e = k == Kernel::Empty ? f->emptyLaunches(1, false, perLaunch) : f->run();
        first = msSince(t0);
      }
      if (e.empty() && k != Kernel::Empty) {
        e = f->fetch(got);
        if (e.empty()) {
          e = verify(p, got);
          e = e.empty() ? "" : "wrong result: " + e;
        }
      }
      if (!e.empty()) {
        std::printf("%s FAILED: %s\n", f->name().c_str(), e.c_str());
        f->release();
        continue;
      }
      std::printf("%s %s\n", f->name().c_str(),
                  k == Kernel::Empty ? "ready (nothing to verify)" : "verified");
      setupMs[f->name()] = setup;
      firstMs[f->name()] = first;
      if (f->name() == "cucpu" && std::isnan(coldFirstResultMs)) {
        coldFirstResultMs = cuInitMs + setup + first;
        coldKernel = p.name;
      }
      active.push_back(f.get());
    }
    std::fflush(stdout);

    // One more warm-up run each, then the interleaved timed repetitions.
    std::map<std::string, std::vector<double>> samples, queuedSamples;
    std::vector<double> rowTriads, rowPeaks;
    std::vector<Form *> failed;
    // The order rotates every repetition, so that no form always runs after the same one.
    for (int rep = -1; rep < opt.reps; ++rep) {
      for (size_t i = 0; i < active.size(); ++i) {
        Form *f = active[(i + static_cast<size_t>(rep + 1)) % active.size()];
        if (std::find(failed.begin(), failed.end(), f) != failed.end()) {
          continue;
        }
        std::string e;
        // Every timed run starts on a quiet machine: the runtime that ran before may still
        // be busy-waiting (libgomp's idle threads spin for milliseconds after a parallel
        // region, the limit probes included), which would take a core from this form.
        std::this_thread::sleep_for(std::chrono::milliseconds(kQuietMs));
        if (k == Kernel::Empty) {
          double per = 0.0, perQueued = 0.0;
          e = f->emptyLaunches(kEmptyLaunches, false, per);
          if (e.empty()) {
            e = f->emptyLaunches(kEmptyLaunches, true, perQueued);
          }
          if (rep >= 0 && e.empty()) {
            samples[f->name()].push_back(per * 1e6);
            if (!std::isnan(perQueued)) {
              queuedSamples[f->name()].push_back(perQueued * 1e6);
            }
          }
        } else {
          auto t0 = std::chrono::steady_clock::now();
          e = f->run();
          if (rep >= 0) {
            samples[f->name()].push_back(msSince(t0));
          }
        }
        if (!e.empty()) {
          std::printf("%s FAILED during timing: %s\n", f->name().c_str(), e.c_str());
          samples.erase(f->name());
          failed.push_back(f);
        }
      }
      // The limits are probed between the repetitions too, under the same load as the kernels.
      if (rep >= 0) {
        rowTriads.push_back(triadGBps());
        rowPeaks.push_back(fmaPeakGflops());
      }
    }
    triads.insert(triads.end(), rowTriads.begin(), rowTriads.end());
    peaks.insert(peaks.end(), rowPeaks.begin(), rowPeaks.end());
    for (Form *f : active) {
      f->release();
    }

    Row row;
    row.kernel = k;
    row.label = p.name;
    row.unit = k == Kernel::Empty ? "µs" : "ms";
    row.workPerRun = p.flops > 0 ? p.flops : p.bytes;
    row.compute = p.flops > 0;
    row.triad = stats(rowTriads).median;
    row.peak = stats(rowPeaks).median;
    for (auto &[name, v] : samples) {
      row.byForm[name] = stats(v);
    }
    for (const std::string name : {"cucpu", "PoCL"}) {
      if (firstMs.count(name) == 0 || !row.byForm[name].ok()) {
        continue;
      }
      double steady = k == Kernel::Empty ? row.byForm[name].median / 1e3 : row.byForm[name].median;
      char line[256];
      std::snprintf(line, sizeof line,
                    "| %s | %s | %.1f | %.1f | %.1f |", p.name.c_str(), name.c_str(),
                    setupMs[name], firstMs[name], firstMs[name] - steady);
      compileLines.push_back(line);
    }
    if (k == Kernel::Empty) {
      Row queued = row;
      queued.variant = "queued";
      queued.label = "empty 1 x 32, queued launches";
      queued.byForm.clear();
      for (auto &[name, v] : queuedSamples) {
        queued.byForm[name] = stats(v);
      }
      row.label = "empty 1 x 32, launch + wait";
      rows.push_back(row);
      rows.push_back(queued);
    } else if (k == Kernel::BlackScholes) {
      Row vec = row;
      vec.variant = "vecmath";
      vec.label = "Black-Scholes vs OpenMP with vector math";
      vec.byForm.erase("PoCL");
      vec.byForm["OpenMP"] = row.byForm["OpenMP+vecmath"];
      rows.push_back(row);
      rows.push_back(vec);
    } else {
      rows.push_back(row);
    }
    std::fflush(stdout);
  }

  for (int i = 0; i < 10; ++i) {
    triads.push_back(triadGBps());
  }
  for (int i = 0; i < 5; ++i) {
    peaks.push_back(fmaPeakGflops());
  }
  const double triad = *std::max_element(triads.begin(), triads.end());
  const double peak = *std::max_element(peaks.begin(), peaks.end());
  Stats triadS = stats(triads), peakS = stats(peaks);

  std::printf("\n# Results (%d threads, %d reps; load average at end: %s)\n\n", opt.threads,
              opt.reps, loadAverage().c_str());
  std::printf("Machine limits over the whole run (best; median; min–max): triad %.1f GB/s "
              "(%.1f; %.1f–%.1f), FMA peak %.0f GFLOP/s (%.0f; %.0f–%.0f)\n\n",
              triad, triadS.median, triadS.min, triadS.max, peak, peakS.median, peakS.min,
              peakS.max);
  std::printf("| kernel | unit | cucpu | PoCL | OpenMP | cucpu/PoCL | cucpu/OpenMP | cucpu of limit "
              "| OpenMP of limit | limit during the row |\n"
              "|---|---|---|---|---|---|---|---|---|---|\n");
  double logPocl = 0.0, logOmp = 0.0;
  int nPocl = 0, nOmp = 0;
  for (const Row &r : rows) {
    auto get = [&](const char *f) { return r.byForm.count(f) ? r.byForm.at(f) : Stats{}; };
    Stats c = get("cucpu"), pc = get("PoCL"), om = get("OpenMP");
    char limit[64] = "—";
    if (r.workPerRun > 0.0) {
      std::snprintf(limit, sizeof limit, r.compute ? "FMA %.0f GFLOP/s" : "triad %.1f GB/s",
                    r.compute ? r.peak : r.triad);
    }
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.label.c_str(),
                r.unit.c_str(), cell(c).c_str(), cell(pc).c_str(), cell(om).c_str(),
                ratio(c, pc).c_str(), ratio(c, om).c_str(), fraction(r, c).c_str(),
                fraction(r, om).c_str(), limit);
    bool geoRow = r.kernel != Kernel::Empty && r.variant.empty();
    if (geoRow && c.ok() && pc.ok()) {
      logPocl += std::log(c.median / pc.median);
      ++nPocl;
    }
    if (geoRow && c.ok() && om.ok()) {
      logOmp += std::log(c.median / om.median);
      ++nOmp;
    }
  }
  std::printf("\nGeometric mean over the non-empty kernels: cucpu/PoCL %s (%d kernels), "
              "cucpu/OpenMP %s (%d kernels)\n",
              nPocl ? std::to_string(std::exp(logPocl / nPocl)).c_str() : "—", nPocl,
              nOmp ? std::to_string(std::exp(logOmp / nOmp)).c_str() : "—", nOmp);
  std::printf("Limits: bandwidth rows count the bytes the algorithm must read and write (no "
              "write-allocate) against the median triad probed between that row's repetitions; "
              "SGEMM counts 2n^3 flops against the FMA peak probed the same way.\n");

  std::printf("\n## Compile and first-launch times (ms)\n\n");
  FreshStarts fresh;
  if (wanted("cucpu")) {
    fresh = measureFreshStarts();
  }
  std::printf("cucpu: cuInit + primary context %.1f ms; cold start to the first result (%s): "
              "%.1f ms in this process (cuInit + module load + first launch); in fresh "
              "processes (vectorAdd 2^24): %.1f ms with an empty code cache, %.1f ms with a warm "
              "one (median of 3).\n",
              cuInitMs, coldKernel.empty() ? "none" : coldKernel.c_str(), coldFirstResultMs,
              fresh.coldMs, fresh.warmMs);
  std::printf("PoCL: platform + context %.1f ms; clBuildProgram of all kernels %.1f ms cold "
              "(empty kernel cache), %.1f ms warm (from the cache); each kernel is compiled "
              "again for its work-group size at its first launch (cold cache).\n\n",
              poclPlatformMs, poclColdBuildMs, poclWarmBuildMs);
  std::printf("| kernel | form | module load / build | first run | first run − median run |\n"
              "|---|---|---|---|---|\n");
  for (const std::string &l : compileLines) {
    std::printf("%s\n", l.c_str());
  }
  std::filesystem::remove_all(cacheDir);
  std::filesystem::remove_all(cucpuCacheDir);

  printTargets(rows, fresh);
  return 0;
}

} // namespace bench

int main(int argc, char **argv) {
  if (argc == 3 && std::string(argv[1]) == "--first-result") {
    return bench::firstResult(argv[2]);
  }
  return bench::run(argc, argv);
}
