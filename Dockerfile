# The gateway's Node server as a container image: `npm run build` in a build stage, then a runtime stage
# holding only the bundle, its source map and a configuration.
#
#   docker build -t s3-gateway .
#   docker run -p 8080:8080 --stop-timeout 30 -v "$PWD/proxy.toml:/etc/s3-gateway/proxy.toml:ro" \
#     -e SESSION_TOKEN_KEY="$(openssl rand -base64 32)" s3-gateway
#
# Build arguments:
#   NODE_IMAGE  the base of both stages: the official Node image by default; any image with node (>= 20.19)
#               on PATH will do, plus npm and /bin/sh for the build stage.
#   CONFIG      the configuration baked in at /etc/s3-gateway/proxy.toml, a path in the build context
#               (default: the repository's proxy.toml). A file mounted there at run time replaces it, and
#               CONFIG_PATH can point elsewhere.
ARG NODE_IMAGE=node:22-bookworm-slim

# The bundle is plain JavaScript, the same for every architecture: the build stage runs on the builder's
# own platform, so an arm64 image builds on x86-64 without emulation (the runtime stage runs no commands).
FROM --platform=$BUILDPLATFORM ${NODE_IMAGE} AS build
WORKDIR /build/app
COPY package.json package-lock.json ./
# The runtime dependencies from the lockfile, and the two build tools at their locked versions one directory
# up, where both Node's module resolution and npm's script PATH find them: the whole development tree (CDK,
# emulators, test runners) is about 900 MB the bundle does not need.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && cd .. \
 && npm install --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
      "esbuild@$(node -p "require('./app/package-lock.json').packages['node_modules/esbuild'].version")" \
      "tsx@$(node -p "require('./app/package-lock.json').packages['node_modules/tsx'].version")"
COPY tsconfig.json ./
COPY scripts scripts
COPY functions functions
RUN npm run build

FROM ${NODE_IMAGE}
WORKDIR /app
COPY --from=build /build/app/dist/node-server.js /build/app/dist/node-server.js.map ./
ARG CONFIG=proxy.toml
COPY ${CONFIG} /etc/s3-gateway/proxy.toml
# HOST 0.0.0.0: reachable through the published port (the server's own default is loopback only).
ENV HOST=0.0.0.0 \
    PORT=8080 \
    CONFIG_PATH=/etc/s3-gateway/proxy.toml
# The official image's `node` user, by number so that runAsNonRoot can verify it. The files stay root's:
# the server writes nothing.
USER 1000:1000
EXPOSE 8080
# 200 while serving, 503 once draining after SIGTERM (see functions/core/health.ts).
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/.health', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.status === 200 ? 0 : 1), () => process.exit(1))"]
# The V8 flags of NODE_SERVER_FLAGS (functions/node-server.ts): not accepted in NODE_OPTIONS. node runs as
# PID 1 and handles SIGTERM itself (drain, then exit 0).
ENTRYPOINT ["node", "--enable-source-maps", "--initial-old-space-size=64", "/app/node-server.js"]
