// Entry points: peer access between devices (every virtual device can reach every other), after
// the registry's checks of devices, contexts, outputs and flags.
#include "entry.h"
#include "entry_points.h"

namespace cucpu::api::impl {

CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev) {
  *canAccessPeer = dev != peerDev; // a device is not its own peer
  return CUDA_SUCCESS;
}

CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attrib, CUdevice srcDevice,
                                 CUdevice dstDevice) {
  if (srcDevice == dstDevice)
    return driver::fail(CUDA_ERROR_INVALID_DEVICE, "a device is not its own peer");
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

CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int) {
  driver::Context *c = driver::current();
  driver::Context *peer = fromHandle(peerContext);
  if (peer == c) // as an H200 answers
    return driver::fail(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "a context is not its own peer");
  if (peer->device() == c->device())
    return driver::fail(CUDA_ERROR_INVALID_DEVICE, "the peer context is of the same device");
  std::lock_guard lk(c->mutex);
  return c->peers.insert(peer).second ? CUDA_SUCCESS
                                      : driver::fail(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED,
                                                     "peer access is already enabled");
}

CUresult cuCtxDisablePeerAccess(CUcontext peerContext) {
  driver::Context *c = driver::current();
  driver::Context *peer = fromHandle(peerContext);
  std::lock_guard lk(c->mutex);
  return c->peers.erase(peer)
             ? CUDA_SUCCESS
             : driver::fail(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, "peer access is not enabled");
}

} // namespace cucpu::api::impl
