// Package control is the control plane of a Ruvio cluster across hosts.
//
// Every Ruvio process of the cluster (a member) runs a [Node]. The nodes
// replicate the topology ([State]: the members, the groups of a primary and
// its replicas, the slot ranges each group owns, an epoch that only grows)
// through a consensus log kept by hashicorp/raft, on the member's control
// port. The first three or five seed members vote; the others learn the log
// as non-voters. Every change of the topology is a [Command] in that log, so
// every member that has applied the same entries sees the same topology.
//
// The leader of the consensus group also keeps two things that are not in
// the log: when it last heard from each member (every member sends a
// heartbeat several times per node timeout) and the write leases it
// granted. A primary may serve its slots only while it holds a lease; the
// leader grants one in its answer to the primary's heartbeat, for the node
// timeout, counted by the primary from the moment it sent the heartbeat.
// The leader fails a group over to its most advanced live replica once its
// primary has been silent for the node timeout and the primary's last lease
// has ended by the leader's own clock, with a margin ([leases]); a leader
// that has just been elected first waits out every lease its predecessor
// may have granted. So two members never serve writes for one slot at the
// same time, even when a primary is cut off from the others together with
// some of its clients.
//
// Requests between members (heartbeats, joining, registering, manual
// failover, removal, status) are JSON-RPC calls on the same port as the
// consensus traffic; the first byte of a connection says which it carries.
package control
