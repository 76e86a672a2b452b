#!/bin/sh
# 10,000 SSE streams through one gateway: every stream is three sockets (client, gateway in and out,
# upstream), so the file-descriptor limit is raised first (children inherit it).
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
exec npx tsx "$(dirname "$0")/sse-streams.ts"
