# SPDX-License-Identifier: Apache-2.0
# Finds the multi-threaded ZooKeeper C client (Debian: libzookeeper-mt-dev) and defines
# the imported target ZooKeeper::zookeeper_mt.
# Another build of the client (scripts/sanitize tsan builds one): -DZooKeeperMT_ROOT=<its prefix>.
find_path(ZooKeeperMT_INCLUDE_DIR zookeeper/zookeeper.h)
find_library(ZooKeeperMT_LIBRARY NAMES zookeeper_mt)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ZooKeeperMT REQUIRED_VARS ZooKeeperMT_LIBRARY ZooKeeperMT_INCLUDE_DIR)
if(ZooKeeperMT_FOUND AND NOT TARGET ZooKeeper::zookeeper_mt)
  add_library(ZooKeeper::zookeeper_mt UNKNOWN IMPORTED)
  set_target_properties(ZooKeeper::zookeeper_mt PROPERTIES
    IMPORTED_LOCATION "${ZooKeeperMT_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ZooKeeperMT_INCLUDE_DIR}"
    INTERFACE_COMPILE_DEFINITIONS THREADED)
endif()
