// SPDX-License-Identifier: Apache-2.0
// The C client's completion callbacks shared by the session's operations and the lock's
// session-pinned requests. Each expects `data` to be the pending_op<T> it completes.
#pragma once

#include "session_impl.hpp"

namespace zkcoord::detail {

void on_create_reply(int rc, const char* path, const Stat* stat, const void* data);
void on_get_reply(int rc, const char* value, int len, const Stat* stat, const void* data);
void on_set_reply(int rc, const Stat* stat, const void* data);
void on_exists_reply(int rc, const Stat* stat, const void* data);
void on_children_reply(int rc, const String_vector* names, const Stat* stat, const void* data);
/// For request_stamped_children: the reply, stamped with the session's deletion_proofs().
void on_stamped_children_reply(int rc, const String_vector* names, const Stat* stat,
                               const void* data);
/// A TTL create: ZUNIMPLEMENTED means the server has TTL nodes disabled.
void on_create_ttl_reply(int rc, const char* path, const Stat* stat, const void* data);
void on_void_reply(int rc, const void* data);

/// A delete pinned to one session: a success is the proof of a deletion the session's
/// deletion observers are told of before the reply is handed on.
struct remove_op : pending_op<void> {
  std::int64_t session = 0;  ///< the pin (0: not pinned, nothing is told)
  std::string path;
};
void on_remove_reply(int rc, const void* data);
void on_sync_reply(int rc, const char* path, const void* data);

}  // namespace zkcoord::detail
