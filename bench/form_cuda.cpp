// The CUDA form: the committed nvcc PTX of bench/cuda/ run through cucpu's driver API.
#include "forms.h"

#include <cuda.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

namespace bench {
namespace {

std::string cuError(CUresult r, const char *call) {
  const char *name = nullptr;
  if (cuGetErrorName(r, &name) != CUDA_SUCCESS || name == nullptr) {
    name = "unknown CUresult";
  }
  return std::string(call) + ": " + name;
}

#define CU_TRY(call)                                                                               \
  do {                                                                                             \
    CUresult r_ = (call);                                                                          \
    if (r_ != CUDA_SUCCESS) {                                                                      \
      return cuError(r_, #call);                                                                   \
    }                                                                                              \
  } while (0)

class CudaForm final : public Form {
public:
  explicit CudaForm(std::string ptxDir) : ptxDir_(std::move(ptxDir)) {}

  ~CudaForm() override {
    release();
    if (ctx_ != nullptr) {
      cuCtxDestroy(ctx_);
    }
  }

  std::string init(double &initMs) {
    auto t0 = std::chrono::steady_clock::now();
    CU_TRY(cuInit(0));
    CU_TRY(cuDeviceGet(&dev_, 0));
    CU_TRY(cuDevicePrimaryCtxRetain(&ctx_, dev_));
    CU_TRY(cuCtxSetCurrent(ctx_));
    initMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return "";
  }

  std::string name() const override { return "cucpu"; }
  std::string describe() const override {
    char dev[256] = {0};
    int sms = 0;
    cuDeviceGetName(dev, sizeof(dev) - 1, dev_);
    cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev_);
    return std::string(dev) + ", " + std::to_string(sms) + " worker threads";
  }
  bool supports(Kernel) const override { return true; }

  std::string prepare(const Problem &p, double &setupMs) override {
    p_ = &p;
    std::ifstream in(ptxDir_ + "/" + p.ptxFile, std::ios::binary);
    if (!in) {
      return "cannot read " + ptxDir_ + "/" + p.ptxFile;
    }
    std::ostringstream text;
    text << in.rdbuf();
    std::string ptx = text.str();

    char log[8192] = {0};
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, reinterpret_cast<void *>(sizeof(log))};
    auto t0 = std::chrono::steady_clock::now();
    CUresult r = cuModuleLoadDataEx(&module_, ptx.c_str(), 2, opts, vals);
    setupMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (r != CUDA_SUCCESS) {
      module_ = nullptr;
      return cuError(r, "cuModuleLoadDataEx") + (log[0] ? std::string(": ") + log : "");
    }
    CU_TRY(cuModuleGetFunction(&fn_, module_, p.entry.c_str()));

    for (const Array &a : p.buffers) {
      CUdeviceptr d = 0;
      CU_TRY(cuMemAlloc(&d, a.bytes()));
      ptrs_.push_back(d);
      CU_TRY(cuMemcpyHtoD(d, a.data(), a.bytes()));
    }
    // Kernel parameters: pointers to the values, each kept alive in values_.
    values_.assign(p.args.size(), 0);
    params_.clear();
    for (size_t i = 0; i < p.args.size(); ++i) {
      const Arg &a = p.args[i];
      switch (a.kind) {
      case Arg::Buffer:
        values_[i] = ptrs_[a.buffer];
        break;
      case Arg::Int:
        std::memcpy(&values_[i], &a.i, 4);
        break;
      case Arg::Uint:
        std::memcpy(&values_[i], &a.u, 4);
        break;
      case Arg::Float:
        std::memcpy(&values_[i], &a.f, 4);
        break;
      }
      params_.push_back(&values_[i]);
    }
    return "";
  }

  std::string run() override {
    for (size_t b = 0; b < p_->zeroEachRun.size(); ++b) {
      if (p_->zeroEachRun[b]) {
        CU_TRY(cuMemsetD32(ptrs_[b], 0, p_->buffers[b].bytes() / 4));
      }
    }
    CU_TRY(launch());
    CU_TRY(cuCtxSynchronize());
    return "";
  }

  std::string fetch(std::vector<Array> &outputs) override {
    outputs.clear();
    for (int o : p_->outputs) {
      Array a = p_->buffers[o];
      CU_TRY(cuMemcpyDtoH(a.data(), ptrs_[o], a.bytes()));
      outputs.push_back(std::move(a));
    }
    return "";
  }

  void release() override {
    for (CUdeviceptr d : ptrs_) {
      cuMemFree(d);
    }
    ptrs_.clear();
    if (module_ != nullptr) {
      cuModuleUnload(module_);
      module_ = nullptr;
    }
    fn_ = nullptr;
  }

  std::string emptyLaunches(int count, bool queued, double &secondsPerLaunch) override {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) {
      CU_TRY(launch());
      if (!queued) {
        CU_TRY(cuCtxSynchronize());
      }
    }
    CU_TRY(cuCtxSynchronize());
    secondsPerLaunch =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / count;
    return "";
  }

private:
  CUresult launch() {
    return cuLaunchKernel(fn_, p_->grid[0], p_->grid[1], p_->grid[2], p_->block[0], p_->block[1],
                          p_->block[2], 0, nullptr, params_.empty() ? nullptr : params_.data(),
                          nullptr);
  }

  std::string ptxDir_;
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  CUmodule module_ = nullptr;
  CUfunction fn_ = nullptr;
  const Problem *p_ = nullptr;
  std::vector<CUdeviceptr> ptrs_;
  std::vector<uint64_t> values_;
  std::vector<void *> params_;
};

} // namespace

std::unique_ptr<Form> makeCudaForm(const std::string &ptxDir, double &initMs, std::string &error) {
  auto form = std::make_unique<CudaForm>(ptxDir);
  error = form->init(initMs);
  if (!error.empty()) {
    return nullptr;
  }
  return form;
}

} // namespace bench
