#!/bin/bash
# The hot-path cost of telemetry (docs/operations.md "Cost"): `npm start` from a checkout DIR on PORT,
# autocannon POST /ask (10 connections, 3 s warm-up, 10 s measured), and the server's CPU time per
# request, which a shared, loaded machine distorts less than requests per second.
#   bench/telemetry-cost.sh DIR PORT            e.g. a checkout before telemetry, then this one
set -euo pipefail
DIR=$1; PORT=$2
HERE=$(cd "$(dirname "$0")/.." && pwd)
(cd "$DIR" && PORT=$PORT LOG_LEVEL=warn setsid bash -c 'echo $$ > /tmp/nlgate-bench-pgid-'"$PORT"'; exec npm start' > /tmp/nlgate-bench-"$PORT".log 2>&1 &)
sleep 0.5; PGID=$(cat /tmp/nlgate-bench-pgid-"$PORT")
trap 'kill -TERM -- -$PGID 2>/dev/null || true' EXIT
for _ in $(seq 1 150); do curl -sf "http://127.0.0.1:$PORT/healthz" > /dev/null && break; sleep 0.2; done
SERVER=$(ps -eo pid,pgid,args | awk -v g="$PGID" '$2==g && /cli.ts/ && !/npm|sh -c/ {print $1}' | tail -1)
BODY='{"query":{"text":"spaghetti"}}'
cd "$HERE"
npx autocannon -c 10 -d 3 -m POST -H 'content-type: application/json' -b "$BODY" "http://127.0.0.1:$PORT/ask" > /dev/null 2>&1
T0=$(awk '{print $14+$15}' /proc/"$SERVER"/stat)
npx autocannon -j -c 10 -d 10 -m POST -H 'content-type: application/json' -b "$BODY" "http://127.0.0.1:$PORT/ask" 2> /dev/null > /tmp/nlgate-bench-"$PORT".json
T1=$(awk '{print $14+$15}' /proc/"$SERVER"/stat)
TICK=$(getconf CLK_TCK)
node -e 'const [f,t0,t1,tick,dir]=process.argv.slice(1);const r=require(f);console.log(dir,"req/s",r.requests.average,"p50",r.latency.p50,"ms p99",r.latency.p99,"ms cpu/req",((t1-t0)*1000/tick/r.requests.total).toFixed(3),"ms")' /tmp/nlgate-bench-"$PORT".json "$T0" "$T1" "$TICK" "$DIR"
