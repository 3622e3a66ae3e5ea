# Writes OUT, a header defining HGEMM_GIT_HASH, at build time rather than configure time, so that a
# build tree reused across commits names the commit it was built from. FORCED (a hash given to the
# configure step, as a copy whose .git is missing or stale passes it) wins over git's answer. OUT
# is rewritten only when its text changes, so an unchanged tree recompiles nothing.
#   cmake -DSRC=<source dir> -DOUT=<header> [-DFORCED=<hash>] -P git_hash.cmake
if(FORCED)
  set(hash "${FORCED}")
else()
  execute_process(COMMAND git describe --always --dirty --abbrev=12
                  WORKING_DIRECTORY "${SRC}" OUTPUT_VARIABLE hash
                  OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT hash)
    set(hash "unknown")
  endif()
endif()
set(text "#define HGEMM_GIT_HASH \"${hash}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
