/* The contract between generated block functions and the runtime: launch and block records. */
#ifndef CUCPU_ABI_KERNEL_ABI_H
#define CUCPU_ABI_KERNEL_ABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cucpu_launch;

/* Geometries of texture and surface instructions (tex.1d, suld.b.a2d, ...). */
enum {
  CUCPU_GEOM_1D = 0,
  CUCPU_GEOM_2D = 1,
  CUCPU_GEOM_3D = 2,
  CUCPU_GEOM_A1D = 3,  /* layered: `layer` selects the layer */
  CUCPU_GEOM_A2D = 4,
  CUCPU_GEOM_CUBE = 5, /* coord is a direction */
  CUCPU_GEOM_ACUBE = 6
};

/* cucpu_tex_request.flags */
enum {
  CUCPU_TEX_INT_COORDS = 1, /* coord holds s32 texel coordinates, else f32 bits */
  CUCPU_TEX_LEVEL = 2,      /* tex.level: `lod` is the level of detail */
  CUCPU_TEX_GRAD = 4,       /* tex.grad: dpdx/dpdy give the level of detail */
  CUCPU_TEX_GATHER = 8,     /* tld4: the four texels of the bilinear footprint, `component` */
  CUCPU_TEX_OFFSET = 16,    /* `offset` is added to the texel coordinates */
  CUCPU_TEX_F16X2 = 32      /* results as two f16x2 words (tex.v2.f16x2) */
};

/* A texture fetch (tex, tld4); see cucpu_services.texture. */
typedef struct cucpu_tex_request {
  uint32_t geometry;  /* CUCPU_GEOM_* */
  uint32_t flags;     /* CUCPU_TEX_* */
  uint32_t component; /* tld4: 0..3 = r, g, b, a */
  int32_t layer;      /* array index of a1d, a2d and acube */
  uint32_t coord[3];  /* x, y, z: f32 bits, or s32 with CUCPU_TEX_INT_COORDS */
  float lod;
  float dpdx[3], dpdy[3];
  int32_t offset[3];
  const uint32_t *where; /* {ctaid.xyz, tid.xyz}, for messages */
} cucpu_tex_request;

/* cucpu_surf_request.op */
enum {
  CUCPU_SURF_LOAD = 0,      /* suld.b */
  CUCPU_SURF_STORE = 1,     /* sust.b */
  CUCPU_SURF_STORE_P = 2,   /* sust.p: four 32-bit values converted to the surface's format */
  CUCPU_SURF_RED = 3        /* sured.b / sured.p */
};
/* cucpu_surf_request.clamp: what an out-of-range coordinate does. */
enum { CUCPU_SURF_TRAP = 0, CUCPU_SURF_CLAMP = 1, CUCPU_SURF_ZERO = 2 };
/* cucpu_surf_request.red: operation in the low byte, type above it. */
enum {
  CUCPU_RED_ADD = 0, CUCPU_RED_MIN = 1, CUCPU_RED_MAX = 2, CUCPU_RED_AND = 3, CUCPU_RED_OR = 4,
  CUCPU_RED_U32 = 0 << 8, CUCPU_RED_S32 = 1 << 8, CUCPU_RED_U64 = 2 << 8, CUCPU_RED_S64 = 3 << 8
};

/* A surface access (suld, sust, sured); see cucpu_services.surface. */
typedef struct cucpu_surf_request {
  uint32_t op;       /* CUCPU_SURF_* */
  uint32_t geometry; /* CUCPU_GEOM_1D .. CUCPU_GEOM_A2D */
  uint32_t bytes;    /* bytes moved: vector width * element size (.b forms) */
  uint32_t clamp;    /* CUCPU_SURF_TRAP / CLAMP / ZERO */
  uint32_t red;      /* sured: CUCPU_RED_* operation | type */
  int32_t coord[3];  /* x (bytes for .b forms, samples for .p), y, z */
  int32_t layer;
  const uint32_t *where;
} cucpu_surf_request;

/* txq / suq queries (cucpu_services.image_query). */
enum {
  CUCPU_Q_WIDTH = 0, CUCPU_Q_HEIGHT, CUCPU_Q_DEPTH, CUCPU_Q_CHANNEL_DATA_TYPE,
  CUCPU_Q_CHANNEL_ORDER, CUCPU_Q_NORMALIZED_COORDS, CUCPU_Q_ARRAY_SIZE, CUCPU_Q_NUM_MIPMAP_LEVELS,
  CUCPU_Q_NUM_SAMPLES, CUCPU_Q_FILTER_MODE, CUCPU_Q_ADDR_MODE_0, CUCPU_Q_ADDR_MODE_1,
  CUCPU_Q_ADDR_MODE_2, CUCPU_Q_FORCE_UNNORMALIZED_COORDS, CUCPU_Q_MEMORY_LAYOUT,
  CUCPU_Q_SURFACE = 1 << 8 /* or-ed in: the handle is a surface object (suq) */
};

/* cucpu_services.grid_sync operations. */
enum { CUCPU_GRID_CHECK = 0, CUCPU_GRID_ARRIVE = 1 };

