// Linker test input 2: the device function and the variable caller.cu uses.
// nvcc-flags: -rdc=true
__device__ int offset = 1000;

__device__ int scale(int v) { return v * 3 - 1; }
