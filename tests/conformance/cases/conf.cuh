// Kernel shapes for the conformance cases: D[i] = f(A[i], B[i], C[i]) for thread i < n.
#pragma once
typedef unsigned char u8;
typedef signed char s8;
typedef unsigned short u16;
typedef short s16;
typedef unsigned u32;
typedef int s32;
typedef unsigned long long u64;
typedef long long s64;
typedef float f32;
typedef double f64;

// inline-asm constraint letter of each type
#define C_u16 "h"
#define C_s16 "h"
#define C_u32 "r"
#define C_s32 "r"
#define C_u64 "l"
#define C_s64 "l"
#define C_f32 "f"
#define C_f64 "d"

#define IDX                                                                                    \
  int i = blockIdx.x * blockDim.x + threadIdx.x;                                               \
  if (i >= n) return;

// Every kernel takes (A, B, C, D, n); the body reads a, b, c and sets d.
#define K0(name, TD, ...)                                                                      \
  extern "C" __global__ void name(const void *, const void *, const void *, TD *D, int n) {    \
    IDX;                                                                                       \
    TD d;                                                                                      \
    __VA_ARGS__;                                                                               \
    D[i] = d;                                                                                  \
  }
#define K1(name, TD, TA, ...)                                                                  \
  extern "C" __global__ void name(const TA *A, const void *, const void *, TD *D, int n) {     \
    IDX;                                                                                       \
    TA a = A[i];                                                                               \
    TD d;                                                                                      \
    __VA_ARGS__;                                                                               \
    D[i] = d;                                                                                  \
  }
#define K2(name, TD, TA, TB, ...)                                                              \
  extern "C" __global__ void name(const TA *A, const TB *B, const void *, TD *D, int n) {      \
    IDX;                                                                                       \
    TA a = A[i];                                                                               \
    TB b = B[i];                                                                               \
    TD d;                                                                                      \
    __VA_ARGS__;                                                                               \
    D[i] = d;                                                                                  \
  }
#define K3(name, TD, TA, TB, TC, ...)                                                          \
  extern "C" __global__ void name(const TA *A, const TB *B, const TC *C, TD *D, int n) {       \
    IDX;                                                                                       \
    TA a = A[i];                                                                               \
    TB b = B[i];                                                                               \
    TC c = C[i];                                                                               \
    TD d;                                                                                      \
    __VA_ARGS__;                                                                               \
    D[i] = d;                                                                                  \
  }

// One PTX instruction "insn d, a[, b[, c]]" with operand types from the constraint table.
#define OP1(name, insn, TD, TA) K1(name, TD, TA, asm(insn " %0, %1;" : "=" C_##TD(d) : C_##TA(a)))
#define OP2(name, insn, TD, TA, TB)                                                            \
  K2(name, TD, TA, TB, asm(insn " %0, %1, %2;" : "=" C_##TD(d) : C_##TA(a), C_##TB(b)))
#define OP3(name, insn, TD, TA, TB, TC)                                                        \
  K3(name, TD, TA, TB, TC,                                                                     \
     asm(insn " %0, %1, %2, %3;" : "=" C_##TD(d) : C_##TA(a), C_##TB(b), C_##TC(c)))
// A predicate-producing instruction "insn p, a, b", stored as 0/1.
#define PRED1(name, insn, TA)                                                                  \
  K1(name, u32, TA,                                                                            \
     asm("{ .reg .pred %%p; " insn " %%p, %1; selp.u32 %0, 1, 0, %%p; }" : "=r"(d) : C_##TA(a)))
#define PRED2(name, insn, TA, TB)                                                              \
  K2(name, u32, TA, TB,                                                                        \
     asm("{ .reg .pred %%p; " insn " %%p, %1, %2; selp.u32 %0, 1, 0, %%p; }"                         \
         : "=r"(d)                                                                             \
         : C_##TA(a), C_##TB(b)))

// Warp-level cases: each thread's value v (scattered bits, some lanes sharing values, for match
// and uni); the body sets d.
#define WV(i) (((i) * 2654435761u) >> 25)
#define WK(name, ...)                                                                          \
  extern "C" __global__ void name(const void *, const void *, const void *, u32 *D, int n) {   \
    IDX;                                                                                       \
    u32 v = WV(i), d = 0xdeadbeef;                                                             \
    __VA_ARGS__;                                                                               \
    D[i] = d;                                                                                  \
  }