/* cucpu_services.device_runtime operations: NVIDIA's device runtime (dynamic parallelism) as
 * the JIT's supplied __cudaCDP2* functions call it. `args` are 64-bit slots. */
enum {
  CUCPU_CDP_PARAM_BUFFER = 0, /* kernel, grid x y z, block x y z, shared bytes -> buffer or 0 */
  CUCPU_CDP_LAUNCH = 1,       /* buffer, stream -> cudaError_t */
  CUCPU_CDP_STREAM_CREATE = 2, /* -> a new stream handle */
  CUCPU_CDP_LAST_ERROR = 3,   /* clear (1: cudaGetLastError, 0: cudaPeekAtLastError) -> error */
  CUCPU_CDP_GET_DEVICE = 4,   /* -> the device's ordinal */
  CUCPU_CDP_BUFFER = 5,       /* alignment, size -> buffer or 0 (cudaGetParameterBuffer) */
  CUCPU_CDP_LAUNCH_FUNC = 6,  /* kernel, buffer, grid x y z, block x y z, shared, stream -> error */
  CUCPU_CDP_MALLOC = 7,       /* bytes -> pointer or 0 */
  CUCPU_CDP_FREE = 8          /* pointer -> cudaError_t */
};

/* cucpu_access_site.access and .space */
enum { CUCPU_ACCESS_READ = 0, CUCPU_ACCESS_WRITE = 1, CUCPU_ACCESS_ATOMIC = 2 };
enum {
  CUCPU_SPACE_GLOBAL = 0,
  CUCPU_SPACE_SHARED = 1,
  CUCPU_SPACE_LOCAL = 2,
  CUCPU_SPACE_GENERIC = 3
};

/* A checked memory access of the generated code, described by the JIT as a constant: where it is
 * in the kernel's PTX and source (from .loc: the innermost place and, for code inlined into the
 * kernel, the kernel's own line; files null without .loc), what it does and how wide it is. */
typedef struct cucpu_access_site {
  const char *kernel;      /* the kernel's PTX name */
  const char *file;        /* the CUDA source file of the access, or null */
  const char *kernel_file; /* inlined code: the file of the kernel's line that inlined it */
  uint32_t line;           /* line of the access in `file` */
  uint32_t kernel_line;    /* inlined code: the kernel's line, else 0 */
  uint32_t ptx_line;       /* the instruction's line in the PTX */
  uint32_t access;         /* CUCPU_ACCESS_* */
  uint32_t space;          /* CUCPU_SPACE_* */
  uint32_t bytes;          /* bytes accessed (a vector's whole width) */
} cucpu_access_site;

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
  /* tex, tld4: writes four 32-bit result words (f32 bits, or integers for integer reads) to
   * `out`; returns 1 (every texel is resident). A handle that names no texture object ends the
   * grid with CUDA_ERROR_ILLEGAL_ADDRESS. */
  uint32_t (*texture)(const struct cucpu_launch *l, uint64_t handle, const cucpu_tex_request *r,
                      uint32_t *out);
  /* suld, sust, sured: `data` holds r->bytes bytes to load into or store from; sured's operand
   * and sust.p's four values are there too. Out-of-range .trap accesses end the grid. */
  void (*surface)(const struct cucpu_launch *l, uint64_t handle, const cucpu_surf_request *r,
                  void *data);
  /* txq, suq: CUCPU_Q_* (| CUCPU_Q_SURFACE); `level` for txq.level queries. */
  int32_t (*image_query)(const struct cucpu_launch *l, uint64_t handle, uint32_t query,
                         int32_t level, const uint32_t *where);
  /* The device runtime's cooperative-groups grid (device_runtime.cpp). `handle` must be this
   * cooperative launch's grid workspace, else the grid ends with CUDA_ERROR_ILLEGAL_ADDRESS, as
   * on a GPU. CUCPU_GRID_CHECK only checks it; CUCPU_GRID_ARRIVE is one block's arrival at the
   * grid barrier (one thread of each block calls) and returns when every block has. Returns 0. */
  int32_t (*grid_sync)(const struct cucpu_launch *l, uint64_t handle, uint32_t op,
                       const uint32_t *where);
  /* Every thread of the block has waited `rounds` rounds in a row at yield points (spin loops,
   * nanosleep, mbarrier waits) without progress: the worker may run other blocks meanwhile and
   * come back. Called every 64 rounds. Ends the block when the grid has faulted. */
  void (*block_waits)(const struct cucpu_launch *l, uint32_t rounds);
  /* Dynamic parallelism: CUCPU_CDP_* `op` with its `args`; returns its result. */
  int64_t (*device_runtime)(const struct cucpu_launch *l, uint32_t op, const uint64_t *args,
                            const uint32_t *where);
  /* Memory checking (cucpu-sanitizer's memcheck): an access the generated code could not prove
   * valid. Returns when it is valid, having set range[0..1] to the live range [begin, end) that
   * holds it (the caller's cache); otherwise reports it and ends the grid. */
  void (*check_access)(const struct cucpu_launch *l, const struct cucpu_access_site *site,
                       uint64_t address, const uint32_t *where, uint64_t *range);
  /* Race checking (cucpu-sanitizer's racecheck): an access of the block's shared memory at
   * `offset` (`value`: the bits a store of at most 8 bytes writes, else 0), and the block's
   * threads passing a barrier or starting a block (`warp` ~0), or warp `warp` passing a
   * warp-level synchronisation, on the shared window `shared`. */
  void (*race_access)(const struct cucpu_launch *l, const struct cucpu_access_site *site,
                      uint64_t offset, const uint32_t *where, uint64_t value, void *shared);
  void (*race_barrier)(const struct cucpu_launch *l, void *shared, uint32_t warp);
  void *context; /* the runtime's own state for this launch */
} cucpu_services;

