// Runtime API: mipmapped arrays filled level by level, cubemap textures and a 3D surface, through
// cudaMallocMipmappedArray, cudaGetMipmappedArrayLevel, cudaMalloc3DArray and cudaMemcpy3D.
#include "check.h"
#include <vector>

// Point-samples level `lod` of a mipmapped float texture at texel centres of that level.
__global__ void readLevel(cudaTextureObject_t t, float *out, int w, int h, float lod) {
  int x = threadIdx.x, y = threadIdx.y;
  if (x < w && y < h)
    out[y * w + x] = tex2DLod<float>(t, (x + 0.5f) / w, (y + 0.5f) / h, lod);
}

// Reads the centre of each cube face by its direction.
__global__ void readFaces(cudaTextureObject_t t, float *out) {
  const float dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  int f = threadIdx.x;
  if (f < 6)
    out[f] = texCubemap<float>(t, dirs[f][0], dirs[f][1], dirs[f][2]);
}

// Writes x + 10 y + 100 z into every element of a 3D surface of ints.
__global__ void fill3D(cudaSurfaceObject_t s, int w, int h, int d) {
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  if (x < w && y < h && z < d)
    surf3Dwrite(x + 10 * y + 100 * z, s, x * int(sizeof(int)), y, z);
}

int main() {
  int bad = 0;
  // A 16x8 mipmapped array, 4 levels, each level filled with 1000 * level + index.
  cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
  cudaMipmappedArray_t mip;
  CHECK(cudaMallocMipmappedArray(&mip, &fd, make_cudaExtent(16, 8, 0), 4));
  for (unsigned l = 0; l < 4; ++l) {
    cudaArray_t level;
    CHECK(cudaGetMipmappedArrayLevel(&level, mip, l));
    int w = 16 >> l, h = 8 >> l;
    std::vector<float> v(w * h);
    for (int i = 0; i < w * h; ++i)
      v[i] = 1000.0f * l + i;
    CHECK(cudaMemcpy2DToArray(level, 0, 0, v.data(), w * sizeof(float), w * sizeof(float), h,
                              cudaMemcpyHostToDevice));
  }
  cudaResourceDesc rd = {};
  rd.resType = cudaResourceTypeMipmappedArray;
  rd.res.mipmap.mipmap = mip;
  cudaTextureDesc td = {};
  td.normalizedCoords = 1;
  td.filterMode = cudaFilterModePoint;
  td.mipmapFilterMode = cudaFilterModePoint;
  td.maxMipmapLevelClamp = 3;
  cudaTextureObject_t mt;
  CHECK(cudaCreateTextureObject(&mt, &rd, &td, nullptr));
  float *dout;
  CHECK(cudaMalloc(&dout, 128 * sizeof(float)));
  for (int l = 0; l < 4; ++l) {
    int w = 16 >> l, h = 8 >> l;
    readLevel<<<1, dim3(16, 8)>>>(mt, dout, w, h, float(l));
    std::vector<float> got(w * h);
    CHECK(cudaMemcpy(got.data(), dout, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < w * h; ++i)
      if (got[i] != 1000.0f * l + i && bad++ < 10)
        std::printf("level %d texel %d: %g\n", l, i, got[i]);
  }

  // A 4x4 cubemap whose face f holds 10 f + texel index.
  cudaArray_t cube;
  CHECK(cudaMalloc3DArray(&cube, &fd, make_cudaExtent(4, 4, 6), cudaArrayCubemap));
  std::vector<float> faces(4 * 4 * 6);
  for (int i = 0; i < 96; ++i)
    faces[i] = 10.0f * (i / 16) + i % 16;
  cudaMemcpy3DParms p = {};
  p.srcPtr = make_cudaPitchedPtr(faces.data(), 4 * sizeof(float), 4, 4);
  p.dstArray = cube;
  p.extent = make_cudaExtent(4, 4, 6);
  p.kind = cudaMemcpyHostToDevice;
  CHECK(cudaMemcpy3D(&p));
  rd = {};
  rd.resType = cudaResourceTypeArray;
  rd.res.array.array = cube;
  cudaTextureDesc cd = {};
  cd.normalizedCoords = 1;
  cudaTextureObject_t ct;
  CHECK(cudaCreateTextureObject(&ct, &rd, &cd, nullptr));
  readFaces<<<1, 32>>>(ct, dout);
  float centres[6];
  CHECK(cudaMemcpy(centres, dout, sizeof centres, cudaMemcpyDeviceToHost));
  // A face's centre (s, t) = (0.5, 0.5) is texel (2, 2): index 10.
  for (int f = 0; f < 6; ++f)
    if (centres[f] != 10.0f * f + 10 && bad++ < 20)
      std::printf("face %d centre: %g\n", f, centres[f]);

  // A 5x3x2 3D surface of ints, written by a kernel and read back with cudaMemcpy3D.
  cudaChannelFormatDesc id = cudaCreateChannelDesc<int>();
  cudaArray_t vol;
  CHECK(cudaMalloc3DArray(&vol, &id, make_cudaExtent(5, 3, 2), cudaArraySurfaceLoadStore));
  rd.res.array.array = vol;
  cudaSurfaceObject_t vs;
  CHECK(cudaCreateSurfaceObject(&vs, &rd));
  fill3D<<<2, dim3(8, 4)>>>(vs, 5, 3, 2);
  CHECK(cudaGetLastError());
  std::vector<int> back(5 * 3 * 2, -1);
  cudaMemcpy3DParms q = {};
  q.srcArray = vol;
  q.dstPtr = make_cudaPitchedPtr(back.data(), 5 * sizeof(int), 5, 3);
  q.extent = make_cudaExtent(5, 3, 2);
  q.kind = cudaMemcpyDeviceToHost;
  CHECK(cudaMemcpy3D(&q));
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 3; ++y)
      for (int x = 0; x < 5; ++x)
        if (back[(z * 3 + y) * 5 + x] != x + 10 * y + 100 * z && bad++ < 30)
          std::printf("volume (%d,%d,%d): %d\n", x, y, z, back[(z * 3 + y) * 5 + x]);

  CHECK(cudaDestroyTextureObject(mt));
  CHECK(cudaDestroyTextureObject(ct));
  CHECK(cudaDestroySurfaceObject(vs));
  CHECK(cudaFreeMipmappedArray(mip));
  CHECK(cudaFreeArray(cube));
  CHECK(cudaFreeArray(vol));
  CHECK(cudaFree(dout));
  if (bad) {
    std::printf("FAIL %d mismatches\n", bad);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
