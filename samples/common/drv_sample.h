// Shared helpers for the driver-API samples: CUresult checks, context creation, PTX loading.
#ifndef CUCPU_SAMPLES_DRV_SAMPLE_H
#define CUCPU_SAMPLES_DRV_SAMPLE_H

#include <cuda.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace sample {

// Prints the failing call and the error's name, then "Result = FAIL", and exits with status 1.
// Resources still held are reclaimed by the driver when the process exits.
[[noreturn]] inline void fail(const char *call, CUresult res, const char *file, int line) {
  const char *name = nullptr;
  if (cuGetErrorName(res, &name) != CUDA_SUCCESS || name == nullptr) {
    name = "<unknown CUresult>";
  }
  std::fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, name,
               static_cast<int>(res));
  std::printf("Result = FAIL\n");
  std::fflush(stdout);
  std::exit(EXIT_FAILURE);
}

inline void check(CUresult res, const char *call, const char *file, int line) {
  if (res != CUDA_SUCCESS) {
    fail(call, res, file, line);
  }
}

// The stringized call names the API as written (cuMemAlloc, not the _v2 it maps to).
#define CHECK_CU(call) ::sample::check((call), #call, __FILE__, __LINE__)

// Directory holding the running executable (from /proc/self/exe), without a trailing slash.
inline std::string exeDir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) {
    return ".";
  }
  buf[n] = '\0';
  std::string path(buf);
  std::string::size_type slash = path.rfind('/');
  if (slash == std::string::npos) {
    return ".";
  }
  return slash == 0 ? std::string("/") : path.substr(0, slash);
}

// Whole file as a string; exits with "Result = FAIL" when it cannot be read.
inline std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::in | std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    std::printf("Result = FAIL\n");
    std::exit(EXIT_FAILURE);
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Creates a context on dev. CUDA 13 headers map cuCtxCreate to cuCtxCreate_v4, which takes an
// optional CUctxCreateParams; older headers map it to the three-argument cuCtxCreate_v2.
inline CUcontext createContext(CUdevice dev) {
  CUcontext ctx = nullptr;
#if defined(CUDA_VERSION) && CUDA_VERSION >= 13000
  CHECK_CU(cuCtxCreate(&ctx, nullptr, 0, dev));
#else
  CHECK_CU(cuCtxCreate(&ctx, 0, dev));
#endif
  return ctx;
}

// Initializes the driver, picks device 0, prints its name, and creates a context on it.
inline CUcontext initDevice(CUdevice *devOut) {
  CHECK_CU(cuInit(0));
  int count = 0;
  CHECK_CU(cuDeviceGetCount(&count));
  if (count < 1) {
    std::fprintf(stderr, "no CUDA device found\n");
    std::printf("Result = FAIL\n");
    std::exit(EXIT_FAILURE);
  }
  CUdevice dev = 0;
  CHECK_CU(cuDeviceGet(&dev, 0));
  char name[256] = {};
  CHECK_CU(cuDeviceGetName(name, static_cast<int>(sizeof(name)), dev));
  std::printf("Device 0: %s\n", name);
  *devOut = dev;
  return createContext(dev);
}

// Loads <executable's directory>/<fileName> with cuModuleLoadDataEx, asking for the JIT's error
// and info logs; on failure prints both logs and exits with "Result = FAIL".
inline CUmodule loadModuleNextToExe(const char *fileName) {
  std::string path = exeDir() + "/" + fileName;
  std::string ptx = readFile(path); // c_str() supplies the terminating NUL the driver needs
  std::printf("Loading %s\n", path.c_str());

  const unsigned int logSize = 8192;
  std::vector<char> errorLog(logSize, '\0');
  std::vector<char> infoLog(logSize, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(logSize)),
                    infoLog.data(), reinterpret_cast<void *>(static_cast<uintptr_t>(logSize))};
  const unsigned int numOptions = sizeof(options) / sizeof(options[0]);

  CUmodule module = nullptr;
  CUresult res = cuModuleLoadDataEx(&module, ptx.c_str(), numOptions, options, values);
  if (res != CUDA_SUCCESS) {
    errorLog[logSize - 1] = '\0';
    infoLog[logSize - 1] = '\0';
    std::fprintf(stderr, "JIT error log for %s:\n%s\n", path.c_str(), errorLog.data());
    if (infoLog[0] != '\0') {
      std::fprintf(stderr, "JIT info log:\n%s\n", infoLog.data());
    }
    fail("cuModuleLoadDataEx", res, __FILE__, __LINE__);
  }
  return module;
}

inline std::string realDir(const std::string &path) {
  char buf[PATH_MAX];
  if (realpath(path.c_str(), buf) == nullptr) {
    return path;
  }
  return buf;
}

// Prints which libcuda.so the process has mapped (from /proc/self/maps). When the environment
// variable CUCPU_SAMPLE_EXPECT_DRIVER_DIR is set, returns false unless that library lies in that
// directory: the tests use it to prove that they exercise cucpu's library and no other.
inline bool checkDriverLibrary() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::string driver;
  while (std::getline(maps, line)) {
    std::string::size_type pathStart = line.find('/');
    if (pathStart == std::string::npos) {
      continue;
    }
    std::string path = line.substr(pathStart);
    std::string::size_type slash = path.rfind('/');
    if (path.compare(slash + 1, 10, "libcuda.so") == 0) {
      driver = path;
      break;
    }
  }
  std::printf("Driver library: %s\n", driver.empty() ? "<not found>" : driver.c_str());

  const char *expected = std::getenv("CUCPU_SAMPLE_EXPECT_DRIVER_DIR");
  if (expected == nullptr || expected[0] == '\0') {
    return true;
  }
  if (driver.empty()) {
    std::fprintf(stderr, "no libcuda.so mapped; expected one in %s\n", expected);
    return false;
  }
  std::string driverDir = realDir(driver.substr(0, driver.rfind('/')));
  std::string expectedDir = realDir(expected);
  if (driverDir != expectedDir) {
    std::fprintf(stderr, "driver library is in %s, expected %s\n", driverDir.c_str(),
                 expectedDir.c_str());
    return false;
  }
  return true;
}

// Deterministic pseudo-random numbers (64-bit LCG), so that runs are reproducible.
class Lcg {
public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  uint32_t next() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(state_ >> 33);
  }
  // Uniform in [0, 1).
  float nextFloat() { return static_cast<float>(next() >> 7) * (1.0f / 16777216.0f); }

private:
  uint64_t state_;
};

} // namespace sample

#endif // CUCPU_SAMPLES_DRV_SAMPLE_H
