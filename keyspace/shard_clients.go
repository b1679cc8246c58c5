package keyspace

// Each shard's port behaves as one node of a Redis Cluster: CLIENT LIST,
// INFO's connected_clients and MONITOR show the connections of that shard
// only. The process as a whole is seen through INFO's
// ruvio_process_connected_clients; CLIENT KILL, CLIENT UNBLOCK and
// maxclients still act on every connection of the process.

// ShardLen is the number of open connections of shard i.
func (r *clientRegistry) ShardLen(i int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, c := range r.clients {
		if c.Shard == i {
			n++
		}
	}
	return n
}
