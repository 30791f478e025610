# Third-party dependencies, all from Debian packages: LLVM 19, fmt, spdlog, GoogleTest.
find_package(LLVM 19.1 REQUIRED CONFIG HINTS /usr/lib/llvm-19/lib/cmake/llvm)
message(STATUS "LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}")
llvm_map_components_to_libnames(CUCPU_LLVM_LIBS orcjit x86codegen x86asmparser x86desc x86info
                                passes native)

# fmt and spdlog are used header-only so that no shared copy of them is loaded into applications.
find_path(FMT_INCLUDE_DIR fmt/format.h REQUIRED)
find_path(SPDLOG_INCLUDE_DIR spdlog/spdlog.h REQUIRED)
add_library(cucpu_fmt INTERFACE)
target_include_directories(cucpu_fmt SYSTEM INTERFACE ${FMT_INCLUDE_DIR})
target_compile_definitions(cucpu_fmt INTERFACE FMT_HEADER_ONLY=1)
add_library(cucpu_spdlog INTERFACE)
target_include_directories(cucpu_spdlog SYSTEM INTERFACE ${SPDLOG_INCLUDE_DIR})
target_compile_definitions(cucpu_spdlog INTERFACE SPDLOG_HEADER_ONLY=1 SPDLOG_FMT_EXTERNAL=1)
target_link_libraries(cucpu_spdlog INTERFACE cucpu_fmt)

add_library(cucpu_llvm INTERFACE)
target_include_directories(cucpu_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_compile_definitions(cucpu_llvm INTERFACE ${LLVM_DEFINITIONS})
target_link_libraries(cucpu_llvm INTERFACE ${CUCPU_LLVM_LIBS})

find_package(GTest REQUIRED)
find_package(Threads REQUIRED)

# The CUDA toolkit is optional: with it, the ABI tests build programs against NVIDIA's cuda.h.
find_path(CUDA_TOOLKIT_INCLUDE cuda.h PATHS /usr/local/cuda/include NO_DEFAULT_PATH)
find_library(CUDA_TOOLKIT_STUB cuda PATHS /usr/local/cuda/lib64/stubs /usr/local/cuda/targets/x86_64-linux/lib/stubs NO_DEFAULT_PATH)
find_program(NVCC_EXECUTABLE nvcc PATHS /usr/local/cuda/bin)

# The contract between generated code and the runtime (one C header).
add_library(cucpu_abi INTERFACE)
target_include_directories(cucpu_abi INTERFACE ${CMAKE_SOURCE_DIR}/include/cucpu/abi)
# The project's own cuda.h.
add_library(cucpu_cuda_header INTERFACE)
target_include_directories(cucpu_cuda_header INTERFACE ${CMAKE_SOURCE_DIR}/include)
