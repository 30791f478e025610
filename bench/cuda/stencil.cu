// Bench kernel 5-point stencil on a w x h grid: interior points are updated, the border is copied.
extern "C" __global__ void stencil5(const float *in, float *out, int w, int h, float center,
                                    float neighbour) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) {
    return;
  }
  int i = y * w + x;
  if (x == 0 || y == 0 || x == w - 1 || y == h - 1) {
    out[i] = in[i];
  } else {
    out[i] = center * in[i] + neighbour * (in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
  }
}
