# Promoted source rewrites compiled ahead of time. A list (src/kernels/sm90/variants/promoted.list,
# or a test's fixture list) holds one row per rewrite, `NAME CONFIG SOURCE_HASH`, and NAME.cuh
# beside it is the whole replacement of kernels/sm90/sm90_ws.cuh. For each row this generates a
# translation unit that includes NAME.cuh in place of the family header (launch/sm90_instance.cuh,
# HGEMM_SM90_KERNEL_HEADER) and instantiates the kernel of CONFIG with the source NAME, and one
# file that lists the rows (core/promoted.hpp's PromotedSource, with the text) and their
# instances.
#
include(${CMAKE_CURRENT_LIST_DIR}/embed_text.cmake)

# hgemm_promoted_catalog(LIST <file> INCLUDE_DIR <dir> INCLUDE_PREFIX <path> OUT_DIR <dir>
#                        SYMBOL <prefix> SOURCES_FN <qualified name> INSTANCES_FN <qualified name>
#                        OUT_SOURCES <var>)
#   INCLUDE_DIR/INCLUDE_PREFIX/NAME.cuh is each row's file and INCLUDE_PREFIX/NAME.cuh its include
#   path; SOURCES_FN (std::span<const hgemm::PromotedSource>()) and INSTANCES_FN
#   (std::vector<hgemm::KernelInstance>()) are the functions the listing file defines; SYMBOL
#   keeps the per-row functions of two lists in one program apart. A missing list is an empty one.
#   The list is a configure dependency: promoting a rewrite reconfigures the next build.

# `out` is `yes` where `value` is `match`, else `no`.
function(hgemm_pick out value match yes no)
  if(value STREQUAL match)
    set(${out} ${yes} PARENT_SCOPE)
  else()
    set(${out} ${no} PARENT_SCOPE)
  endif()
endfunction()

