# stellar-horizon-exporter: build with the dev toolchain, run with production dependencies only.
#   docker build -t stellar-horizon-exporter .
#   docker run -p 9619:9619 stellar-horizon-exporter --horizon.url=sdf=https://horizon.stellar.org
# Where no image registry is reachable, NODE_IMAGE names a local stand-in (README, Docker;
# scripts/container/base-image.sh). No `# syntax=` line: BuildKit would fetch that frontend.
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
# Node's memory settings (docs/performance.md): glibc malloc tuned for buffers replaced every poll,
# and a small young generation (the node flag in HEALTHCHECK and ENTRYPOINT).
ENV MALLOC_ARENA_MAX=1 MALLOC_MMAP_THRESHOLD_=1048576
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build, and the compiler is a dev dependency; dist/ comes from the build stage.
# npm's folder goes whole: its cache, and the logs and notes `npm cache clean` leaves.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && rm -rf "$(npm config get cache)"
COPY --from=build /app/dist ./dist
# The node image's unprivileged user (uid 1000).
USER node
EXPOSE 9619
# The bin's healthcheck reads the container's command and environment as the exporter does, so it
# probes the address the exporter listens on, over HTTPS when the web config turns TLS on. Node
# itself takes a second or more to start on a busy machine: hence 10 s.
HEALTHCHECK --interval=30s --timeout=10s --start-period=15s --retries=3 \
  CMD ["node", "--max-semi-space-size=4", "--heap-growing-percent=50", "dist/cli/bin.js", "healthcheck"]
ENTRYPOINT ["node", "--max-semi-space-size=4", "--heap-growing-percent=50", "dist/cli/bin.js"]
