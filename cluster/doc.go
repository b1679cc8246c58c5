// Package cluster describes how the 16384 hash slots of Redis Cluster map onto a process's
// shards, and renders that static topology for the CLUSTER commands.
//
// A key's slot is CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0, no reflection) of
// the key modulo 16384, see [KeySlot]. If the key contains "{" followed later by "}" with at
// least one byte between the first "{" and the first "}" after it, only those bytes are
// hashed (the hash tag), so "{user1000}.following" and "{user1000}.followers" share a slot.
//
// Shard i of N listens on basePort+i and owns one contiguous range of slots: the slots are
// split as evenly as possible in shard order, the first 16384 mod N ranges one slot longer
// ([NewTopology]). A [Topology] never changes after it is built; there is no failover,
// resharding or gossip, and the cluster bus port (port+10000) is reported but not served.
//
// Node ids are 40 hex characters, random on first start and kept in the data directory so
// clients see the same ids after a restart ([LoadOrCreateNodeIDs]).
package cluster
