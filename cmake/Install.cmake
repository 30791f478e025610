# Installation: libcuda.so.1 and the NVRTC/nvJitLink front ends under a private directory
# (lib/cucpu, never where NVIDIA's driver lives), the tools in bin/ (found relative to the
# library: RPATH $ORIGIN/../lib/cucpu), cuda.h under include/cucpu, and a CMake package
# (find_package(cucpu) gives cucpu::cuda_driver). The same layout is the Python wheel's (under
# its `cucpu` package) and the Debian package's (under /usr, through CPack).
#
# Components: `runtime` (everything a user needs), `namelink` (lib/cucpu/libcuda.so) and `debug`
# (the split debug information of Release builds, in .debug/ folders where gdb looks for it).
include(CMakePackageConfigHelpers)

set(CUCPU_INSTALL_LIBDIR lib/cucpu)

set(cucpu_installed_libs cucpu_cuda)
if(TARGET cucpu_nvrtc)
  list(APPEND cucpu_installed_libs cucpu_nvrtc cucpu_nvjitlink)
endif()
set(cucpu_installed_tools cucpu-devicequery cucpu-ptx)

# The libcuda.so link (for -lcuda) is a component of its own: a wheel cannot hold links, and a
# copy would double its size; the wheel's users link libcuda.so.1 by path.
install(TARGETS cucpu_cuda LIBRARY DESTINATION ${CUCPU_INSTALL_LIBDIR} COMPONENT runtime
        NAMELINK_COMPONENT namelink)
if(TARGET cucpu_nvrtc)
  install(TARGETS cucpu_nvrtc cucpu_nvjitlink LIBRARY DESTINATION ${CUCPU_INSTALL_LIBDIR}
          COMPONENT runtime NAMELINK_SKIP)
endif()
set_target_properties(${cucpu_installed_tools} PROPERTIES INSTALL_RPATH "$ORIGIN/../${CUCPU_INSTALL_LIBDIR}")
install(TARGETS ${cucpu_installed_tools} RUNTIME DESTINATION bin COMPONENT runtime)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/tools/cucpu-run/cucpu-run DESTINATION bin COMPONENT runtime)
install(PROGRAMS ${CMAKE_SOURCE_DIR}/tools/cucpu-run/wrappers/nvcc DESTINATION libexec/cucpu
        COMPONENT runtime)
install(FILES ${CMAKE_SOURCE_DIR}/include/cuda.h DESTINATION include/cucpu COMPONENT runtime)

# Release: the .debug files cucpu_split_debug (cmake/SplitDebug.cmake) made beside each binary.
if(CMAKE_BUILD_TYPE STREQUAL "Release" AND CUCPU_SPLIT_DEBUG)
  foreach(t IN LISTS cucpu_installed_libs cucpu_installed_tools)
    if(t IN_LIST cucpu_installed_tools)
      set(dir bin/.debug)
    else()
      set(dir ${CUCPU_INSTALL_LIBDIR}/.debug)
    endif()
    install(FILES $<TARGET_FILE:${t}>.debug DESTINATION ${dir} COMPONENT debug)
  endforeach()
endif()

# The CMake package.
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/cucpuConfig.cmake.in
  ${CMAKE_BINARY_DIR}/cmake/cucpuConfig.cmake INSTALL_DESTINATION lib/cmake/cucpu
  PATH_VARS CUCPU_INSTALL_LIBDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/cmake/cucpuConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/cmake/cucpuConfig.cmake
              ${CMAKE_BINARY_DIR}/cmake/cucpuConfigVersion.cmake
        DESTINATION lib/cmake/cucpu COMPONENT runtime)

# The Debian package: `cpack -G DEB` in a Release build configured with
# -DCMAKE_INSTALL_PREFIX=/usr (scripts/package-deb.sh).
set(CPACK_PACKAGE_NAME cucpu)
set(CPACK_PACKAGE_VENDOR "The cucpu authors")
set(CPACK_PACKAGE_CONTACT "The cucpu authors <cucpu@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "CUDA driver API on the CPU: a libcuda.so.1 that runs CUDA programs without a GPU")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_RESOURCE_FILE_LICENSE ${CMAKE_SOURCE_DIR}/LICENSE)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime namelink debug)
set(CPACK_COMPONENT_RUNTIME_GROUP cucpu)
set(CPACK_COMPONENT_NAMELINK_GROUP cucpu)
set(CPACK_COMPONENT_DEBUG_GROUP cucpu-dbg)
set(CPACK_DEBIAN_CUCPU_PACKAGE_NAME cucpu)
set(CPACK_DEBIAN_CUCPU-DBG_PACKAGE_NAME cucpu-dbg)
set(CPACK_DEBIAN_CUCPU-DBG_PACKAGE_DEPENDS "cucpu (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_CUCPU_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
include(CPack)
