# cmake --install: the runtime libraries, the public headers, the hgemm command, the tuning tables,
# a CMake package (find_package(hgemm) -> hgemm::hgemm, hgemm::hgemm_static) and hgemm.pc.
# Every installed path is relative to the prefix, so `cmake --install --prefix P` relocates the
# whole tree, the package files and the RPATHs with it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

foreach(dir BINDIR LIBDIR INCLUDEDIR DATADIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    message(FATAL_ERROR "CMAKE_INSTALL_${dir} must be relative to the prefix: the package, the "
                        "pkg-config file and the RPATHs find each other by relative paths")
  endif()
endforeach()
set(HGEMM_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/hgemm)

# The installed command finds the installed libraries beside it (it links the static runtime
# today; the tools library may be shared). libhgemm.so keeps the CUDA toolkit's library directory
# when that is not a system one, so that it finds the cuBLAS it was built against.
file(RELATIVE_PATH HGEMM_BIN_TO_LIB /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
set_target_properties(hgemm PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)
# Before 1.0 every minor release may break the ABI, so the soname carries major.minor. A wheel
# cannot hold the symlinks of a versioned library (each would be a full copy), so pip's build
# names it libhgemm.so alone: the package's extension is its only user.
if(NOT SKBUILD)
  set_target_properties(hgemm PROPERTIES VERSION ${PROJECT_VERSION}
                                         SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
endif()
if(TARGET hgemm_cli)
  set_target_properties(hgemm_cli PROPERTIES INSTALL_RPATH "$ORIGIN/${HGEMM_BIN_TO_LIB}"
                                             INSTALL_RPATH_USE_LINK_PATH ON)
endif()

# Components: runtime (the shared library, the command, the tables: what the Python wheel
# takes) and development (the rest). A plain `cmake --install` installs both.
install(TARGETS hgemm hgemm_static EXPORT hgemmTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/hgemm DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT development)
install(FILES ${HGEMM_GENERATED_INCLUDE_DIR}/hgemm/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/hgemm COMPONENT development)

# A parent project that add_subdirectory()s hgemm without the command does not build it, so there
# is nothing to install.
if(HGEMM_BUILD_CLI OR HGEMM_BUILD_TESTS)
  install(TARGETS hgemm_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
endif()

# The shipped tuning tables, when the tree has them.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/data/tables/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/hgemm/tables COMPONENT runtime OPTIONAL)

install(EXPORT hgemmTargets NAMESPACE hgemm:: DESTINATION ${HGEMM_INSTALL_CMAKEDIR}
        COMPONENT development)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/hgemmConfig.cmake.in
  ${PROJECT_BINARY_DIR}/hgemmConfig.cmake INSTALL_DESTINATION ${HGEMM_INSTALL_CMAKEDIR})
# Before 1.0 a minor release may change the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/hgemmConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/hgemmConfig.cmake ${PROJECT_BINARY_DIR}/hgemmConfigVersion.cmake
        DESTINATION ${HGEMM_INSTALL_CMAKEDIR} COMPONENT development)

# pkg-config finds the prefix from the .pc file's own place (${pcfiledir}), so the file stays
# right under any --prefix. cuda_runtime_api.h and libcudart come from the toolkit of this build.
file(RELATIVE_PATH HGEMM_PC_TO_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" HGEMM_PC_TO_PREFIX "${HGEMM_PC_TO_PREFIX}")
list(GET CUDAToolkit_INCLUDE_DIRS 0 HGEMM_PC_CUDA_INCLUDE_DIR)
configure_file(${PROJECT_SOURCE_DIR}/cmake/hgemm.pc.in ${PROJECT_BINARY_DIR}/hgemm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/hgemm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
        COMPONENT development)
