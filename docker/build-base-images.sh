#!/usr/bin/env bash
# Builds local stand-ins for the two base images the Dockerfile names, without any image registry,
# under the Dockerfile's own names (its ARG defaults), so that a plain `docker compose up` builds:
#
#   GO_IMAGE       (golang:1.26-bookworm)  Debian bookworm from debootstrap (minbase) with this
#                  machine's Go toolchain at /usr/local/go and a file module proxy at /goproxy
#                  holding go.mod's modules (GOPROXY=file:///goproxy, GOTOOLCHAIN=local)
#   RUNTIME_IMAGE  (gcr.io/distroless/static-debian12:nonroot)  distroless-like: no shell, no
#                  package manager; CA certificates, time zones, /etc/passwd and /etc/group with
#                  nonroot (65532), /tmp; runs as 65532 in /home/nonroot
#
# An image already present under its name is left alone (a real one pulled from a registry, or a
# stand-in built earlier); --force rebuilds the stand-ins. A stand-in carries the label
# org.ruvio.stand-in=true (images built on it inherit it), which tells it from a real image of
# the same name: `docker image inspect --format '{{.Config.Labels}}' NAME`. Remove the stand-ins
# by name (docker rmi golang:1.26-bookworm gcr.io/distroless/static-debian12:nonroot) before
# pulling the real images on a machine with a registry.
#
# Needs root, debootstrap, go and docker; Debian packages come from $DEBIAN_MIRROR. The
# debootstrap tree is kept in $WORK (default /var/tmp/ruvio-docker-base) and reused; delete the
# directory to start from nothing. Modules come from this machine's module cache first, then
# from its GOPROXY.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-/var/tmp/ruvio-docker-base}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
label=org.ruvio.stand-in=true
force=0
[ "${1:-}" = --force ] && force=1

# The names come from the Dockerfile so the two cannot drift apart.
arg_default() { sed -n "s/^ARG $1=//p" "$root/Dockerfile" | head -n 1; }
go_image=${GO_IMAGE:-$(arg_default GO_IMAGE)}
runtime_image=${RUNTIME_IMAGE:-$(arg_default RUNTIME_IMAGE)}
[ -n "$go_image" ] && [ -n "$runtime_image" ] || { echo "no ARG GO_IMAGE / RUNTIME_IMAGE default in the Dockerfile" >&2; exit 1; }

present() { docker image inspect "$1" >/dev/null 2>&1; }
need_go=1; need_rt=1
# A Go stand-in built before go.mod gained a module has no copy of it (its module proxy is a file
# tree, and no registry is reachable), so the image build would fail at `go mod download`: such a
# stand-in is rebuilt. A real image (no stand-in label) is never touched.
stale_go_stand_in() {
	[ "$(docker image inspect --format '{{index .Config.Labels "org.ruvio.stand-in"}}' "$go_image" 2>/dev/null)" = true ] || return 1
	! timeout 300 docker run --rm --network none -v "$root/go.mod:/src/go.mod:ro" -v "$root/go.sum:/src/go.sum:ro" \
		-w /src "$go_image" go mod download >/dev/null 2>&1
}
if [ "$force" = 0 ]; then
	if present "$go_image" && stale_go_stand_in; then
		echo "$go_image: a stand-in that lacks modules go.mod needs: rebuilding it"
	else
		present "$go_image" && { echo "$go_image: present, kept"; need_go=0; }
	fi
	present "$runtime_image" && { echo "$runtime_image: present, kept"; need_rt=0; }
fi
[ "$need_go" = 1 ] || [ "$need_rt" = 1 ] || exit 0

mkdir -p "$work"
rootfs="$work/rootfs"
if [ ! -x "$rootfs/usr/bin/dpkg" ] || [ ! -f "$rootfs/etc/ssl/certs/ca-certificates.crt" ]; then
	command -v debootstrap >/dev/null || { echo "debootstrap not found (apt-get install debootstrap)" >&2; exit 1; }
	echo "debootstrap bookworm (minbase) into $rootfs from $mirror"
	# Into a temporary directory first: an interrupted run leaves nothing that looks finished.
	rm -rf "$rootfs" "$rootfs.tmp"
	timeout 900 debootstrap --variant=minbase --include=ca-certificates,tzdata bookworm "$rootfs.tmp" "$mirror" \
		>"$work/debootstrap.log" 2>&1 || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
	rm -rf "$rootfs.tmp/var/cache/apt/archives/"*.deb
	mv "$rootfs.tmp" "$rootfs"
else
	echo "debootstrap tree $rootfs: present, reused"
fi

if [ "$need_go" = 1 ]; then
	want=$(printf '%s' "$go_image" | sed -n 's/^golang:\([0-9][0-9.]*\).*/go\1/p')
	have=$(go env GOVERSION)
	case "$have" in "$want"|"$want".*|"$want"rc*) ;; *) [ -z "$want" ] || echo "warning: $go_image gets this machine's $have" >&2 ;; esac
	build="$work/build"
	rm -rf "$build"
	cp -a "$rootfs" "$build"
	mkdir -p "$build/usr/local"
	cp -a "$(go env GOROOT)" "$build/usr/local/go"
	modcache="$work/modcache"
	(cd "$root" && GOMODCACHE="$modcache" GOFLAGS=-modcacherw \
		GOPROXY="file://$(go env GOMODCACHE)/cache/download,$(go env GOPROXY)" go mod download)
	mkdir -p "$build/goproxy"
	cp -a "$modcache/cache/download/." "$build/goproxy/"
	tar -C "$build" --numeric-owner -c . | docker import \
		--change "LABEL $label" \
		--change 'ENV PATH=/usr/local/go/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
		--change 'ENV GOPROXY=file:///goproxy' \
		--change 'ENV GOSUMDB=off' \
		--change 'ENV GOTOOLCHAIN=local' \
		--change 'CMD ["bash"]' \
		- "$go_image" >/dev/null
	rm -rf "$build"
	echo "$go_image: built ($have, $(du -sh "$rootfs" | cut -f1) Debian root)"
fi

if [ "$need_rt" = 1 ]; then
	rt="$work/runtime"
	rm -rf "$rt"
	mkdir -p "$rt/etc/ssl/certs" "$rt/usr/share" "$rt/tmp" "$rt/home/nonroot"
	cp "$rootfs/etc/ssl/certs/ca-certificates.crt" "$rt/etc/ssl/certs/"
	cp "$rootfs/etc/os-release" "$rt/etc/" 2>/dev/null || true
	if [ -d "$rootfs/usr/share/zoneinfo" ]; then cp -a "$rootfs/usr/share/zoneinfo" "$rt/usr/share/"; fi
	printf '%s\n' 'root:x:0:0:root:/root:/sbin/nologin' 'nobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin' \
		'nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin' >"$rt/etc/passwd"
	printf '%s\n' 'root:x:0:' 'nobody:x:65534:' 'nonroot:x:65532:' >"$rt/etc/group"
	chmod 1777 "$rt/tmp"
	chown 65532:65532 "$rt/home/nonroot"
	tar -C "$rt" --numeric-owner -c . | docker import \
		--change "LABEL $label" \
		--change 'USER 65532:65532' \
		--change 'WORKDIR /home/nonroot' \
		- "$runtime_image" >/dev/null
	rm -rf "$rt"
	echo "$runtime_image: built"
fi
