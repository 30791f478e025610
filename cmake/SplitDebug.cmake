# cucpu_split_debug(TARGET): in Release builds with CUCPU_SPLIT_DEBUG (compiled with -g, see the
# top-level CMakeLists.txt), the target's debug information moves after linking into
# <file>.debug beside it, and the file keeps a .gnu_debuglink to it (cmake/Install.cmake
# installs the .debug files as the `debug` component). Called where the target is defined.
function(cucpu_split_debug target)
  if(NOT (CMAKE_BUILD_TYPE STREQUAL "Release" AND CUCPU_SPLIT_DEBUG))
    return()
  endif()
  find_program(CUCPU_OBJCOPY NAMES objcopy REQUIRED)
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CUCPU_OBJCOPY} --only-keep-debug $<TARGET_FILE:${target}> $<TARGET_FILE:${target}>.debug
    COMMAND ${CUCPU_OBJCOPY} --strip-debug --add-gnu-debuglink=$<TARGET_FILE:${target}>.debug
            $<TARGET_FILE:${target}>
    COMMENT "Splitting the debug information of $<TARGET_FILE_NAME:${target}>")
endfunction()
