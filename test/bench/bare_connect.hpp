// SPDX-License-Identifier: Apache-2.0
// Connecting the bare-client floors (the ZooKeeper C client with nothing of zkcoord): one
// handle, waited for until connected (at most 10 s), or the program ends saying why.
#pragma once

#include <zookeeper/zookeeper.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace zkcoord::bench {

inline zhandle_t* connect_bare(const char* servers) {
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  zhandle_t* zh = zookeeper_init(servers, nullptr, 30000, nullptr, nullptr, 0);
  for (int i = 0; zh && i < 200 && zoo_state(zh) != ZOO_CONNECTED_STATE; ++i) usleep(50000);
  if (zh && zoo_state(zh) == ZOO_CONNECTED_STATE) return zh;
  std::fprintf(stderr, "cannot connect to %s\n", servers);
  std::exit(1);
}

}  // namespace zkcoord::bench
