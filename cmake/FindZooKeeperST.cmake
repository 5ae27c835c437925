# SPDX-License-Identifier: Apache-2.0
# Finds the single-threaded ZooKeeper C client and defines the imported target
# ZooKeeper::zookeeper_st (no THREADED: zookeeper.h then declares zookeeper_interest and
# zookeeper_process, and no synchronous calls).
# Debian's libzookeeper-st-dev conflicts with libzookeeper-mt-dev, so the runtime library
# (libzookeeper-st2: libzookeeper_st.so.2) is linked by its file name and the headers come
# from libzookeeper-mt-dev (they are the same). Another build: -DZooKeeperST_ROOT=<its prefix>.
find_path(ZooKeeperST_INCLUDE_DIR zookeeper/zookeeper.h)
find_library(ZooKeeperST_LIBRARY NAMES zookeeper_st libzookeeper_st.so.2)
include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(ZooKeeperST REQUIRED_VARS ZooKeeperST_LIBRARY ZooKeeperST_INCLUDE_DIR)
if(ZooKeeperST_FOUND AND NOT TARGET ZooKeeper::zookeeper_st)
  add_library(ZooKeeper::zookeeper_st UNKNOWN IMPORTED)
  set_target_properties(ZooKeeper::zookeeper_st PROPERTIES
    IMPORTED_LOCATION "${ZooKeeperST_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${ZooKeeperST_INCLUDE_DIR}")
endif()
