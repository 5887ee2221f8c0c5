package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/adreswijzer/adreswijzer"
)

// Every dataset lives in its own schema (aw_ds_<id>) beside the others, and one control table
// says which dataset serves each country. Loading into a fresh schema and switching the
// control row in one transaction is what lets readers keep the old dataset until the new one
// is complete, and lets an interrupted import leave nothing but a schema to drop.
const controlSchema = "adreswijzer"

const (
	stateLoading = "loading"
	stateActive  = "active"
	stateRetired = "retired"
)

// Advisory lock keys: lockClass with 0 guards creating the control schema, lockClass with a
// country key guards that country's imports.
const lockClass int32 = 0x41570001

func countryLock(c adreswijzer.Country) int32 {
	s := string(c)
	return int32(s[0])<<8 | int32(s[1])
}

const controlDDL = `
CREATE SCHEMA IF NOT EXISTS adreswijzer;
CREATE TABLE IF NOT EXISTS adreswijzer.datasets (
	id           bigserial PRIMARY KEY,
	country      text NOT NULL,
	version      text NOT NULL DEFAULT '',
	schema_name  text NOT NULL UNIQUE,
	state        text NOT NULL CHECK (state IN ('loading', 'active', 'retired')),
	created_at   timestamptz NOT NULL DEFAULT now(),
	activated_at timestamptz,
	addresses    bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS datasets_one_active ON adreswijzer.datasets (country) WHERE state = 'active';
`

// ensureControl creates the control table. Two processes starting at once would race on
// CREATE ... IF NOT EXISTS, so the creation runs under a transaction-scoped advisory lock.
func ensureControl(ctx context.Context, db interface {
	Begin(context.Context) (pgx.Tx, error)
}) error {
	tx, err := db.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1, 0)", lockClass); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, controlDDL); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// datasetDDL creates the tables of one dataset. Text columns use the C collation: postcodes,
// ids and units compare byte by byte, as the memory store orders them, and C comparisons are
// the cheapest an index can do. Indexes come after the load (see indexDDL).
func datasetDDL(schema string) string {
	q := pgx.Identifier{schema}.Sanitize()
	return strings.NewReplacer("$S", q).Replace(`
CREATE SCHEMA $S;
CREATE TABLE $S.streets (
	id integer NOT NULL, register_id text NOT NULL,
	name_nl text NOT NULL, name_fr text NOT NULL, name_de text NOT NULL, short text NOT NULL,
	muni_nl text NOT NULL, muni_fr text NOT NULL, muni_de text NOT NULL);
CREATE TABLE $S.localities (
	id integer NOT NULL,
	name_nl text NOT NULL, name_fr text NOT NULL, name_de text NOT NULL,
	muni_nl text NOT NULL, muni_fr text NOT NULL, muni_de text NOT NULL);
CREATE TABLE $S.areas (
	id integer NOT NULL,
	muni_nl text NOT NULL, muni_fr text NOT NULL, muni_de text NOT NULL,
	sub_nl text NOT NULL, sub_fr text NOT NULL, sub_de text NOT NULL);
CREATE TABLE $S.places (
	postcode text COLLATE "C" NOT NULL, street integer NOT NULL, locality integer NOT NULL);
CREATE TABLE $S.addresses (
	postcode text COLLATE "C" NOT NULL, number integer NOT NULL,
	suffix text COLLATE "C" NOT NULL, addition text COLLATE "C" NOT NULL, box text COLLATE "C" NOT NULL,
	id text COLLATE "C" NOT NULL,
	street integer NOT NULL, locality integer NOT NULL, area integer NOT NULL, status smallint NOT NULL);
`)
}

func indexDDL(schema string) string {
	q := pgx.Identifier{schema}.Sanitize()
	return strings.NewReplacer("$S", q).Replace(`
ALTER TABLE $S.streets ADD PRIMARY KEY (id);
ALTER TABLE $S.localities ADD PRIMARY KEY (id);
ALTER TABLE $S.areas ADD PRIMARY KEY (id);
CREATE INDEX addresses_postcode_number ON $S.addresses (postcode, number);
CREATE INDEX addresses_street_number ON $S.addresses (street, number);
ANALYZE $S.addresses;
ANALYZE $S.places;
`)
}

func dropSchemaSQL(schema string) string {
	return "DROP SCHEMA IF EXISTS " + pgx.Identifier{schema}.Sanitize() + " CASCADE"
}

func schemaName(id int64) string { return fmt.Sprintf("aw_ds_%d", id) }

// Columns as COPY writes them.
var (
	addressColumns  = []string{"postcode", "number", "suffix", "addition", "box", "id", "street", "locality", "area", "status"}
	streetColumns   = []string{"id", "register_id", "name_nl", "name_fr", "name_de", "short", "muni_nl", "muni_fr", "muni_de"}
	localityColumns = []string{"id", "name_nl", "name_fr", "name_de", "muni_nl", "muni_fr", "muni_de"}
	areaColumns     = []string{"id", "muni_nl", "muni_fr", "muni_de", "sub_nl", "sub_fr", "sub_de"}
	placeColumns    = []string{"postcode", "street", "locality"}
)
