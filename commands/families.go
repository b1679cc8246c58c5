package commands

import (
	"github.com/ruvio/ruvio/keyspace"
)

// commandFamilies is every command family's registration, in the order
// they fill the command table.
func commandFamilies() []func(keyspace.CommandTable) {
	return []func(keyspace.CommandTable){
		registerConnectionFamily,
		registerServerFamily,
		registerSlowlogFamily,
		registerStringFamily,
		registerBitmapFamily,
		registerHyperLogLogFamily,
		registerKeyFamily,
		registerClusterFamily,
		registerPersistenceFamily,
		registerFunctionFamily,
		registerScriptingFamily,
		registerKeyJobFamily,
		registerReplicationCommands,
		registerPubSubFamily,
		registerTransactionFamily,
		registerHashFamily,
		registerStreamFamily,
		registerListFamily,
		registerBlockingPops,
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
	return keyspace.BuildCommandTable(append(commandFamilies(), applyCommandSpecs)...)
}
