/* The contract between generated block functions and the runtime: launch and block records. */
#ifndef CUCPU_ABI_KERNEL_ABI_H
#define CUCPU_ABI_KERNEL_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cucpu_launch;

/* Services the runtime offers generated code (device printf, assert, malloc, trap). Each call
 * gets the launch record; `where` is {ctaid.x, ctaid.y, ctaid.z, tid.x, tid.y, tid.z}. */
typedef struct cucpu_services {
  /* vprintf(format, packed arguments): returns the number of arguments, or -1. */
  int32_t (*vprintf)(const struct cucpu_launch *l, const char *format, const void *args);
  /* __assertfail: reports the failed assertion, then ends the grid with CUDA_ERROR_ASSERT. */
  void (*assert_fail)(const struct cucpu_launch *l, const char *message, const char *file,
                      uint32_t line, const char *function, const uint32_t *where);
  /* trap: ends the grid with CUDA_ERROR_LAUNCH_FAILED. */
  void (*trap)(const struct cucpu_launch *l, const uint32_t *where);
  void *(*malloc)(const struct cucpu_launch *l, uint64_t bytes);
  void (*free)(const struct cucpu_launch *l, void *p);
  /* A call through a function pointer that names no function of the module: ends the grid with
   * CUDA_ERROR_INVALID_PC, `target` being the pointer. */
  void (*bad_call)(const struct cucpu_launch *l, const uint32_t *where, uint64_t target);
  /* %globaltimer: nanoseconds of the system's real-time clock. */
  uint64_t (*globaltimer)(void);
  void *context; /* the runtime's own state for this launch */
} cucpu_services;

/* One per launch; read-only for generated code. Field offsets are part of the contract: the JIT
 * emits loads at these offsets (checked by static assertions on both sides). */
typedef struct cucpu_launch {
  uint32_t grid[3];          /* %nctaid */
  uint32_t block[3];         /* %ntid */
  const void *params;        /* the kernel's .param space, laid out as the PTX declares it */
  uint32_t dyn_shared_bytes; /* dynamic shared memory of this launch (%dynamic_smem_size) */
  uint32_t nthreads;         /* block[0] * block[1] * block[2] */
  const uint32_t *envreg;    /* %envreg0..31 */
  const cucpu_services *services; /* device printf, assert, trap, malloc */
} cucpu_launch;

/* One per worker, reused across the blocks it runs. A call runs the block at ctaid and the `more`
 * blocks after it in linear order (ctaid.x fastest); generated code does not write the record. */
typedef struct cucpu_block {
  uint32_t ctaid[3];   /* %ctaid of the first block of the call */
  uint32_t more;       /* blocks to run after the first one */
  uint8_t *shared;     /* static shared memory followed by dynamic shared memory */
  uint8_t *scratch;    /* per-thread context arrays (values live across barriers), local memory */
} cucpu_block;

/* A compiled kernel: runs every thread of 1 + block->more blocks. */
typedef void (*cucpu_block_fn)(const cucpu_launch *launch, cucpu_block *block);

#define CUCPU_LAUNCH_OFFSET_GRID 0
#define CUCPU_LAUNCH_OFFSET_BLOCK 12
#define CUCPU_LAUNCH_OFFSET_PARAMS 24
#define CUCPU_LAUNCH_OFFSET_DYN_SHARED 32
#define CUCPU_LAUNCH_OFFSET_NTHREADS 36
#define CUCPU_LAUNCH_OFFSET_ENVREG 40
#define CUCPU_BLOCK_OFFSET_CTAID 0
#define CUCPU_BLOCK_OFFSET_MORE 12
#define CUCPU_BLOCK_OFFSET_SHARED 16
#define CUCPU_BLOCK_OFFSET_SCRATCH 24
#define CUCPU_LAUNCH_OFFSET_SERVICES 48

#ifdef __cplusplus
}
static_assert(__builtin_offsetof(cucpu_launch, block) == CUCPU_LAUNCH_OFFSET_BLOCK, "abi");
static_assert(__builtin_offsetof(cucpu_launch, params) == CUCPU_LAUNCH_OFFSET_PARAMS, "abi");
static_assert(__builtin_offsetof(cucpu_launch, dyn_shared_bytes) == CUCPU_LAUNCH_OFFSET_DYN_SHARED,
              "abi");
static_assert(__builtin_offsetof(cucpu_launch, nthreads) == CUCPU_LAUNCH_OFFSET_NTHREADS, "abi");
static_assert(__builtin_offsetof(cucpu_launch, envreg) == CUCPU_LAUNCH_OFFSET_ENVREG, "abi");
static_assert(__builtin_offsetof(cucpu_launch, services) == CUCPU_LAUNCH_OFFSET_SERVICES, "abi");
static_assert(__builtin_offsetof(cucpu_block, more) == CUCPU_BLOCK_OFFSET_MORE, "abi");
static_assert(__builtin_offsetof(cucpu_block, shared) == CUCPU_BLOCK_OFFSET_SHARED, "abi");
static_assert(__builtin_offsetof(cucpu_block, scratch) == CUCPU_BLOCK_OFFSET_SCRATCH, "abi");
#endif

#endif
