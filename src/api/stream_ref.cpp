// Stream handle resolution and stream-ordered submission shared by the asynchronous entry points.
#include "stream_ref.h"

#include "cucpu/driver/reason.h"

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
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "stream {} is not a live stream",
                        static_cast<const void *>(h));
  if (s->context() != c) // work queued on another context's stream (an H200: 400)
    return driver::fail(CUDA_ERROR_INVALID_HANDLE,
                        "stream {} belongs to another context than the current one",
                        static_cast<const void *>(s));
  *out = s;
  return CUDA_SUCCESS;
}

CUresult namedStream(CUstream h, bool perThread, driver::Context **c, driver::Stream **s) {
  if (auto *own = reinterpret_cast<driver::Stream *>(h); driver::isLiveStream(own)) {
    if (CUresult r = requireInit(); r != CUDA_SUCCESS)
      return r;
    *c = own->context();
    *s = own;
    return CUDA_SUCCESS;
  }
  return contextAndStream(h, perThread, c, s);
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
