// Package faults holds the fault tests of the whole stack (make test-faults): a gateway in
// front of two register workers, with Redis for limits and sessions and Postgres for keys,
// usage and the registers, all started from the built binaries on 127.0.0.1 and put under
// a steady load while a fault is injected: a worker killed, Postgres stopped, Redis stopped
// or frozen, a new register dataset activated.
//
// Callers of the service fail open on a 1.5 s budget, so what the tests hold every answer
// to is what a caller relies on: it comes within 1.5 s; it is either a correct answer of one
// of the register versions being served (checked against openapi.json and against the
// register samples themselves) or a 503 SERVICE_UNAVAILABLE that says so in the spec's error
// body; and the service heals by itself once the fault is gone. Afterwards every log the
// processes wrote is searched for the addresses, postcodes, streets, places and typed text
// that were submitted, and for the key secrets.
//
// The tests own their servers: a throwaway Postgres cluster and redis-server per scenario on
// free ports, never the shared instances, because stopping them is the point. They build
// bin/worker and bin/gateway from this checkout into a temporary directory.
//
// The tests carry the build tag faults, so that `go test ./...` (make test) does not run
// them beside other packages: they need the machine's two cores to themselves to hold the
// service to its latency budget. Run them with
//
//	go test -tags faults -count=1 -timeout 15m ./bench/faults/...
//
// They need redis-server on PATH and the PostgreSQL server programs (found with pg_config,
// or ADRESWIJZER_PG_BINDIR); run as root, they run Postgres as the postgres user. With
// ADRESWIJZER_FAULTS_LOGS=DIR every scenario leaves its processes' logs there, with
// requests.csv: each request's start, duration, status and route (never what it sent).
//
// The package has only tests; this file exists for its documentation.
package faults
