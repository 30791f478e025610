// A library with one kernel, a __device__ and a __managed__ variable, for the error-path tests
// (tests/api/more_errors_test.cpp) and tests/gpu/record_more_errors.cpp.
__device__ int counter = 5;
extern "C" __global__ void bump(int n) { counter += n; }
__managed__ int shared = 7;
