// The OpenCL form: bench/opencl/kernels.cl on PoCL's CPU device, with the CUDA forms' work-groups.
#include "forms.h"

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <chrono>
#include <cstring>

namespace bench {
namespace {

#define CL_TRY(call)                                                                               \
  do {                                                                                             \
    cl_int e_ = (call);                                                                            \
    if (e_ != CL_SUCCESS) {                                                                        \
      return std::string(#call) + " failed: " + std::to_string(e_);                                \
    }                                                                                              \
  } while (0)

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

class OpenCLForm final : public Form {
public:
  ~OpenCLForm() override {
    release();
    if (program_ != nullptr) {
      clReleaseProgram(program_);
    }
    if (queue_ != nullptr) {
      clReleaseCommandQueue(queue_);
    }
    if (ctx_ != nullptr) {
      clReleaseContext(ctx_);
    }
  }

  // Finds PoCL's platform and CPU device, and builds the program twice: into an empty kernel
  // cache (cold), then again from the cache it filled (warm).
  std::string init(const std::string &source, double &platformMs, double &coldBuildMs,
                   double &warmBuildMs) {
    auto t0 = std::chrono::steady_clock::now();
    cl_uint count = 0;
    cl_int e = clGetPlatformIDs(0, nullptr, &count);
    if (e != CL_SUCCESS || count == 0) {
      return "no OpenCL platform (is pocl-opencl-icd installed? scripts/install-bench-deps.sh)";
    }
    std::vector<cl_platform_id> platforms(count);
    CL_TRY(clGetPlatformIDs(count, platforms.data(), nullptr));
    cl_platform_id pocl = nullptr;
    for (cl_platform_id p : platforms) {
      char name[256] = {0};
      clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof(name) - 1, name, nullptr);
      if (std::strstr(name, "Portable Computing Language") != nullptr) {
        pocl = p;
      }
    }
    if (pocl == nullptr) {
      return "OpenCL platforms found, but not PoCL";
    }
    CL_TRY(clGetDeviceIDs(pocl, CL_DEVICE_TYPE_CPU, 1, &device_, nullptr));
    cl_int err = CL_SUCCESS;
    ctx_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &err);
    CL_TRY(err);
    queue_ = clCreateCommandQueue(ctx_, device_, 0, &err);
    CL_TRY(err);
    platformMs = msSince(t0);

    const char *src = source.c_str();
    program_ = clCreateProgramWithSource(ctx_, 1, &src, nullptr, &err);
    CL_TRY(err);
    t0 = std::chrono::steady_clock::now();
    err = clBuildProgram(program_, 1, &device_, "", nullptr, nullptr);
    coldBuildMs = msSince(t0);
    if (err != CL_SUCCESS) {
      char log[8192] = {0};
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, sizeof(log) - 1, log, nullptr);
      return "clBuildProgram failed: " + std::string(log);
    }
    cl_program again = clCreateProgramWithSource(ctx_, 1, &src, nullptr, &err);
    CL_TRY(err);
    t0 = std::chrono::steady_clock::now();
    err = clBuildProgram(again, 1, &device_, "", nullptr, nullptr);
    warmBuildMs = msSince(t0);
    clReleaseProgram(again);
    CL_TRY(err);
    return "";
  }

  std::string name() const override { return "PoCL"; }
  std::string describe() const override {
    char dev[256] = {0}, ver[256] = {0};
    cl_uint units = 0;
    clGetDeviceInfo(device_, CL_DEVICE_NAME, sizeof(dev) - 1, dev, nullptr);
    clGetDeviceInfo(device_, CL_DEVICE_VERSION, sizeof(ver) - 1, ver, nullptr);
    clGetDeviceInfo(device_, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof(units), &units, nullptr);
    return std::string(ver) + ", " + dev + ", " + std::to_string(units) + " compute units";
  }
  bool supports(Kernel) const override { return true; }

