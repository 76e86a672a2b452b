# nlgate as a sidecar: compiled and bundled once at build time (npm packages inside dist/), run as
# `node dist/cli.js` by a non-root user. The runtime stage holds no node_modules.
#
# Base image: Node 24 LTS (Debian bookworm, slim), by tag. To pin the exact bytes, pull the image
# yourself and pass its digest (docs/deploy.md "Pinning the base image"):
#   docker pull node:24-bookworm-slim
#   docker build --build-arg NODE_IMAGE=node:24-bookworm-slim@$(docker inspect --format '{{index .RepoDigests 0}}' node:24-bookworm-slim | cut -d@ -f2) .
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.lib.json ./
COPY scripts ./scripts
COPY src ./src
COPY adapters ./adapters
COPY examples ./examples
COPY console ./console
# The demo agents (dist/demo-agents.js, for docker-compose.yml) are the test suites' own agents.
COPY test ./test
# The bundle needs no source maps at run time, and the image runs the CLI, not the library
# (dist/lib, for `npm pack`): keep the image to what runs.
RUN npm run build && find dist -name '*.map' -delete && rm -rf dist/lib

FROM ${NODE_IMAGE}
# tini as PID 1: forwards SIGTERM to node (which drains and exits 0) and reaps the children of stdio
# MCP agents. Everything the app reads lives under /app, owned by root and read-only to the app, so
# the container runs with a read-only root filesystem (it writes nothing to disk; give it a /tmp).
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/* /var/cache/apt /var/log/apt /var/log/dpkg.log
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
# glibc returns freed blocks over 128 KiB to the system at once instead of keeping them: NLIP uploads
# at their cap held RSS at 1.3 x the bytes kept with glibc's adaptive threshold, 0.9 x with this
# (docs/security.md "Uploads"); requests of ordinary size allocate nothing that large.
ENV MALLOC_MMAP_THRESHOLD_=131072
# A young generation of 4 MiB semi-spaces instead of V8's default (up to 16 MiB at this heap size,
# grown under load and kept): after 75,000 asks the process holds ~175 MiB instead of ~275, for
# ~10-20% less throughput at full load (docs/benchmarks.md "Footprint"). Override NODE_OPTIONS to
# trade the other way.
ENV NODE_OPTIONS=--max-semi-space-size=4
WORKDIR /app
COPY --from=build /src/dist ./dist
COPY package.json ./
COPY config ./config
COPY examples/catalog ./examples/catalog
USER node
EXPOSE 8080
# Liveness, not readiness: /healthz answers while the process serves HTTP; /readyz also checks the
# store, and a Redis outage must not make Docker restart every replica at once (docs/deploy.md).
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/cli.js", "serve"]
