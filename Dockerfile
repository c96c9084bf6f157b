# syntax=docker/dockerfile:1
# stellar-horizon-exporter: build with the dev toolchain, run with production dependencies only.
#   docker build -t stellar-horizon-exporter .
#   docker run -p 9619:9619 stellar-horizon-exporter --horizon.url=sdf=https://horizon.stellar.org
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: the package's `prepare` builds, but src/ is not copied yet; the build runs below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production
# The environment of src/cli/node-flags.ts (NODE_ENVIRONMENT): glibc malloc tuned for buffers replaced every poll.
ENV MALLOC_ARENA_MAX=1 MALLOC_MMAP_THRESHOLD_=1048576
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build, and the compiler is a dev dependency; dist/ comes from the build stage.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The node image's unprivileged user (uid 1000).
USER node
EXPOSE 9619
# Node has fetch built in and the slim image has no curl. Set HEALTHCHECK_PORT when --web.listen-address
# moves the exporter off 9619; a --web.config.file with TLS needs its own check.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.HEALTHCHECK_PORT ?? 9619}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The flags of src/cli/node-flags.ts, given here, with the environment above, so the bin has no reason to relaunch itself.
ENTRYPOINT ["node", "--max-semi-space-size=4", "dist/cli/bin.js"]