# The fields of an sm90 config name as KernelConfig assignments, for constexpr code. CMake's
# regular expressions hold nine groups, so the head and the tail of the name are read apart. The
# registry compares the instance this builds with KernelConfig::parse(CONFIG) when it builds the
# catalog (registry.cpp), so a reading that drifted from the library's own would make the first
# kernel lookup throw rather than run another kernel.
function(hgemm_sm90_config_fields config out)
  set(head "^sm90_(ws|pp)_([0-9]+)x([0-9]+)x([0-9]+)_s([0-9]+)_c([0-9]+)x([0-9]+)_w([0-9]+)_")
  set(tail "_[mn][0-9]+_(tma|st)_sk[0-9]+_(f32|f16)_(nn|tn)(_swap)?(_bf16)?$")
  if(NOT config MATCHES "${tail}")
    message(FATAL_ERROR "promoted config '${config}' is not an sm90 config name")
  endif()
  hgemm_pick(e "${CMAKE_MATCH_1}" tma kTmaStore kDirect)
  string(TOUPPER "${CMAKE_MATCH_2}" acc)
  string(TOUPPER "${CMAKE_MATCH_3}" lay)
  hgemm_pick(swap "${CMAKE_MATCH_4}" _swap true false)
  hgemm_pick(dtype "${CMAKE_MATCH_5}" _bf16 kBF16 kF16)
  if(NOT config MATCHES "${head}")
    message(FATAL_ERROR "promoted config '${config}' is not an sm90 config name")
  endif()
  hgemm_pick(sched "${CMAKE_MATCH_1}" pp kPingPong kCooperative)
  set(${out} "  c.family = Family::kSm90Ws;
  c.block_m = ${CMAKE_MATCH_2};
  c.block_n = ${CMAKE_MATCH_3};
  c.block_k = ${CMAKE_MATCH_4};
  c.num_stages = ${CMAKE_MATCH_5};
  c.num_consumer_wgs = ${CMAKE_MATCH_8};
  c.schedule = Schedule::${sched};
  c.cluster_m = ${CMAKE_MATCH_6};
  c.cluster_n = ${CMAKE_MATCH_7};
  c.epilogue = Epilogue::${e};
  c.accum = Accum::k${acc};
  c.layout = Layout::k${lay};
  c.swap_ab = ${swap};
  c.dtype = DType::${dtype};" PARENT_SCOPE)
endfunction()

function(hgemm_promoted_catalog)
  cmake_parse_arguments(P "" "LIST;INCLUDE_DIR;INCLUDE_PREFIX;OUT_DIR;SYMBOL;SOURCES_FN;INSTANCES_FN;OUT_SOURCES" "" ${ARGN})
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${P_LIST}")
  # Named relative to the project in what is generated, so that a clone elsewhere generates the
  # same bytes (and a compiler cache still serves it).
  file(RELATIVE_PATH list_name "${PROJECT_SOURCE_DIR}" "${P_LIST}")
  set(rows)
  if(EXISTS "${P_LIST}")
    file(STRINGS "${P_LIST}" lines)
    foreach(line IN LISTS lines)
      if(line MATCHES "^[ \t]*(#|$)")
        continue()
      endif()
      # The hash is not read here (tests/unit/test_variants.cpp checks the real list's); a
      # fixture whose source the build generates has '-'.
      if(NOT line MATCHES "^([a-z][a-z0-9_]*) ([a-z0-9_x]+) ([0-9a-f]+|-)$")
        message(FATAL_ERROR "${P_LIST}: '${line}' is not a row 'NAME CONFIG SOURCE_HASH'")
      endif()
      list(APPEND rows "${CMAKE_MATCH_1}|${CMAKE_MATCH_2}")
    endforeach()
  endif()

  set(generated)
  set(declarations)
  set(table)
  set(calls)
  set(index 0)
  foreach(row IN LISTS rows)
    string(REPLACE "|" ";" fields "${row}")
    list(GET fields 0 name)
    list(GET fields 1 config)
    set(file "${P_INCLUDE_DIR}/${P_INCLUDE_PREFIX}/${name}.cuh")
    if(NOT EXISTS "${file}")
      message(FATAL_ERROR "${P_LIST}: ${name} has no file ${file}")
    endif()
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
    hgemm_sm90_config_fields("${config}" assignments)
    set(fn "promoted_instance_${P_SYMBOL}_${index}")
    set(out "${P_OUT_DIR}/sm90_promoted_${P_SYMBOL}_${index}.cu")
    hgemm_write_if_changed("${out}"
"// Generated by cmake/promoted_catalog.cmake from ${list_name}:
// the promoted source rewrite ${name}, built as ${config}.
#define HGEMM_SM90_KERNEL_HEADER \"${P_INCLUDE_PREFIX}/${name}.cuh\"
#include \"launch/sm90_instance.cuh\"

namespace hgemm::sm90 {

inline constexpr Sm90Variant kPromotedVariant = [] {
  KernelConfig c;
${assignments}
  c.source = *SourceName::from(\"${name}\");
  return sm90_variant(c);
}();

KernelInstance ${fn}() { return Instance<kPromotedVariant>::instance(); }

}  // namespace hgemm::sm90
")
    list(APPEND generated "${out}")
    hgemm_raw_string_literal("${file}" literal)
    string(APPEND declarations "KernelInstance ${fn}();\n")
    string(APPEND table "      {\"${name}\", \"${config}\", ${literal}},\n")
    string(APPEND calls "sm90::${fn}(), ")
    math(EXPR index "${index} + 1")
  endforeach()

  set(listing "${P_OUT_DIR}/promoted_catalog_${P_SYMBOL}.cpp")
  if(rows)
    set(sources_body "  static const PromotedSource rows[] = {\n${table}  };\n  return rows;")
    set(instances_body "  return {${calls}};")
  else()
    set(sources_body "  return {};")
    set(instances_body "  return {};")
  endif()
  hgemm_write_if_changed("${listing}"
"// Generated by cmake/promoted_catalog.cmake from ${list_name}.
#include <span>
#include <vector>

#include \"core/promoted.hpp\"
#include \"launch/launch.hpp\"

namespace hgemm::sm90 {
${declarations}}  // namespace hgemm::sm90

namespace hgemm {

std::span<const PromotedSource> ${P_SOURCES_FN}() {
${sources_body}
}

std::vector<KernelInstance> ${P_INSTANCES_FN}() {
${instances_body}
}

}  // namespace hgemm
")
  set(${P_OUT_SOURCES} ${generated} ${listing} PARENT_SCOPE)
endfunction()
