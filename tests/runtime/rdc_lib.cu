// The other translation unit of rdc_main.cu: a device function, a device variable, and sinf.
__device__ unsigned long long calls = 0;
__device__ int scale(int x) { return 3 * x + 1; }
__device__ float wave(float x) { return sinf(x * 0.25f); }
