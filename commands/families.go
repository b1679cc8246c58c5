package commands

import (
	"github.com/ruvio/ruvio/keyspace"
)

// This file is the only place that names every command family. The engine
// (package keyspace) names none: it gets the table this package builds, so
// a new family is added here and in its own file.
//
// The list is a function returning a fresh slice, not a package variable
// the families append to from init(): nothing can change it at run time,
// and the order stays the one written here rather than the order of file
// names, which init() would give.

// commandFamilies is every command family's registration, in the order
// they fill the command table.
func commandFamilies() []func(keyspace.CommandTable) {
	return []func(keyspace.CommandTable){
		registerConnectionFamily,
		registerServerFamily,
		registerSlowlogFamily,
		registerLatencyFamily,
		registerStringFamily,
		registerBitmapFamily,
		registerHyperLogLogFamily,
		registerKeyFamily,
		registerClusterFamily,
		registerMigrateFamily,
		registerPersistenceFamily,
		registerFunctionFamily,
		registerScriptingFamily,
		registerKeyJobFamily,
		registerReplicationCommands,
		registerSlotMoveCommands,
		registerPubSubFamily,
		registerTransactionFamily,
		registerHashFamily,
		registerHashTTLFamily,
		registerStreamFamily,
		registerListFamily,
		registerListBlockingPops,
		registerZSetBlockingPops,
		registerSetFamily,
		registerZSetFamily,
		registerGeoFamily,
		registerSortFamily,
		registerBloomFamily,
		registerAdminFamily,
	}
}

// newCommandTable builds the command table: every family in
// commandFamilies registers its commands, in order, then the specs are
// applied.
func newCommandTable() keyspace.CommandTable {
	return keyspace.BuildCommandTable(append(commandFamilies(), deriveMovableKeys)...)
}
