# Project-wide warning and sanitizer flags, applied through an interface target so that
# consumers of the installed library do not inherit them.
add_library(gpgpu_warnings INTERFACE)
target_compile_options(gpgpu_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                                 -Wno-sign-conversion)
if(GPGPU_WERROR)
  target_compile_options(gpgpu_warnings INTERFACE -Werror)
endif()
if(GPGPU_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
