// SPDX-License-Identifier: Apache-2.0
// Follows one direction of a ZooKeeper TCP stream frame by frame (4-byte big-endian length,
// then the body, whose first 4 bytes are the xid except in the connect handshake). Internal;
// lets tcp_proxy drop exactly the reply to one request.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace zkcoord::testing::detail {

class zk_frames {
 public:
  /// Feeds the next bytes; calls on_frame(frame_index, xid) once per frame as soon as its xid
  /// is known (xid 0 for frames shorter than 4 bytes). Frame 0 is the connect handshake.
  template <class OnFrame>
  void feed(const char* data, std::size_t size, OnFrame&& on_frame) {
    while (size > 0) {
      if (skipping_ || head_len_ == head_.size()) {
        const std::size_t n = size < body_left_ ? size : std::size_t{body_left_};
        data += n;
        size -= n;
        body_left_ -= static_cast<std::uint32_t>(n);
        if (body_left_ == 0) {
          head_len_ = 0;
          skipping_ = false;
        }
        continue;
      }
      head_[head_len_++] = static_cast<unsigned char>(*data++);
      --size;
      if (head_len_ == 4) {
        body_left_ = static_cast<std::uint32_t>(be32(0));
        if (body_left_ < 4) {  // too short to hold an xid
          on_frame(index_++, 0);
          head_len_ = 0;
          skipping_ = body_left_ > 0;
        }
      } else if (head_len_ > 4) {
        --body_left_;
        if (head_len_ == head_.size()) {
          on_frame(index_++, be32(4));
          if (body_left_ == 0) head_len_ = 0;
        }
      }
    }
  }

 private:
  std::int32_t be32(std::size_t at) const {
    return static_cast<std::int32_t>(
        (std::uint32_t{head_[at]} << 24) | (std::uint32_t{head_[at + 1]} << 16) |
        (std::uint32_t{head_[at + 2]} << 8) | std::uint32_t{head_[at + 3]});
  }

  std::array<unsigned char, 8> head_{};
  std::size_t head_len_ = 0;
  std::uint32_t body_left_ = 0;
  bool skipping_ = false;
  std::uint64_t index_ = 0;
};

}  // namespace zkcoord::testing::detail
