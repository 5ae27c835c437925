// SPDX-License-Identifier: Apache-2.0
// The umbrella header: the whole public API of zkcoord except the test harness
// (zkcoord/testing/*.hpp, which users' tests include on their own) and the Prometheus
// observer (zkcoord/prometheus.hpp, library zkcoord::prometheus).
#pragma once

#include <zkcoord/barrier.hpp>
#include <zkcoord/cache.hpp>
#include <zkcoord/counter.hpp>
#include <zkcoord/election.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/fenced.hpp>
#include <zkcoord/leader_selector.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/membership.hpp>
#include <zkcoord/metrics.hpp>
#include <zkcoord/multi_lock.hpp>
#include <zkcoord/ops.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/path.hpp>
#include <zkcoord/persistent_node.hpp>
#include <zkcoord/rw_lock.hpp>
#include <zkcoord/semaphore.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/types.hpp>
