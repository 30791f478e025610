// Stream handle resolution and stream-ordered submission shared by the asynchronous entry points.
#include "stream_ref.h"

namespace cucpu::api {

CUresult streamOf(CUstream h, driver::Context *c, bool perThread, driver::Stream **out) {
  if (h == CU_STREAM_LEGACY || (!h && !perThread)) {
    *out = driver::legacyStream(c);
    return CUDA_SUCCESS;
  }
  if (!h || h == CU_STREAM_PER_THREAD) {
    *out = driver::perThreadStream(c);
    return CUDA_SUCCESS;
  }
  auto *s = reinterpret_cast<driver::Stream *>(h);
  if (!driver::isLiveStream(s))
    return CUDA_ERROR_INVALID_HANDLE;
  if (s->context() != c)
    return CUDA_ERROR_INVALID_CONTEXT;
  *out = s;
  return CUDA_SUCCESS;
}

CUresult contextAndStream(CUstream h, bool perThread, driver::Context **c, driver::Stream **s) {
  if (CUresult r = currentContext(c); r != CUDA_SUCCESS)
    return r;
  return streamOf(h, *c, perThread, s);
}

CUresult submit(driver::Context *c, driver::Stream *s, std::function<void()> op) {
  s->enqueue(std::move(op));
  return c->stickyError();
}

} // namespace cucpu::api
