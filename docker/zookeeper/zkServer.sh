#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# `zkServer.sh start-foreground`, as in the official image, for Debian's package: the server's
# JVM in the foreground, logging to the console (docker logs) through log4j 1.2, which Debian's
# classpath lacks (without slf4j-log4j12 and log4j the server logs nothing).
set -e
[[ "${1:-start-foreground}" = start-foreground ]] || { echo "only start-foreground is supported" >&2; exit 2; }
# zookeeper.jar's manifest names the rest of its dependencies.
classpath="$ZOO_CONF_DIR:/usr/share/java/zookeeper.jar"
classpath="$classpath:/usr/share/java/slf4j-log4j12.jar:/usr/share/java/log4j-1.2.jar"
# shellcheck disable=SC2086  # JVMFLAGS / SERVER_JVMFLAGS are lists of flags, as upstream
exec java -Dzookeeper.log.dir="$ZOO_LOG_DIR" -Dlog4j.configuration="file:$ZOO_CONF_DIR/log4j.properties" \
  ${SERVER_JVMFLAGS:-} ${JVMFLAGS:--Xmx256m} -cp "$classpath" \
  org.apache.zookeeper.server.quorum.QuorumPeerMain "$ZOO_CONF_DIR/zoo.cfg"
