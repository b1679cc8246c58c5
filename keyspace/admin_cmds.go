package keyspace

// This file holds server commands clients and tools send that have no
// subject of their own here: BGREWRITEAOF (the WAL's compaction), MODULE
// (no module is ever loaded), LOLWUT and MEMORY MALLOC-STATS.