/* Element formats of warp-level matrix operations (cucpu_mma_desc). */
enum {
  CUCPU_MF_F16 = 0,
  CUCPU_MF_BF16 = 1,
  CUCPU_MF_TF32 = 2, /* an f32 of which the tensor core reads the top 19 bits */
  CUCPU_MF_F32 = 3,
  CUCPU_MF_F64 = 4,
  CUCPU_MF_S8 = 5,
  CUCPU_MF_U8 = 6,
  CUCPU_MF_S4 = 7,
  CUCPU_MF_U4 = 8,
  CUCPU_MF_B1 = 9,
  CUCPU_MF_E4M3 = 10,
  CUCPU_MF_E5M2 = 11,
  CUCPU_MF_S32 = 12
};

/* cucpu_mma_desc.flags */
enum {
  CUCPU_MMA_SATFINITE = 1, /* integer results saturate */
  CUCPU_MMA_XOR = 2,       /* b1 products are a ^ b (else a & b) */
  CUCPU_MMA_WMMA = 4       /* wmma fragments: element e of lane l is element e * 32 + l of the
                            * row-major matrix (else mma.sync's fragment layouts of the ISA) */
};

/* A warp-level matrix product D = A * B + C (mma.sync, wmma.mma), described by the JIT as a
 * constant. Each lane publishes its A, B and C registers one after another (4 or 8 bytes each,
 * `reg_bytes`), and gets its D registers back the same way. */
typedef struct cucpu_mma_desc { /* 16 uint16_t: the JIT emits it as an array of them */
  uint16_t m, n, k;
  uint16_t a, b, c, d;        /* CUCPU_MF_* */
  uint16_t a_regs, b_regs, c_regs, d_regs;
  uint16_t reg_bytes[4];      /* bytes of one register of A, B, C, D */
  uint16_t flags;             /* CUCPU_MMA_* */
} cucpu_mma_desc;

/* The product for one warp: `lanes` lanes (the others read as zero and get nothing) published
 * their registers at pub + lane * pub_stride; D goes to res + lane * res_stride. Defined by the
 * device library (cucpu/devicelib) and resolved by the JIT. */
void cucpu_mma(const cucpu_mma_desc *desc, const uint8_t *pub, uint64_t pub_stride, uint8_t *res,
               uint64_t res_stride, uint32_t lanes);

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
  uint32_t flags;                 /* CUCPU_LAUNCH_* */
} cucpu_launch;

/* cucpu_launch.flags */
enum {
  /* The grid's threads store more than the last-level cache holds: full, aligned 64-byte vector
   * stores to global memory may bypass the caches (non-temporal), sparing the read of each line
   * before it is overwritten. */
  CUCPU_LAUNCH_STREAMING_STORES = 1
};

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
#define CUCPU_LAUNCH_OFFSET_FLAGS 56

#ifdef __cplusplus
}
static_assert(__builtin_offsetof(cucpu_launch, block) == CUCPU_LAUNCH_OFFSET_BLOCK, "abi");
static_assert(__builtin_offsetof(cucpu_launch, params) == CUCPU_LAUNCH_OFFSET_PARAMS, "abi");
static_assert(__builtin_offsetof(cucpu_launch, dyn_shared_bytes) == CUCPU_LAUNCH_OFFSET_DYN_SHARED,
              "abi");
static_assert(__builtin_offsetof(cucpu_launch, nthreads) == CUCPU_LAUNCH_OFFSET_NTHREADS, "abi");
static_assert(__builtin_offsetof(cucpu_launch, envreg) == CUCPU_LAUNCH_OFFSET_ENVREG, "abi");
static_assert(__builtin_offsetof(cucpu_launch, services) == CUCPU_LAUNCH_OFFSET_SERVICES, "abi");
static_assert(__builtin_offsetof(cucpu_launch, flags) == CUCPU_LAUNCH_OFFSET_FLAGS, "abi");
static_assert(__builtin_offsetof(cucpu_block, more) == CUCPU_BLOCK_OFFSET_MORE, "abi");
static_assert(__builtin_offsetof(cucpu_block, shared) == CUCPU_BLOCK_OFFSET_SHARED, "abi");
static_assert(__builtin_offsetof(cucpu_block, scratch) == CUCPU_BLOCK_OFFSET_SCRATCH, "abi");
#endif

#endif
