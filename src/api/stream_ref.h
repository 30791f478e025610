// What a CUstream handle names for an entry point: a created stream, the legacy default stream or
// the calling thread's per-thread stream.
#pragma once

#include "cucpu/driver/stream.h"
#include "entry.h"

#include <functional>

namespace cucpu::api {

// Resolves `h` in context `c`. Null is the legacy default stream, or the calling thread's
// per-thread stream when `perThread` (the _ptsz/_ptds entry points) is set.
CUresult streamOf(CUstream h, driver::Context *c, bool perThread, driver::Stream **out);

// The current context and the stream `h` names in it.
CUresult contextAndStream(CUstream h, bool perThread, driver::Context **c, driver::Stream **s);

// A created stream with its own context (it may be synchronised or queried while another context
// is current, as on an H200), else what contextAndStream resolves.
CUresult namedStream(CUstream h, bool perThread, driver::Context **c, driver::Stream **s);

// Queues `op` on `s`; the context's sticky error.
CUresult submit(driver::Context *c, driver::Stream *s, std::function<void()> op);

} // namespace cucpu::api
