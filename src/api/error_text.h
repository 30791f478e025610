// Names and one-line descriptions of CUresult codes (backing cuGetErrorName / cuGetErrorString).
#pragma once

// Enumerator name of a CUresult code ("CUDA_ERROR_INVALID_VALUE"); nullptr for unknown codes.
const char *cucpu_error_name(int code);

// Short description of a CUresult code in cucpu's own words; nullptr for unknown codes.
const char *cucpu_error_string(int code);
