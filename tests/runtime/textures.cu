// Runtime API: texture and surface objects on CUDA arrays and linear memory (an image pipeline).
#include "check.h"
#include <cmath>
#include <vector>

// Bilinear 2x upscale through normalized coordinates: output texel (x, y) samples the input at
// ((x + 0.5) / 2W, (y + 0.5) / 2H), a quarter texel from the input texels' centres.
__global__ void upscale(cudaTextureObject_t tex, cudaSurfaceObject_t out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= 2 * w || y >= 2 * h)
    return;
  float v = tex2D<float>(tex, (x + 0.5f) / (2 * w), (y + 0.5f) / (2 * h));
  surf2Dwrite(v, out, x * int(sizeof(float)), y);
}

// Reads back through a surface (with clamping past the edges) and a 1D fetch of linear memory.
__global__ void gather(cudaSurfaceObject_t s, cudaTextureObject_t lin, float *out, int w, int h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h)
    return;
  int x = i % w, y = i / w;
  float a = surf2Dread<float>(s, (x + w + 1) * int(sizeof(float)), y, cudaBoundaryModeClamp);
  out[i] = a + tex1Dfetch<float>(lin, i);
}

// A layered texture of uchar4 read as normalized floats, point-sampled.
__global__ void layers(cudaTextureObject_t t, float4 *out, int w, int h, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= w * h * n)
    return;
  int x = i % w, y = i / w % h, l = i / (w * h);
  out[i] = tex2DLayered<float4>(t, x + 0.5f, y + 0.5f, l);
}

