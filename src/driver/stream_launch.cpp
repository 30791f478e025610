// Stream launches: copy the caller's parameters, then run driver::launchKernel in stream order.
#include "cucpu/driver/stream_launch.h"

#include "cucpu/driver/context.h"
#include "cucpu/driver/module.h"
#include "cucpu/driver/reason.h"
#include "cucpu/driver/stream.h"
#include "cucpu/jit/program.h"
#include "cucpu/support/env.h"
#include "cucpu/support/log.h"

#include <cstring>
#include <memory>
#include <vector>

namespace cucpu::driver {

CUresult packArgs(const Function *f, void **kernelParams, void **extra, PackedArgs *args) {
  // An `extra` list holding only its end marker passes nothing: an H200 then takes
  // `kernelParams` (tests/gpu/answers/misuse.txt).
  if (extra && extra[0] == CU_LAUNCH_PARAM_END)
    extra = nullptr;
  if (kernelParams && extra)
    return fail(CUDA_ERROR_INVALID_VALUE, "both kernelParams and extra are given");
  if (kernelParams) {
    size_t offset, size;
    std::vector<std::pair<size_t, size_t>> spans; // (position in bytes, size)
    for (size_t i = 0; f->param(i, &offset, &size); ++i) {
      if (!kernelParams[i])
        return fail(CUDA_ERROR_INVALID_VALUE, "kernelParams[{}] is NULL", i);
      spans.emplace_back(args->bytes.size(), size);
      args->bytes.insert(args->bytes.end(), static_cast<unsigned char *>(kernelParams[i]),
                         static_cast<unsigned char *>(kernelParams[i]) + size);
    }
    for (auto [pos, size] : spans)
      args->pointers.push_back(args->bytes.data() + pos);
  } else if (extra) {
    const void *buf = nullptr;
    bool haveSize = false;
    for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
      if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
        buf = extra[i + 1];
      } else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1]) {
        args->bufferSize = *static_cast<size_t *>(extra[i + 1]);
        haveSize = true;
      } else {
        return fail(CUDA_ERROR_INVALID_VALUE,
                    "extra[{}]: not a CU_LAUNCH_PARAM_ marker with a value", i);
      }
    }
    if (!buf || !haveSize || args->bufferSize < f->kernel().paramBytes)
      return fail(CUDA_ERROR_INVALID_VALUE,
                  "extra: a buffer and its size of at least {} bytes are needed for '{}'",
                  f->kernel().paramBytes, f->name());
    args->bytes.assign(static_cast<const unsigned char *>(buf),
                       static_cast<const unsigned char *>(buf) + args->bufferSize);
    args->extra = {CU_LAUNCH_PARAM_BUFFER_POINTER, args->bytes.data(), CU_LAUNCH_PARAM_BUFFER_SIZE,
                   &args->bufferSize, CU_LAUNCH_PARAM_END};
  } else if (size_t offset, size; f->param(0, &offset, &size)) {
    return fail(CUDA_ERROR_INVALID_VALUE, "'{}' has parameters but kernelParams and extra are NULL",
                f->name());
  }
  return CUDA_SUCCESS;
}

namespace {

// Runs one launch of `f` with its packed parameters (a queued launch or a graph's kernel node).
CUresult runPacked(Context *ctx, Function *f, const LaunchConfig &cfg, PackedArgs &args) {
  CUresult r = launchKernel(ctx, f, cfg, args.pointers.empty() ? nullptr : args.pointers.data(),
                            args.extra.empty() ? nullptr : args.extra.data());
  if (r != CUDA_SUCCESS)
    log::error(log::Component::Exec, "kernel {} launched on a stream failed (CUresult {})",
               f->name(), static_cast<int>(r));
  return r;
}

// The launch checked and its parameters copied.
CUresult prepare(Function *f, const LaunchConfig &cfg, void **kernelParams, void **extra,
                 std::shared_ptr<PackedArgs> *out) {
  if (CUresult r = validateLaunch(f, cfg); r != CUDA_SUCCESS)
    return r; // reported by cuLaunchKernel itself, as CUDA does
  auto args = std::make_shared<PackedArgs>();
  if (CUresult r = packArgs(f, kernelParams, extra, args.get()); r != CUDA_SUCCESS)
    return r;
  *out = std::move(args);
  return CUDA_SUCCESS;
}

} // namespace

CUresult kernelNode(Context *ctx, Function *f, const LaunchConfig &cfg, void **kernelParams,
                    void **extra, NodeSpec *out) {
  std::shared_ptr<PackedArgs> args;
  if (CUresult r = prepare(f, cfg, kernelParams, extra, &args); r != CUDA_SUCCESS)
    return r;
  KernelNodeParams k;
  k.function = f;
  k.cfg = cfg;
  k.args = args;
  out->type = CU_GRAPH_NODE_TYPE_KERNEL;
  out->work = [ctx, f, cfg, args] { return runPacked(ctx, f, cfg, *args); };
  out->params = std::move(k);
  return CUDA_SUCCESS;
}

// One closure on the stream: no node description or second wrapper on the launch path.
CUresult enqueueLaunch(Stream *s, Function *f, const LaunchConfig &cfg, void **kernelParams,
                       void **extra) {
  if (CUresult sticky = s->context()->stickyError(); sticky != CUDA_SUCCESS)
    return sticky;
  std::shared_ptr<PackedArgs> args;
  if (CUresult r = prepare(f, cfg, kernelParams, extra, &args); r != CUDA_SUCCESS)
    return r;
  const unsigned long long seq = s->enqueue([s, f, cfg, args = std::move(args)] {
    if (CUresult r = runPacked(s->context(), f, cfg, *args); r != CUDA_SUCCESS)
      s->setError(r);
  });
  // CUDA_LAUNCH_BLOCKING=1, as NVIDIA's driver reads it: a launch returns once the kernel has
  // run, so a fault is reported by the launch that caused it. CUCPU_DETERMINISTIC=1 implies it:
  // kernels then run one after another in the order the host launches them.
  static const bool blocking = env::getBool("CUDA_LAUNCH_BLOCKING", false) ||
                               env::getBool("CUCPU_DETERMINISTIC", false);
  if (blocking) {
    s->progress()->waitFor(seq);
    return s->context()->stickyError();
  }
  return CUDA_SUCCESS;
}

} // namespace cucpu::driver
