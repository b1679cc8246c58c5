#!/usr/bin/env bash
# Builds the two base images the Dockerfile names, without any image registry, under local tags:
#
#   ruvio-local/golang:bookworm   Debian bookworm (debootstrap, minbase) with this machine's Go
#                                 toolchain and a file-based module proxy holding go.mod's modules
#   ruvio-local/static:nonroot    a distroless-like runtime: no shell, no package manager; CA
#                                 certificates, time zones, /etc/passwd with nonroot (65532), /tmp
#
# Needs root, debootstrap, go and docker; Debian packages come from $DEBIAN_MIRROR. The
# debootstrap tree is kept in $WORK (default /var/tmp/ruvio-docker-base) and reused.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/var/tmp/ruvio-docker-base}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mkdir -p "$work"

if [ ! -x "$work/rootfs/usr/bin/dpkg" ] || [ ! -f "$work/rootfs/etc/ssl/certs/ca-certificates.crt" ]; then
	rm -rf "$work/rootfs"
	debootstrap --variant=minbase --include=ca-certificates,tzdata bookworm "$work/rootfs" "$mirror"
fi

# Build image: Debian + Go + the modules, so `go mod download` in the Dockerfile needs no network.
build="$work/build"
rm -rf "$build"
cp -a "$work/rootfs" "$build"
mkdir -p "$build/usr/local"
cp -a "$(go env GOROOT)" "$build/usr/local/go"
modcache="$work/modcache"
(cd "$root" && GOMODCACHE="$modcache" GOFLAGS=-modcacherw go mod download)
mkdir -p "$build/goproxy"
cp -a "$modcache/cache/download/." "$build/goproxy/"
tar -C "$build" --numeric-owner -c . | docker import \
	--change 'ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
	--change 'ENV GOPROXY=file:///goproxy' \
	--change 'ENV GOSUMDB=off' \
	--change 'ENV GOTOOLCHAIN=local' \
	- ruvio-local/golang:bookworm

# Runtime image: only what a static Go binary and its health check need.
rt="$work/runtime"
rm -rf "$rt"
mkdir -p "$rt/etc/ssl/certs" "$rt/usr/share" "$rt/tmp" "$rt/home/nonroot"
cp "$work/rootfs/etc/ssl/certs/ca-certificates.crt" "$rt/etc/ssl/certs/"
if [ -d "$work/rootfs/usr/share/zoneinfo" ]; then cp -a "$work/rootfs/usr/share/zoneinfo" "$rt/usr/share/"; fi
printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
	'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' > "$rt/etc/passwd"
printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'nonroot:x:65532:' > "$rt/etc/group"
chmod 1777 "$rt/tmp"
chown 65532:65532 "$rt/home/nonroot"
tar -C "$rt" --numeric-owner -c . | docker import \
	--change 'USER 65532:65532' \
	--change 'WORKDIR /home/nonroot' \
	- ruvio-local/static:nonroot

echo "built ruvio-local/golang:bookworm and ruvio-local/static:nonroot"
