# SPDX-License-Identifier: Apache-2.0
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
install(TARGETS zkcoord zkcoord_testing EXPORT zkcoord-targets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY include/zkcoord DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT zkcoord-targets NAMESPACE zkcoord:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/zkcoord)
# zkcoord::prometheus, when built (prometheus-cpp found): its own export set, which
# zkcoord-config.cmake loads when it is installed.
if(TARGET zkcoord_prometheus)
  install(TARGETS zkcoord_prometheus EXPORT zkcoord-prometheus-targets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
    LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(EXPORT zkcoord-prometheus-targets NAMESPACE zkcoord::
    DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/zkcoord)
endif()
install(FILES cmake/FindZooKeeperMT.cmake DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/zkcoord)
configure_package_config_file(cmake/zkcoord-config.cmake.in
  ${PROJECT_BINARY_DIR}/zkcoord-config.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/zkcoord)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/zkcoord-config-version.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/zkcoord-config.cmake ${PROJECT_BINARY_DIR}/zkcoord-config-version.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/zkcoord)
