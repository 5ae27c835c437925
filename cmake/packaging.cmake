# SPDX-License-Identifier: Apache-2.0
# Debian packages from the install components of cmake/install.cmake (scripts/package builds
# them from a shared build):
#   libzkcoord0             the shared library            (component runtime)
#   libzkcoord-dev          headers, CMake package, .pc   (dev)
#   libzkcoord-testing-dev  the real-ZooKeeper harness    (testing)
#   zkcoord                 the zkcoord command           (tools)
# Library dependencies come from dpkg-shlibdeps; what headers and the harness need is named.
include(GNUInstallDirs)
set(ZKCOORD_DEB_REVISION 1)
set(ZKCOORD_DEB_COMPONENTS runtime dev testing tools)
set(ZKCOORD_DEB_NAMES libzkcoord${PROJECT_VERSION_MAJOR} libzkcoord-dev libzkcoord-testing-dev zkcoord)

# Every package carries the copyright file and a changelog in /usr/share/doc/<package>.
set(ZKCOORD_DEB_CHANGELOG ${PROJECT_BINARY_DIR}/packaging/changelog.Debian.gz)
find_program(ZKCOORD_GZIP gzip REQUIRED)
foreach(component name IN ZIP_LISTS ZKCOORD_DEB_COMPONENTS ZKCOORD_DEB_NAMES)
  set(changelog_dir ${PROJECT_BINARY_DIR}/packaging/${name})
  configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/changelog.in ${changelog_dir}/changelog.Debian @ONLY)
  execute_process(COMMAND ${ZKCOORD_GZIP} -9nf ${changelog_dir}/changelog.Debian)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright ${changelog_dir}/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${name} COMPONENT ${component})
endforeach()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME zkcoord)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "zkcoord")
set(CPACK_PACKAGE_CONTACT "zkcoord maintainers <maintainers@zkcoord.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "safe coordination through ZooKeeper")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL ${ZKCOORD_DEB_COMPONENTS})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_RELEASE ${ZKCOORD_DEB_REVISION})
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libzkcoord.so.0 is in this build, not installed: dpkg-shlibdeps finds it here for the tool
# (whose dependency on libzkcoord0 comes from the component dependencies below).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${PROJECT_BINARY_DIR}/lib)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "")
set(CPACK_STRIP_FILES ON)

set(CPACK_COMPONENT_DEV_DEPENDS runtime)
set(CPACK_COMPONENT_TESTING_DEPENDS dev)
set(CPACK_COMPONENT_TOOLS_DEPENDS runtime)

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libzkcoord${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
# A shlibs file for the library and the ldconfig trigger Debian policy asks of it.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/debian/triggers)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION
  "safe coordination through ZooKeeper - shared library
 zkcoord offers fenced distributed locks (the lock node's czxid is a fencing
 token), read-write locks, semaphores, leader election and group membership on
 ZooKeeper, with Boost.Asio asynchronous operations. This package holds the
 shared library.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libzkcoord-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libboost1.81-dev, libspdlog-dev, libzookeeper-mt-dev")
# Built on libzookeeper_st, a static libzkcoord (and zkcoord.pc) links libzookeeper_st.so.2 by
# its file name (cmake/FindZooKeeperST.cmake): the headers stay those of libzookeeper-mt-dev.
if(ZKCOORD_ZK_CLIENT STREQUAL "st")
  string(APPEND CPACK_DEBIAN_DEV_PACKAGE_DEPENDS ", libzookeeper-st2")
endif()
set(CPACK_DEBIAN_DEV_DESCRIPTION
  "safe coordination through ZooKeeper - development files
 zkcoord offers fenced distributed locks, read-write locks, semaphores, leader
 election and group membership on ZooKeeper for C++20 and Boost.Asio. This
 package holds the headers, the CMake package (find_package(zkcoord)) and the
 pkg-config file.")

set(CPACK_DEBIAN_TESTING_PACKAGE_NAME libzkcoord-testing-dev)
set(CPACK_DEBIAN_TESTING_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_TESTING_PACKAGE_DEPENDS "zookeeper, default-jre-headless | java-runtime-headless")
set(CPACK_DEBIAN_TESTING_DESCRIPTION
  "safe coordination through ZooKeeper - test harness
 zkcoord::testing starts real ZooKeeper servers and three-node ensembles on
 free ports for integration tests, and cuts, pauses and expires them
 (find_package(zkcoord COMPONENTS testing)).")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME zkcoord)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_TOOLS_DESCRIPTION
  "safe coordination through ZooKeeper - command-line tool
 The zkcoord command runs a command while holding a fenced ZooKeeper lock and
 stops it when the lock is lost, lists lock holders, election leaders and group
 members, registers services, and starts a local ZooKeeper for trying things.")

include(CPack)
