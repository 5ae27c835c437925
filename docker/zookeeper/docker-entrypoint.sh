#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The ZooKeeper image's entrypoint. Containers are configured by environment variables with the
# names ZooKeeper images commonly use (ZOO_TICK_TIME, ZOO_SERVERS, ZOO_MY_ID, ...): on the first
# start, this writes $ZOO_CONF_DIR/zoo.cfg and the member's myid from them, then runs the
# command. Started as root to run the server, it first gives the server's directories to the
# zookeeper user and starts again as that user.
set -euo pipefail

# zoo.cfg keys and the variables that hold their values; an empty variable writes no line.
settings='
dataDir                    ZOO_DATA_DIR
dataLogDir                 ZOO_DATA_LOG_DIR
tickTime                   ZOO_TICK_TIME
initLimit                  ZOO_INIT_LIMIT
syncLimit                  ZOO_SYNC_LIMIT
autopurge.snapRetainCount  ZOO_AUTOPURGE_SNAPRETAINCOUNT
autopurge.purgeInterval    ZOO_AUTOPURGE_PURGEINTERVAL
maxClientCnxns             ZOO_MAX_CLIENT_CNXNS
standaloneEnabled          ZOO_STANDALONE_ENABLED
admin.enableServer         ZOO_ADMINSERVER_ENABLED
4lw.commands.whitelist     ZOO_4LW_COMMANDS_WHITELIST
'

zoo_cfg() {
  local key variable
  while read -r key variable; do
    if [ -n "$key" ] && [ -n "${!variable:-}" ]; then
      printf '%s=%s\n' "$key" "${!variable}"
    fi
  done <<<"$settings"
  # The members, server.N=host:quorum-port:election-port;client-port, separated by spaces (one
  # standalone member when unset), then extra key=value lines, also separated by spaces.
  local line
  for line in ${ZOO_SERVERS:-server.1=localhost:2888:3888;2181} ${ZOO_CFG_EXTRA:-}; do
    printf '%s\n' "$line"
  done
}

if [ "${1:-}" = zkServer.sh ] && [ "$(id -u)" = 0 ]; then
  chown -R zookeeper:zookeeper "$ZOO_DATA_DIR" "$ZOO_DATA_LOG_DIR" "$ZOO_LOG_DIR" "$ZOO_CONF_DIR"
  exec setpriv --reuid=zookeeper --regid=zookeeper --init-groups "$0" "$@"
fi

if [ ! -f "$ZOO_CONF_DIR/zoo.cfg" ]; then zoo_cfg >"$ZOO_CONF_DIR/zoo.cfg"; fi
if [ ! -f "$ZOO_CONF_DIR/log4j.properties" ]; then
  cp /usr/local/bin/log4j.properties "$ZOO_CONF_DIR/"
fi
if [ ! -f "$ZOO_DATA_DIR/myid" ]; then echo "${ZOO_MY_ID:-1}" >"$ZOO_DATA_DIR/myid"; fi
exec "$@"
