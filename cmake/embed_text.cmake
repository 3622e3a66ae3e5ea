# Helpers for the files the build generates with sources' text in them (embed_jit_headers.cmake,
# promoted_catalog.cmake).

# The text of `file` as a C++ raw string literal, in `out`. Fails on a text that holds the
# delimiter, which would end the literal early.
function(hgemm_raw_string_literal file out)
  file(READ "${file}" text)
  string(FIND "${text}" ")hgemm_embed\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${file} contains the raw-string delimiter )hgemm_embed\"")
  endif()
  set(${out} "R\"hgemm_embed(${text})hgemm_embed\"" PARENT_SCOPE)
endfunction()

# Writes `content` to `path` verbatim (file(CONFIGURE) would expand @VAR@ and #cmakedefine in an
# embedded text), and only when it changes, so that an unrelated edit recompiles nothing.
function(hgemm_write_if_changed path content)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL content)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${content}")
endfunction()
