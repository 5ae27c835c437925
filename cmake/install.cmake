# SPDX-License-Identifier: Apache-2.0
# What `cmake --install` puts where, by component (the .deb packages of cmake/packaging.cmake
# are made of them):
#   runtime  libzkcoord.so.<SOVERSION> (shared builds)
#   dev      headers, libzkcoord.so / libzkcoord.a, the CMake package and zkcoord.pc
#   testing  zkcoord::testing (static library, headers, CMake file, zkcoord-testing.pc)
#   tools    the zkcoord command (cli/CMakeLists.txt)
#   prometheus  zkcoord::prometheus, when prometheus-cpp was found (not packaged)
# find_package(zkcoord [COMPONENTS testing]) and pkg-config (zkcoord, zkcoord-testing) both work.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
set(ZKCOORD_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/zkcoord)

install(TARGETS zkcoord EXPORT zkcoord-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT runtime NAMELINK_COMPONENT dev
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)
install(DIRECTORY include/zkcoord DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT dev
  PATTERN testing EXCLUDE PATTERN prometheus.hpp EXCLUDE)
install(FILES ${PROJECT_BINARY_DIR}/include/zkcoord/export.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zkcoord COMPONENT dev)
install(EXPORT zkcoord-targets NAMESPACE zkcoord:: DESTINATION ${ZKCOORD_CMAKE_DIR} COMPONENT dev)
install(FILES cmake/FindZooKeeperMT.cmake cmake/FindZooKeeperST.cmake
  DESTINATION ${ZKCOORD_CMAKE_DIR} COMPONENT dev)
# zkcoord::prometheus, when built (prometheus-cpp found): a static library in its own export
# set, which zkcoord-config.cmake loads for find_package(zkcoord COMPONENTS prometheus).
if(TARGET zkcoord_prometheus)
  install(TARGETS zkcoord_prometheus EXPORT zkcoord-prometheus-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT prometheus)
  install(FILES include/zkcoord/prometheus.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zkcoord
    COMPONENT prometheus)
  install(EXPORT zkcoord-prometheus-targets NAMESPACE zkcoord::
    DESTINATION ${ZKCOORD_CMAKE_DIR} COMPONENT prometheus)
endif()
configure_package_config_file(cmake/zkcoord-config.cmake.in
  ${PROJECT_BINARY_DIR}/zkcoord-config.cmake
  INSTALL_DESTINATION ${ZKCOORD_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/zkcoord-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/zkcoord-config.cmake ${PROJECT_BINARY_DIR}/zkcoord-config-version.cmake
  DESTINATION ${ZKCOORD_CMAKE_DIR} COMPONENT dev)

install(TARGETS zkcoord_testing EXPORT zkcoord-testing-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT testing)
install(DIRECTORY include/zkcoord/testing DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zkcoord
  COMPONENT testing)
install(EXPORT zkcoord-testing-targets NAMESPACE zkcoord:: DESTINATION ${ZKCOORD_CMAKE_DIR}
  COMPONENT testing)

# pkg-config: a static libzkcoord needs its own dependencies on the link line.
set(ZKCOORD_PC_PRIVATE_LIBS "-lspdlog -lfmt -lzookeeper_mt")
if(ZKCOORD_ZK_CLIENT STREQUAL "st")
  set(ZKCOORD_PC_PRIVATE_LIBS "-lspdlog -lfmt -l:libzookeeper_st.so.2")
endif()
if(BUILD_SHARED_LIBS)
  set(ZKCOORD_PC_LIBS "-lzkcoord")
  set(ZKCOORD_PC_LIBS_PRIVATE "${ZKCOORD_PC_PRIVATE_LIBS} -pthread")
else()
  set(ZKCOORD_PC_LIBS "-lzkcoord ${ZKCOORD_PC_PRIVATE_LIBS} -pthread")
  set(ZKCOORD_PC_LIBS_PRIVATE "")
endif()
# Relocatable: the prefix is found from where the .pc file is (cmake --install --prefix X,
# or a package's /usr).
file(RELATIVE_PATH ZKCOORD_PC_TO_PREFIX
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
foreach(pc zkcoord zkcoord-testing)
  configure_file(cmake/${pc}.pc.in ${PROJECT_BINARY_DIR}/${pc}.pc @ONLY)
endforeach()
install(FILES ${PROJECT_BINARY_DIR}/zkcoord.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig
  COMPONENT dev)
install(FILES ${PROJECT_BINARY_DIR}/zkcoord-testing.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig COMPONENT testing)
