-- The gateway's first tables: API keys (hashes only) and monthly usage per account.
-- IF NOT EXISTS: databases made before migrations were versioned already have them.
CREATE TABLE IF NOT EXISTS gateway_keys (
	id       text PRIMARY KEY,
	hash     bytea NOT NULL UNIQUE,
	kind     text NOT NULL,
	account  text NOT NULL,
	plan     text NOT NULL,
	name     text NOT NULL DEFAULT '',
	scopes   text[] NOT NULL,
	origins  text[] NOT NULL DEFAULT '{}',
	created  timestamptz NOT NULL,
	revoked  timestamptz
);
CREATE TABLE IF NOT EXISTS gateway_usage (
	account        text NOT NULL,
	month          text NOT NULL,
	verifications  bigint NOT NULL DEFAULT 0,
	suggest_calls  bigint NOT NULL DEFAULT 0,
	updated        timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (account, month)
);
