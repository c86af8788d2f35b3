#!/usr/bin/env bash
# The replicas recipe on one machine, from one command: Redis, the demo job API, three `jobtasks serve`
# replicas and nginx in front of them (round robin), all in the foreground; Ctrl-C (or SIGTERM) stops them
# all. Needs redis-server and nginx (Debian: apt-get install redis-server nginx) and a built checkout
# (pnpm install && pnpm build). Then point an MCP client at http://127.0.0.1:8080/mcp.
#
# Ports and the working folder can be chosen through the environment: LISTEN_PORT (8080), REPLICA_PORTS
# ("3001 3002 3003"), REDIS_PORT (6379), DEMO_API_PORT (4010), RUN_DIR (a new temporary folder: nginx's
# config and temp files, each process's log, and a <name>.pid file per process).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
LISTEN_PORT="${LISTEN_PORT:-8080}"
read -r -a replica_ports <<<"${REPLICA_PORTS:-3001 3002 3003}"
REDIS_PORT="${REDIS_PORT:-6379}"
DEMO_API_PORT="${DEMO_API_PORT:-4010}"
RUN_DIR="${RUN_DIR:-$(mktemp -d -t jobtasks-replicas-XXXXXX)}"
mkdir -p "$RUN_DIR"
echo "$$" >"$RUN_DIR/start.pid"
# One secret for the three: any replica opens any task id.
JOBTASKS_SECRET="${JOBTASKS_SECRET:-$(node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("base64url"))')}"
export JOBTASKS_SECRET

find_program() {
  for candidate in "$@"; do
    if [ -x "$candidate" ]; then echo "$candidate"; return 0; fi
  done
  command -v "$(basename "$1")" || { echo "$(basename "$1") is not installed (Debian: apt-get install redis-server nginx)" >&2; exit 1; }
}
redis_server="$(find_program /usr/bin/redis-server /usr/local/bin/redis-server)"
nginx_binary="$(find_program /usr/sbin/nginx /usr/bin/nginx /usr/local/sbin/nginx)"

pids=()
stop_all() {
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait || true
  exit 0
}
trap stop_all EXIT INT TERM

start() { # name, command...
  local name="$1"
  shift
  "$@" >"$RUN_DIR/$name.log" 2>&1 &
  pids+=("$!")
  echo "$!" >"$RUN_DIR/$name.pid"
}

start redis "$redis_server" --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no
DEMO_API_PORT="$DEMO_API_PORT" start demo-api node "$root/examples/demo/dist/start-demo-api.js"

export JOBTASKS_REDIS_URL="redis://127.0.0.1:$REDIS_PORT"
export DEMO_API_URL="http://127.0.0.1:$DEMO_API_PORT"
for index in 0 1 2; do
  start "replica-$((index + 1))" node "$root/packages/cli/dist/bin.js" serve --config "$here/jobtasks.config.yaml" \
    --host 127.0.0.1 --port "${replica_ports[$index]}"
done

mkdir -p "$RUN_DIR/temp"
cp "$here/jobtasks-proxy.conf" "$RUN_DIR/jobtasks-proxy.conf"
{
  echo "daemon off;"
  # One process in the foreground, as the user running this script: stopped with it.
  echo "master_process off;"
  echo "worker_processes 1;"
  echo "pid $RUN_DIR/nginx.pid;"
  echo "error_log $RUN_DIR/nginx-error.log warn;"
  echo "events { worker_connections 1024; }"
  echo "http {"
  echo "  access_log off;"
  for kind in client_body proxy fastcgi uwsgi scgi; do echo "  ${kind}_temp_path $RUN_DIR/temp/$kind;"; done
  sed -e "s/\${REPLICA_1}/127.0.0.1:${replica_ports[0]}/" \
    -e "s/\${REPLICA_2}/127.0.0.1:${replica_ports[1]}/" \
    -e "s/\${REPLICA_3}/127.0.0.1:${replica_ports[2]}/" \
    -e "s/\${LISTEN_PORT}/127.0.0.1:$LISTEN_PORT/" "$here/nginx.conf.template"
  echo "}"
} >"$RUN_DIR/nginx.conf"
# nginx's own pid file is written by nginx; nginx.pid below is the process start.sh started (the same one).
"$nginx_binary" -p "$RUN_DIR" -e "$RUN_DIR/nginx-error.log" -c "$RUN_DIR/nginx.conf" >"$RUN_DIR/nginx.log" 2>&1 &
pids+=("$!")

echo "jobtasks replicas: http://127.0.0.1:$LISTEN_PORT/mcp (logs and pids in $RUN_DIR)" >&2
# Until stopped: a replica that dies is the balancer's to route around, not a reason to stop the rest.
while true; do
  wait || true
  sleep 1
done
