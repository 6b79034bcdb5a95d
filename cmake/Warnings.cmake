# SPDX-License-Identifier: MIT
if(CMAKE_C_COMPILER_ID MATCHES "GNU|Clang")
  add_compile_options(-Wall -Wextra -Wpedantic -Wshadow -Wformat=2 -Wvla
                      -Wstrict-prototypes -Wmissing-prototypes -Wno-format-nonliteral)
  if(MFSTAT_WERROR)
    add_compile_options(-Werror)
  endif()
endif()
