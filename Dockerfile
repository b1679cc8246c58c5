# Build a static binary, then ship it alone on a small base image.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/ruvio .

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/ruvio /usr/local/bin/ruvio
COPY docker/config.toml /etc/ruvio/config.toml
VOLUME ["/data"]
EXPOSE 6379
ENTRYPOINT ["/usr/local/bin/ruvio", "--config", "/etc/ruvio/config.toml"]
