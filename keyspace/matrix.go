package keyspace

//go:generate go run ../cmd/genmatrix -o ../docs/compatibility-matrix.json
