#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Writes zoo.cfg and myid from the official image's variables when there is no zoo.cfg yet
# (as docker-library/zookeeper's entrypoint does), then runs the command as user zookeeper.
set -e

if [[ "$1" = 'zkServer.sh' && "$(id -u)" = '0' ]]; then
  chown -R zookeeper:zookeeper "$ZOO_DATA_DIR" "$ZOO_DATA_LOG_DIR" "$ZOO_LOG_DIR" "$ZOO_CONF_DIR"
  exec setpriv --reuid=zookeeper --regid=zookeeper --init-groups "$0" "$@"
fi

CONFIG="$ZOO_CONF_DIR/zoo.cfg"
if [[ ! -f "$CONFIG" ]]; then
  {
    echo "dataDir=$ZOO_DATA_DIR"
    echo "dataLogDir=$ZOO_DATA_LOG_DIR"
    echo "tickTime=$ZOO_TICK_TIME"
    echo "initLimit=$ZOO_INIT_LIMIT"
    echo "syncLimit=$ZOO_SYNC_LIMIT"
    echo "autopurge.snapRetainCount=$ZOO_AUTOPURGE_SNAPRETAINCOUNT"
    echo "autopurge.purgeInterval=$ZOO_AUTOPURGE_PURGEINTERVAL"
    echo "maxClientCnxns=$ZOO_MAX_CLIENT_CNXNS"
    echo "standaloneEnabled=$ZOO_STANDALONE_ENABLED"
    echo "admin.enableServer=$ZOO_ADMINSERVER_ENABLED"
    for server in ${ZOO_SERVERS:-server.1=localhost:2888:3888;2181}; do
      echo "$server"
    done
    [[ -z $ZOO_4LW_COMMANDS_WHITELIST ]] || echo "4lw.commands.whitelist=$ZOO_4LW_COMMANDS_WHITELIST"
    for cfg_extra_entry in $ZOO_CFG_EXTRA; do
      echo "$cfg_extra_entry"
    done
  } >"$CONFIG"
fi
[[ -f "$ZOO_CONF_DIR/log4j.properties" ]] || cp /usr/local/bin/log4j.properties "$ZOO_CONF_DIR/"
[[ -f "$ZOO_DATA_DIR/myid" ]] || echo "${ZOO_MY_ID:-1}" >"$ZOO_DATA_DIR/myid"

exec "$@"
