// Command netpath measures what the kernel path between a server and its
// clients costs per request, apart from everything a real server does with
// a request. It is one event loop serving GET and SET from a Go map, with
// the sockets driven one of two ways:
//
//	netpath -mode epoll -port 7000               # epoll, read(2) and write(2), as redis-server does
//	netpath -mode uring -port 7000               # io_uring: receives and sends of a turn in one io_uring_enter
//
// The server's own work per request is the same in both, so the
// difference in CPU per request between the modes is the kernel path's
// (bench/netpath.sh runs them beside redis-server and Ruvio). It is a
// measuring tool, not a server: no persistence, no expiry, no other command
// (PING answers PONG, CONFIG an empty array and every other command +OK:
// what bench/lib.sh and redis-benchmark need).
package main