int main() {
  const int w = 16, h = 8;
  std::vector<float> img(w * h);
  for (int i = 0; i < w * h; ++i)
    img[i] = float((i * 37) % 101) * 0.25f;
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaArray_t in, up;
  CHECK(cudaMallocArray(&in, &fd, w, h));
  CHECK(cudaMallocArray(&up, &fd, 2 * w, 2 * h, cudaArraySurfaceLoadStore));
  CHECK(cudaMemcpy2DToArray(in, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h,
                            cudaMemcpyHostToDevice));
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = in;
  cudaTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
  td.filterMode = cudaFilterModeLinear;
  td.readMode = cudaReadModeElementType;
  td.normalizedCoords = 1;
  cudaTextureObject_t tex;
  CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
  rd.res.array.array = up;
  cudaSurfaceObject_t surf;
  CHECK(cudaCreateSurfaceObject(&surf, &rd));
  upscale<<<dim3(2, 2), dim3(16, 8)>>>(tex, surf, w, h);
  CHECK(cudaGetLastError());
  std::vector<float> big(4 * w * h);
  CHECK(cudaMemcpy2DFromArray(big.data(), 2 * w * sizeof(float), up, 0, 0, 2 * w * sizeof(float),
                              2 * h, cudaMemcpyDeviceToHost));
  // Host reference: weights 0.25/0.75 (exact in the texture unit's 8-bit fractions), clamped.
  auto at = [&](int x, int y) {
    x = x < 0 ? 0 : x >= w ? w - 1 : x;
    y = y < 0 ? 0 : y >= h ? h - 1 : y;
    return img[y * w + x];
  };
  int bad = 0;
  for (int y = 0; y < 2 * h; ++y)
    for (int x = 0; x < 2 * w; ++x) {
      float u = (x + 0.5f) / 2 - 0.5f, v = (y + 0.5f) / 2 - 0.5f;
      int x0 = int(std::floor(u)), y0 = int(std::floor(v));
      float a = u - x0, b = v - y0;
      float want = (1 - a) * (1 - b) * at(x0, y0) + a * (1 - b) * at(x0 + 1, y0) +
                   (1 - a) * b * at(x0, y0 + 1) + a * b * at(x0 + 1, y0 + 1);
      if (std::fabs(big[y * 2 * w + x] - want) > 1e-4f * (1 + std::fabs(want)) && bad++ < 5)
        std::printf("upscale (%d,%d): %g, want %g\n", x, y, big[y * 2 * w + x], want);
    }

  float *lin, *out;
  CHECK(cudaMalloc(&lin, w * h * sizeof(float)));
  CHECK(cudaMalloc(&out, w * h * sizeof(float)));
  std::vector<float> ramp(w * h);
  for (int i = 0; i < w * h; ++i)
    ramp[i] = float(i);
  CHECK(cudaMemcpy(lin, ramp.data(), w * h * sizeof(float), cudaMemcpyHostToDevice));
  cudaResourceDesc lrd = {};
  lrd.resType = cudaResourceTypeLinear;
  lrd.res.linear.devPtr = lin;
  lrd.res.linear.desc = fd;
  lrd.res.linear.sizeInBytes = w * h * sizeof(float);
  cudaTextureDesc ltd = {};
  ltd.readMode = cudaReadModeElementType;
  cudaTextureObject_t ltex;
  CHECK(cudaCreateTextureObject(&ltex, &lrd, &ltd, nullptr));
  gather<<<(w * h + 63) / 64, 64>>>(surf, ltex, out, w, h);
  std::vector<float> got(w * h);
  CHECK(cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * h; ++i) {
    int x = i % w, y = i / w;
    int sx = x + w + 1 < 2 * w ? x + w + 1 : 2 * w - 1;
    float want = big[y * 2 * w + sx] + float(i);
    if (got[i] != want && bad++ < 10)
      std::printf("gather %d: %g, want %g\n", i, got[i], want);
  }

  const int n = 3;
  cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
  cudaArray_t la;
  CHECK(cudaMalloc3DArray(&la, &cd, make_cudaExtent(w, h, n), cudaArrayLayered));
  std::vector<uchar4> px(w * h * n);
  for (int i = 0; i < w * h * n; ++i)
    px[i] = make_uchar4(i & 255, (i * 3) & 255, 255 - (i & 255), (i * 7) & 255);
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(px.data(), w * sizeof(uchar4), w, h);
  p.dstArray = la;
  p.extent = make_cudaExtent(w, h, n);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  rd.res.array.array = la;
  cudaTextureDesc nd = {};
  nd.readMode = cudaReadModeNormalizedFloat;
  nd.filterMode = cudaFilterModePoint;
  cudaTextureObject_t ntex;
  CHECK(cudaCreateTextureObject(&ntex, &rd, &nd, nullptr));
  float4 *lout;
  CHECK(cudaMalloc(&lout, w * h * n * sizeof(float4)));
  layers<<<(w * h * n + 127) / 128, 128>>>(ntex, lout, w, h, n);
  std::vector<float4> lg(w * h * n);
  CHECK(cudaMemcpy(lg.data(), lout, lg.size() * sizeof(float4), cudaMemcpyDeviceToHost));
  for (int i = 0; i < w * h * n; ++i) {
    float4 want = make_float4(px[i].x / 255.0f, px[i].y / 255.0f, px[i].z / 255.0f,
                              px[i].w / 255.0f);
    if ((lg[i].x != want.x || lg[i].y != want.y || lg[i].z != want.z || lg[i].w != want.w) &&
        bad++ < 15)
      std::printf("layer texel %d: (%g %g %g %g), want (%g %g %g %g)\n", i, lg[i].x, lg[i].y,
                  lg[i].z, lg[i].w, want.x, want.y, want.z, want.w);
  }

  CHECK(cudaDestroyTextureObject(tex));
  CHECK(cudaDestroyTextureObject(ltex));
  CHECK(cudaDestroyTextureObject(ntex));
  CHECK(cudaDestroySurfaceObject(surf));
  CHECK(cudaFreeArray(in));
  CHECK(cudaFreeArray(up));
  CHECK(cudaFreeArray(la));
  CHECK(cudaFree(lin));
  CHECK(cudaFree(out));
  CHECK(cudaFree(lout));
  if (bad) {
    std::printf("FAIL %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
