# nlgate as a sidecar: compiled once at build time, run as `node dist/cli.js` by a non-root user.
#
# Base image: Node 24 LTS (Debian bookworm, slim), pinned by the digest of its multi-arch index so a
# rebuild gets the same bytes. The digest is the one published for node:24-bookworm-slim (24.18.0);
# it was not pulled on the machine that wrote this file. To move to a newer 24.x, run
#   docker buildx imagetools inspect node:24-bookworm-slim --format '{{.Manifest.Digest}}'
# and replace the digest below (one place: both stages use NODE_IMAGE).
ARG NODE_IMAGE=node:24-bookworm-slim@sha256:6f7b03f7c2c8e2e784dcf9295400527b9b1270fd37b7e9a7285cf83b6951452d

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY src ./src
COPY adapters ./adapters
COPY examples ./examples
COPY test ./test
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
# tini as PID 1: forwards SIGTERM to node (which drains and exits 0) and reaps the children of stdio
# MCP agents. Everything the app reads lives under /app, owned by root and read-only to the app, so
# the container runs with a read-only root filesystem (it writes nothing to disk; give it a /tmp).
RUN apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080
WORKDIR /app
COPY --from=build /src/node_modules ./node_modules
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
