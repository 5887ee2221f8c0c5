-- Accounts of the dashboard, the code-hosting identities that sign in to them, and the
-- hashes of one-time e-mail sign-in links. The dashboard lists an account's keys.
CREATE TABLE gateway_accounts (
	id          text PRIMARY KEY,
	email       text NOT NULL UNIQUE,
	plan        text NOT NULL,
	language    text NOT NULL DEFAULT '',
	created     timestamptz NOT NULL,
	signed_out  timestamptz
);
CREATE TABLE gateway_identities (
	provider  text NOT NULL,
	subject   text NOT NULL,
	account   text NOT NULL REFERENCES gateway_accounts (id) ON DELETE CASCADE,
	created   timestamptz NOT NULL,
	PRIMARY KEY (provider, subject)
);
CREATE INDEX gateway_identities_account ON gateway_identities (account);
CREATE TABLE gateway_signin_links (
	hash     bytea PRIMARY KEY,
	email    text NOT NULL,
	expires  timestamptz NOT NULL
);
CREATE INDEX gateway_signin_links_expires ON gateway_signin_links (expires);
CREATE INDEX IF NOT EXISTS gateway_keys_account ON gateway_keys (account, created);

-- Dashboard sessions, in the table the session library (scs, pgxstore) reads.
CREATE TABLE sessions (
	token   text PRIMARY KEY,
	data    bytea NOT NULL,
	expiry  timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expiry);
