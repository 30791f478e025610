// The CUDA runtime's private driver tables (cuGetExportTable), shared by their implementations.
#pragma once

#include <cuda.h>

namespace cucpu::api::exports {

// Table 2 (6bd5fb6c...): primary context retain; its address is part of the integrity check.
extern void *primaryContextTable[13];
// Table 7 (d4082055...): slot 1 is the integrity check.
extern void *integrityTable[4];

// int check(uint32_t version, uint64_t unix_seconds, uint64_t result[2]).
CUresult integrityCheck(unsigned version, unsigned long long unixSeconds,
                        unsigned long long *result);

} // namespace cucpu::api::exports
