// Entry points: green contexts as partitions of the worker pool. A device's SM resource is its
// multiprocessors (the pool's threads, each independent: partitions of any size, alignment 1);
// splitting it gives groups of SMs; a green context made from a descriptor runs every grid on at
// most that many threads of the pool, beside what other contexts run.
#include "cucpu/driver/context.h"
#include "cucpu/driver/device.h"
#include "cucpu/driver/stream.h"
#include "entry.h"
#include "entry_points.h"
#include "stream_ref.h"

#include <cstring>
#include <map>
#include <mutex>
#include <set>

namespace cucpu::api::impl {
namespace {

struct GreenCtx {
  driver::Context *ctx;
  unsigned sms;
  bool destroyed = false; // kept, so that a destroyed handle is told from an unknown one
};

// What cuDevResourceGenerateDesc makes (they live as long as the process, as there is no call
// that destroys them).
struct ResourceDesc {
  int device;
  unsigned sms;
};

// Kept in a resource's internal bytes: where it came from.
struct Origin {
  uint32_t magic;
  int32_t device;
};
constexpr uint32_t kMagic = 0x63704752; // "RGpc"
static_assert(sizeof(Origin) <= sizeof(CUdevResource::_internal_padding));

struct Registry {
  std::mutex mutex;
  std::set<const GreenCtx *> greens;
  std::map<const driver::Context *, GreenCtx *> byContext;
  std::set<const ResourceDesc *> descs;
};
Registry &registry() {
  static auto *r = new Registry;
  return *r;
}

void fill(CUdevResource *r, unsigned sms, int device) {
  std::memset(r, 0, sizeof *r);
  r->type = CU_DEV_RESOURCE_TYPE_SM;
  r->sm.smCount = sms;
  r->sm.minSmPartitionSize = 1;
  r->sm.smCoscheduledAlignment = 1;
  const Origin o{kMagic, device};
  std::memcpy(r->_internal_padding, &o, sizeof o);
}

bool originOf(const CUdevResource &r, Origin *o) {
  std::memcpy(o, r._internal_padding, sizeof *o);
  return r.type == CU_DEV_RESOURCE_TYPE_SM && o->magic == kMagic;
}

CUresult greenOf(CUgreenCtx h, GreenCtx **out) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  auto *g = reinterpret_cast<GreenCtx *>(h);
  std::lock_guard lk(registry().mutex);
  if (!g || !registry().greens.count(g))
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT, "the green context is not live");
  if (g->destroyed || !driver::isLiveContext(g->ctx))
    return driver::fail(CUDA_ERROR_CONTEXT_IS_DESTROYED, "the green context has been destroyed");
  *out = g;
  return CUDA_SUCCESS;
}

CUresult resourceOf(driver::Context *c, unsigned sms, CUdevResource *resource,
                    CUdevResourceType type) {
  if (!resource)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "resource is NULL");
  if (type != CU_DEV_RESOURCE_TYPE_SM)
    return driver::fail(CUDA_ERROR_INVALID_RESOURCE_TYPE, "resource type {} is not SM",
                        static_cast<int>(type));
  fill(resource, sms ? sms : c->device()->multiprocessors(), c->device()->ordinal());
  return CUDA_SUCCESS;
}

CUgreenCtx greenOfContext(const driver::Context *c) {
  std::lock_guard lk(registry().mutex);
  auto it = registry().byContext.find(c);
  return it == registry().byContext.end() ? nullptr : reinterpret_cast<CUgreenCtx>(it->second);
}

} // namespace

CUresult cuDeviceGetDevResource(CUdevice device, CUdevResource *resource, CUdevResourceType type) {
  driver::Device *d;
  if (CUresult r = deviceOf(device, &d); r != CUDA_SUCCESS)
    return r;
  if (!resource)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "resource is NULL");
  if (type != CU_DEV_RESOURCE_TYPE_SM)
    return driver::fail(CUDA_ERROR_INVALID_RESOURCE_TYPE, "resource type {} is not SM",
                        static_cast<int>(type));
  fill(resource, d->multiprocessors(), d->ordinal());
  return CUDA_SUCCESS;
}

CUresult cuCtxGetDevResource(CUcontext hCtx, CUdevResource *resource, CUdevResourceType type) {
  driver::Context *c;
  if (CUresult r = resolveContext(hCtx, &c); r != CUDA_SUCCESS)
    return r;
  return resourceOf(c, c->workerLimit, resource, type);
}

CUresult cuGreenCtxGetDevResource(CUgreenCtx hCtx, CUdevResource *resource,
                                  CUdevResourceType type) {
  GreenCtx *g;
  if (CUresult r = greenOf(hCtx, &g); r != CUDA_SUCCESS)
    return r;
  return resourceOf(g->ctx, g->sms, resource, type);
}

CUresult cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *nbGroups,
                                     const CUdevResource *input, CUdevResource *remaining,
                                     unsigned int useFlags, unsigned int minCount) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  (void)useFlags; // every SM stands alone already; unknown flags are ignored, as an H200 does
  Origin o;
  if (!nbGroups || !input)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "nbGroups or input is NULL");
  if (!originOf(*input, &o))
    return driver::fail(CUDA_ERROR_INVALID_RESOURCE_TYPE,
                        "the input is not an SM resource of a device or context");
  const unsigned total = input->sm.smCount;
  if (minCount > total)
    return driver::fail(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
                        "minCount = {} exceeds the {} multiprocessors", minCount, total);
  const unsigned size = minCount ? minCount : 1; // every SM stands alone: no rounding up
  unsigned groups = total / size;
  if (result)
    groups = std::min(groups, *nbGroups);
  for (unsigned i = 0; result && i < groups; ++i)
    fill(&result[i], size, o.device);
  if (remaining)
    fill(remaining, total - groups * size, o.device);
  *nbGroups = groups;
  return CUDA_SUCCESS;
}

CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *phDesc, CUdevResource *resources,
                                   unsigned int nbResources) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!phDesc || !resources || nbResources == 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "phDesc or resources is NULL, or nbResources is 0");
  Origin first;
  if (!originOf(resources[0], &first))
    return driver::fail(CUDA_ERROR_INVALID_RESOURCE_TYPE,
                        "resource 0 is not an SM resource of a device or context");
  unsigned sms = 0;
  for (unsigned i = 0; i < nbResources; ++i) {
    Origin o;
    if (!originOf(resources[i], &o))
      return driver::fail(CUDA_ERROR_INVALID_RESOURCE_TYPE,
                          "resource {} is not an SM resource of a device or context", i);
    if (o.device != first.device) // (resources of two splits are accepted, as an H200 does)
      return driver::fail(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
                          "resources {} and 0 are of different devices", i);
    sms += resources[i].sm.smCount;
  }
  auto *d = new ResourceDesc{first.device, sms};
  std::lock_guard lk(registry().mutex);
  registry().descs.insert(d);
  *phDesc = reinterpret_cast<CUdevResourceDesc>(d);
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc, CUdevice dev,
                          unsigned int flags) {
  driver::Device *d;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  auto *rd = reinterpret_cast<const ResourceDesc *>(desc);
  {
    std::lock_guard lk(registry().mutex);
    if (!phCtx || !registry().descs.count(rd) || flags != CU_GREEN_CTX_DEFAULT_STREAM)
      return driver::fail(
          CUDA_ERROR_INVALID_VALUE,
          "phCtx is NULL, the descriptor is unknown, or flags = {:#x} is not DEFAULT_STREAM",
          flags);
  }
  if (rd->device != d->ordinal())
    return driver::fail(CUDA_ERROR_INVALID_DEVICE, "the descriptor is of device {}, not {}",
                        rd->device, d->ordinal());
  if (rd->sms == 0)
    return driver::fail(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
                        "the descriptor has no multiprocessors");
  driver::Context *c;
  if (CUresult r = driver::createGreenContext(d, rd->sms, &c); r != CUDA_SUCCESS)
    return r;
  auto *g = new GreenCtx{c, rd->sms};
  std::lock_guard lk(registry().mutex);
  registry().greens.insert(g);
  registry().byContext[c] = g;
  *phCtx = reinterpret_cast<CUgreenCtx>(g);
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxDestroy(CUgreenCtx hCtx) {
  GreenCtx *g;
  if (CUresult r = greenOf(hCtx, &g); r != CUDA_SUCCESS)
    return r;
  {
    std::lock_guard lk(registry().mutex);
    g->destroyed = true;
    registry().byContext.erase(g->ctx);
  }
  driver::forgetOnThisThread(g->ctx);
  return driver::destroyContext(g->ctx);
}

CUresult cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx) {
  GreenCtx *g;
  if (CUresult r = greenOf(hCtx, &g); r != CUDA_SUCCESS)
    return r;
  if (!pContext)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "pContext is NULL");
  *pContext = toHandle(g->ctx);
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxGetId(CUgreenCtx greenCtx, unsigned long long *greenCtxId) {
  GreenCtx *g;
  if (CUresult r = greenOf(greenCtx, &g); r != CUDA_SUCCESS)
    return r;
  if (!greenCtxId)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "greenCtxId is NULL");
  *greenCtxId = g->ctx->id();
  return CUDA_SUCCESS;
}

CUresult cuGreenCtxRecordEvent(CUgreenCtx hCtx, CUevent hEvent) {
  GreenCtx *g;
  if (CUresult r = greenOf(hCtx, &g); r != CUDA_SUCCESS)
    return r;
  return impl::cuCtxRecordEvent(toHandle(g->ctx), hEvent);
}

CUresult cuGreenCtxWaitEvent(CUgreenCtx hCtx, CUevent hEvent) {
  GreenCtx *g;
  if (CUresult r = greenOf(hCtx, &g); r != CUDA_SUCCESS)
    return r;
  return impl::cuCtxWaitEvent(toHandle(g->ctx), hEvent);
}

CUresult cuGreenCtxStreamCreate(CUstream *phStream, CUgreenCtx greenCtx, unsigned int flags,
                                int priority) {
  GreenCtx *g;
  if (CUresult r = greenOf(greenCtx, &g); r != CUDA_SUCCESS)
    return r;
  if (!phStream || flags != CU_STREAM_NON_BLOCKING) // the only flag allowed, and required
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "phStream is NULL or flags = {:#x} is not CU_STREAM_NON_BLOCKING", flags);
  driver::Stream *s;
  if (CUresult r = driver::createStream(g->ctx, flags, priority, &s); r != CUDA_SUCCESS)
    return r;
  *phStream = reinterpret_cast<CUstream>(s);
  return CUDA_SUCCESS;
}

CUresult cuStreamGetGreenCtx(CUstream hStream, CUgreenCtx *phCtx) {
  if (CUresult r = requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!phCtx)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "phCtx is NULL");
  driver::Context *c = nullptr;
  if (auto *s = reinterpret_cast<driver::Stream *>(hStream); driver::isLiveStream(s)) {
    c = s->context();
  } else if (CUresult r = currentContext(&c); r != CUDA_SUCCESS) {
    return r; // the NULL stream and CU_STREAM_LEGACY: the current context's
  }
  *phCtx = greenOfContext(c);
  return CUDA_SUCCESS;
}

} // namespace cucpu::api::impl
