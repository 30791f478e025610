// Entry points: peer access between devices (every virtual device can reach every other).
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {

CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev) {
  driver::Device *d, *p;
  if (CUresult r = deviceOf(dev, &d); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = deviceOf(peerDev, &p); r != CUDA_SUCCESS)
    return r;
  if (!canAccessPeer)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "canAccessPeer is NULL");
  *canAccessPeer = d != p; // a device is not its own peer
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                 CUdevice dstDevice) {
  driver::Device *s, *d;
  if (CUresult r = deviceOf(srcDevice, &s); r != CUDA_SUCCESS)
    return r;
  if (CUresult r = deviceOf(dstDevice, &d); r != CUDA_SUCCESS)
    return r;
  if (!value)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "value is NULL");
  if (s == d)
    return driver::fail(CUDA_ERROR_INVALID_DEVICE, "rejected: s == d");
  switch (attrib) {
  case CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK:
    *value = 0;
    break;
  case CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED:
  case CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED:
    *value = 1;
    break; // shared host memory
  case CU_DEVICE_P2P_ATTRIBUTE_CUDA_ARRAY_ACCESS_SUPPORTED:
    *value = 0;
    break; // no CUDA arrays
  case CU_DEVICE_P2P_ATTRIBUTE_ONLY_PARTIAL_NATIVE_ATOMIC_SUPPORTED:
    *value = 0;
    break;
  default:
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "attrib = {} is not a value this call takes",
                        static_cast<long long>(attrib));
  }
  return CUDA_SUCCESS;
}

CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  if (Flags != 0)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "Flags = {:#x} must be 0", Flags);
  driver::Context *peer = fromHandle(peerContext);
  if (!peerContext || !driver::isLiveContext(peer))
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT,
                        "rejected: !peerContext || !driver::isLiveContext(peer)");
  if (peer == c) // a context to itself, as an H200 answers
    return driver::fail(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "rejected: peer == c");
  if (peer->device() == c->device())
    return driver::fail(CUDA_ERROR_INVALID_DEVICE, "rejected: peer->device() == c->device()");
  std::lock_guard lk(c->mutex);
  return c->peers.insert(peer).second ? CUDA_SUCCESS
                                      : driver::fail(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
                                                     "peer access is already enabled");
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext) {
  driver::Context *c;
  if (CUresult r = currentContext(&c); r != CUDA_SUCCESS)
    return r;
  driver::Context *peer = fromHandle(peerContext);
  if (!peerContext || !driver::isLiveContext(peer))
    return driver::fail(CUDA_ERROR_INVALID_CONTEXT,
                        "rejected: !peerContext || !driver::isLiveContext(peer)");
  std::lock_guard lk(c->mutex);
  return c->peers.erase(peer)
             ? CUDA_SUCCESS
             : driver::fail(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access is not enabled");
}

} // namespace cucpu::api::impl
