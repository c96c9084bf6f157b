#!/usr/bin/env bash
# `npm run test:container`: builds the image from this checkout and runs it, on a Docker engine of
# its own: a dockerd started here (as root) with its state in a temporary folder, stopped at the end.
# The base image comes from scripts/container/base-image.sh (cached, see there); the build never
# pulls. test/container/image.test.ts then runs the image against the simulator on this host.
# With no container engine to start, it says so in one line and fails: it never skips.
set -euo pipefail
cd "$(dirname "$0")/../.."

cache=${STELLAR_EXPORTER_CACHE:-/var/cache/stellar-horizon-exporter}
base_image=local/node:24-bookworm-slim
image=stellar-horizon-exporter:test

no_engine() { echo "test:container: no container engine can start here: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || no_engine "dockerd needs root"
command -v dockerd >/dev/null || no_engine "dockerd is not installed (Debian: apt-get install docker.io debootstrap cgroupfs-mount)"
command -v debootstrap >/dev/null || no_engine "debootstrap is not installed (Debian: apt-get install debootstrap)"

mkdir -p "$cache"
# One run at a time on this machine: the base's cache is shared.
exec 9>"$cache/lock"
flock -w 1200 9 || no_engine "another container test has held $cache/lock for 20 minutes"

# Docker needs the cgroup hierarchies mounted; Debian's cgroupfs-mount mounts them where nothing did.
if ! grep -q ' /sys/fs/cgroup' /proc/mounts && command -v cgroupfs-mount >/dev/null; then cgroupfs-mount; fi

# A short path: the engine's sockets live under it.
state=$(mktemp -d /tmp/she-docker.XXXXXX)
export DOCKER_HOST="unix://$state/docker.sock"
# Debian's client, matching Debian's dockerd, ahead of any other `docker` on PATH.
mkdir "$state/bin"
ln -s "$(command -v /usr/bin/docker docker | head -n 1)" "$state/bin/docker"
export PATH="$state/bin:$PATH"
dockerd_pid=
stop_engine() {
  if [ -n "$dockerd_pid" ] && kill -0 "$dockerd_pid" 2>/dev/null; then
    docker ps -aq | xargs -r docker rm -f >/dev/null 2>&1 || true
    kill "$dockerd_pid"
    for _ in $(seq 1 100); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$dockerd_pid" 2>/dev/null || true
  fi
  # dockerd leaves its default network namespace mounted.
  grep -o " $state/[^ ]*" /proc/mounts | sort -r | xargs -r -n 1 umount -l 2>/dev/null || true
  rm -rf "$state"
}
trap stop_engine EXIT
trap 'exit 1' INT TERM

started=$(date +%s.%N)
dockerd --iptables=false --ip-masq=false --bridge=none --storage-driver=overlay2 \
  --data-root="$state/data" --exec-root="$state/exec" --pidfile="$state/dockerd.pid" \
  -H "$DOCKER_HOST" >"$state/dockerd.log" 2>&1 9>&- &
dockerd_pid=$!
for _ in $(seq 1 150); do
  docker version >/dev/null 2>&1 && break
  kill -0 "$dockerd_pid" 2>/dev/null || break
  sleep 0.2
done
docker version >/dev/null 2>&1 || no_engine "dockerd did not start: $(tail -n 1 "$state/dockerd.log")"
elapsed() { awk -v from="$1" -v to="$(date +%s.%N)" 'BEGIN { printf "%.1f s", to - from }'; }
echo "test:container: dockerd $(docker version --format '{{.Server.Version}}') up in $(elapsed "$started")"

started=$(date +%s.%N)
bash scripts/container/base-image.sh
echo "test:container: base image ready in $(elapsed "$started")"

# The legacy builder: BuildKit would fetch its frontend. The host's network: the engine has no bridge.
started=$(date +%s.%N)
DOCKER_BUILDKIT=0 docker build --quiet --network=host --build-arg NODE_IMAGE="$base_image" -t "$image" . >"$state/build.log" 2>&1 ||
  { tail -n 30 "$state/build.log" >&2; echo "test:container: docker build failed" >&2; exit 1; }
# The legacy builder keeps the build stage as an untagged image.
docker image prune --force >/dev/null
echo "test:container: built $image in $(elapsed "$started")"

export CONTAINER_IMAGE=$image BASE_IMAGE=$base_image
npx vitest run --config vitest.container.config.ts
