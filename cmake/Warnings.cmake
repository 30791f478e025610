# Warning flags for the project's own targets (dependencies are system includes).
function(cucpu_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror)
endfunction()
