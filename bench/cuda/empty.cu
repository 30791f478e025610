// Bench kernel for launch latency: does nothing.
extern "C" __global__ void empty() {}
