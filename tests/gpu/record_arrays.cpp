// Prints NVIDIA's driver's answers for the array, mipmapped-array, texture- and surface-object
// calls tests/api/array_test.cpp checks (descriptor validation, copies out of range, stale
// handles, resources without surface load/store).
#include "record.h"

#include <cuda.h>

#include <cstdint>
#include <vector>

int main() {
  CUcontext ctx, other;
  CUarray a, plain, surf, level;
  CUmipmappedArray m;
  CUDA_ARRAY_DESCRIPTOR d{};
  CUDA_ARRAY3D_DESCRIPTOR d3{}, back3{};
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  d.Width = 16;
  d.Height = 4;
  d.Format = CU_AD_FORMAT_FLOAT;
  d.NumChannels = 3;
  SHOW(cuArrayCreate(&a, &d));
  d.NumChannels = 2;
  d.Format = static_cast<CUarray_format>(0x7);
  SHOW(cuArrayCreate(&a, &d));
  d.Format = CU_AD_FORMAT_FLOAT;
  d.Width = 0;
  SHOW(cuArrayCreate(&a, &d));
  SHOW(cuArrayCreate(&a, nullptr));
  d3.Width = 4;
  d3.Height = 5;
  d3.Depth = 6;
  d3.Format = CU_AD_FORMAT_FLOAT;
  d3.NumChannels = 1;
  d3.Flags = CUDA_ARRAY3D_CUBEMAP;
  SHOW(cuArray3DCreate(&a, &d3));
  d.Width = 16;
  SHOW(cuArrayCreate(&a, &d));
  SHOW(cuArray3DGetDescriptor(&back3, a));
  std::printf("depth %zu\n", back3.Depth);
  SHOW(cuArrayDestroy(a));
  CUarray stale = a;
  // 2-layer 5x3 ushort2: out-of-range linear and 3D copies.
  d3 = {};
  d3.Width = 5;
  d3.Height = 3;
  d3.Depth = 2;
  d3.Format = CU_AD_FORMAT_UNSIGNED_INT16;
  d3.NumChannels = 2;
  d3.Flags = CUDA_ARRAY3D_LAYERED;
  SHOW(cuArray3DCreate(&a, &d3));
  std::vector<uint8_t> h(120), part(24);
  SHOW(cuMemcpyHtoA(a, 0, h.data(), h.size()));
  SHOW(cuMemcpyAtoH(h.data(), a, 1, h.size()));
  SHOW(cuArrayGetDescriptor(&d, a));
  CUDA_MEMCPY3D c{};
  c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  c.srcArray = a;
  c.srcXInBytes = 4;
  c.srcY = 1;
  c.srcZ = 1;
  c.dstMemoryType = CU_MEMORYTYPE_HOST;
  c.dstHost = part.data();
  c.dstPitch = 12;
  c.dstHeight = 2;
  c.WidthInBytes = 12;
  c.Height = 2;
  c.Depth = 1;
  SHOW(cuMemcpy3D(&c));
  c.srcY = 2;
  SHOW(cuMemcpy3D(&c));
  c.srcY = 1;
  c.srcXInBytes = 10;
  SHOW(cuMemcpy3D(&c));
  CUDA_MEMCPY2D c2{};
  c2.srcMemoryType = CU_MEMORYTYPE_HOST;
  c2.srcHost = part.data();
  c2.srcPitch = 12;
  c2.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  c2.WidthInBytes = 12;
  c2.Height = 1;
  SHOW(cuMemcpy2D(&c2));
  SHOW(cuArrayDestroy(a));
  // Mipmapped arrays.
  d3 = {};
  d3.Width = 16;
  d3.Height = 6;
  d3.Format = CU_AD_FORMAT_FLOAT;
  d3.NumChannels = 4;
  SHOW(cuMipmappedArrayCreate(&m, &d3, 6));
  SHOW(cuMipmappedArrayCreate(&m, &d3, 5));
  for (unsigned l = 0; l < 5; ++l) {
    SHOW(cuMipmappedArrayGetLevel(&level, m, l));
    SHOW(cuArray3DGetDescriptor(&back3, level));
    std::printf("level %u: %zu x %zu x %zu\n", l, back3.Width, back3.Height, back3.Depth);
  }
  SHOW(cuMipmappedArrayGetLevel(&level, m, 5));
  SHOW(cuMipmappedArrayGetLevel(&level, m, 1));
  SHOW(cuArrayDestroy(level));
  SHOW(cuMipmappedArrayDestroy(m));
  // Texture and surface objects.
  d3 = {};
  d3.Width = 8;
  d3.Height = 8;
  d3.Format = CU_AD_FORMAT_UNSIGNED_INT8;
  d3.NumChannels = 4;
  SHOW(cuArray3DCreate(&plain, &d3));
  d3.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  SHOW(cuArray3DCreate(&surf, &d3));
  CUDA_RESOURCE_DESC rd{}, rdBack{};
  rd.resType = CU_RESOURCE_TYPE_ARRAY;
  rd.res.array.hArray = plain;
  CUDA_TEXTURE_DESC td{}, tdBack{};
  td.addressMode[0] = CU_TR_ADDRESS_MODE_BORDER;
  td.filterMode = CU_TR_FILTER_MODE_LINEAR;
  td.flags = CU_TRSF_NORMALIZED_COORDINATES;
  td.borderColor[2] = 0.5f;
  CUtexObject t = 0, lt = 0;
  CUsurfObject s = 0;
  SHOW(cuTexObjectCreate(&t, &rd, &td, nullptr));
  std::printf("texture handle %llu\n", t);
  SHOW(cuTexObjectGetTextureDesc(&tdBack, t));
  SHOW(cuTexObjectGetResourceDesc(&rdBack, t));
  CUDA_RESOURCE_VIEW_DESC view{};
  SHOW(cuTexObjectGetResourceViewDesc(&view, t));
  SHOW(cuSurfObjectCreate(&s, &rd));
  rd.res.array.hArray = surf;
  SHOW(cuSurfObjectCreate(&s, &rd));
  std::printf("surface handle %llu\n", s);
  CUDA_RESOURCE_DESC lin{};
  lin.resType = CU_RESOURCE_TYPE_LINEAR;
  lin.res.linear.format = CU_AD_FORMAT_FLOAT;
  lin.res.linear.numChannels = 1;
  lin.res.linear.sizeInBytes = 1024;
  SHOW(cuTexObjectCreate(&lt, &lin, &td, nullptr));
  CUdeviceptr dev;
  SHOW(cuMemAlloc(&dev, 1024));
  lin.res.linear.devPtr = dev;
  SHOW(cuTexObjectCreate(&lt, &lin, &td, nullptr));
  std::printf("linear texture handle %llu\n", lt);
  SHOW(cuTexObjectDestroy(lt));
  SHOW(cuTexObjectDestroy(t));
  SHOW(cuSurfObjectDestroy(s));
  SHOW(cuMemFree(dev));
  SHOW(cuCtxDestroy(ctx));
  SHOW(cuCtxCreate(&other, nullptr, 0, 0));
  // Stale handles last: NVIDIA's driver crashes on some (a second cuArrayDestroy segfaults).
  SHOW(cuTexObjectGetTextureDesc(&tdBack, t));
  SHOW(cuTexObjectDestroy(t));
  SHOW(cuMipmappedArrayDestroy(m));
  SHOW(cuArrayDestroy(plain));
  SHOW(cuArrayGetDescriptor(&d, stale));
  SHOW(cuArrayDestroy(stale));
  SHOW(cuCtxDestroy(other));
  return 0;
}