  std::string prepare(const Problem &p, double &setupMs) override {
    setupMs = 0.0; // the program was built once, in init
    p_ = &p;
    cl_int err = CL_SUCCESS;
    kernel_ = clCreateKernel(program_, p.entry.c_str(), &err);
    CL_TRY(err);
    for (const Array &a : p.buffers) {
      cl_mem m = clCreateBuffer(ctx_, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, a.bytes(),
                                const_cast<void *>(a.data()), &err);
      CL_TRY(err);
      mems_.push_back(m);
    }
    for (size_t i = 0; i < p.args.size(); ++i) {
      const Arg &a = p.args[i];
      cl_uint idx = static_cast<cl_uint>(i);
      switch (a.kind) {
      case Arg::Buffer:
        CL_TRY(clSetKernelArg(kernel_, idx, sizeof(cl_mem), &mems_[a.buffer]));
        break;
      case Arg::Int:
        CL_TRY(clSetKernelArg(kernel_, idx, 4, &a.i));
        break;
      case Arg::Uint:
        CL_TRY(clSetKernelArg(kernel_, idx, 4, &a.u));
        break;
      case Arg::Float:
        CL_TRY(clSetKernelArg(kernel_, idx, 4, &a.f));
        break;
      }
    }
    for (int d = 0; d < 3; ++d) {
      local_[d] = p.block[d];
      global_[d] = static_cast<size_t>(p.grid[d]) * p.block[d];
    }
    return "";
  }

  std::string run() override {
    for (size_t b = 0; b < p_->zeroEachRun.size(); ++b) {
      if (p_->zeroEachRun[b]) {
        const cl_uint zero = 0;
        CL_TRY(clEnqueueFillBuffer(queue_, mems_[b], &zero, sizeof(zero), 0,
                                   p_->buffers[b].bytes(), 0, nullptr, nullptr));
      }
    }
    CL_TRY(enqueue());
    CL_TRY(clFinish(queue_));
    return "";
  }

  std::string fetch(std::vector<Array> &outputs) override {
    outputs.clear();
    for (int o : p_->outputs) {
      Array a = p_->buffers[o];
      CL_TRY(clEnqueueReadBuffer(queue_, mems_[o], CL_TRUE, 0, a.bytes(), a.data(), 0, nullptr,
                                 nullptr));
      outputs.push_back(std::move(a));
    }
    return "";
  }

  void release() override {
    for (cl_mem m : mems_) {
      clReleaseMemObject(m);
    }
    mems_.clear();
    if (kernel_ != nullptr) {
      clReleaseKernel(kernel_);
      kernel_ = nullptr;
    }
  }

  std::string emptyLaunches(int count, bool queued, double &secondsPerLaunch) override {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < count; ++i) {
      CL_TRY(enqueue());
      if (!queued) {
        CL_TRY(clFinish(queue_));
      }
    }
    CL_TRY(clFinish(queue_));
    secondsPerLaunch = msSince(t0) / 1e3 / count;
    return "";
  }

private:
  cl_int enqueue() {
    cl_uint dims = 1;
    if (p_->block[2] > 1 || p_->grid[2] > 1) {
      dims = 3;
    } else if (p_->block[1] > 1 || p_->grid[1] > 1) {
      dims = 2;
    }
    return clEnqueueNDRangeKernel(queue_, kernel_, dims, nullptr, global_, local_, 0, nullptr,
                                  nullptr);
  }

  cl_device_id device_ = nullptr;
  cl_context ctx_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
  const Problem *p_ = nullptr;
  std::vector<cl_mem> mems_;
  size_t global_[3] = {1, 1, 1};
  size_t local_[3] = {1, 1, 1};
};

} // namespace

std::unique_ptr<Form> makeOpenCLForm(const std::string &clSource, double &platformMs,
                                     double &coldBuildMs, double &warmBuildMs,
                                     std::string &error) {
  auto form = std::make_unique<OpenCLForm>();
  error = form->init(clSource, platformMs, coldBuildMs, warmBuildMs);
  if (!error.empty()) {
    return nullptr;
  }
  return form;
}

} // namespace bench
