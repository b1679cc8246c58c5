# Build a static binary, then ship it alone on a small base image without a shell.
# Where no registry is reachable, docker/test.sh builds local stand-ins under these two names
# (docker/build-base-images.sh, from Debian packages and the machine's Go toolchain); they are
# build arguments, so other images can be named (RUVIO_GO_IMAGE / RUVIO_RUNTIME_IMAGE in compose).
ARG GO_IMAGE=golang:1.26-bookworm
ARG RUNTIME_IMAGE=gcr.io/distroless/static-debian12:nonroot

FROM ${GO_IMAGE} AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ruvio . \
 && mkdir -p /out/volume/data

FROM ${RUNTIME_IMAGE}
COPY --from=build /out/ruvio /usr/local/bin/ruvio
COPY docker/config.toml /etc/ruvio/config.toml
# /data exists in the image and belongs to the user the server runs as (distroless's nonroot,
# 65532): a new named volume mounted there is created with that owner, so the server can write
# nodes.conf, its WAL and snapshots. (A bind mount keeps the host directory's owner: chown it to
# 65532 first.)
COPY --from=build --chown=65532:65532 /out/volume/ /
USER 65532:65532
VOLUME ["/data"]
EXPOSE 6379
# No shell or redis-cli in the image: the binary checks itself (PING, and AUTH with
# $RUVIO_PASSWORD when set). Recovery of a large data set happens before the port opens.
HEALTHCHECK --interval=10s --timeout=5s --start-period=120s --retries=3 \
  CMD ["/usr/local/bin/ruvio", "healthcheck", "--port", "6379"]
ENTRYPOINT ["/usr/local/bin/ruvio", "--config", "/etc/ruvio/config.toml"]
