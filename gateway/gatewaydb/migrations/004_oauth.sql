-- The authorization server of agents (gateway/authserver): registered clients, requests
-- waiting for consent, authorization codes and refresh tokens (hashes only), the grants
-- the dashboard lists as connected agents, and the signing keys every gateway shares.
CREATE TABLE gateway_oauth_clients (
	id             text PRIMARY KEY,
	name           text NOT NULL DEFAULT '',
	redirect_uris  text[] NOT NULL,
	grant_types    text[] NOT NULL,
	created        timestamptz NOT NULL
);
CREATE TABLE gateway_oauth_requests (
	id            text PRIMARY KEY,
	client        text NOT NULL,
	redirect_uri  text NOT NULL,
	state         text NOT NULL DEFAULT '',
	challenge     text NOT NULL,
	scope         text[] NOT NULL,
	resource      text NOT NULL,
	expires       timestamptz NOT NULL
);
CREATE INDEX gateway_oauth_requests_expires ON gateway_oauth_requests (expires);
CREATE TABLE gateway_oauth_codes (
	hash     bytea PRIMARY KEY,
	request  jsonb NOT NULL,
	account  text NOT NULL,
	expires  timestamptz NOT NULL
);
CREATE INDEX gateway_oauth_codes_expires ON gateway_oauth_codes (expires);
CREATE TABLE gateway_oauth_grants (
	id        text PRIMARY KEY,
	account   text NOT NULL,
	client    text NOT NULL,
	scope     text[] NOT NULL,
	resource  text NOT NULL,
	created   timestamptz NOT NULL,
	revoked   timestamptz
);
CREATE INDEX gateway_oauth_grants_account ON gateway_oauth_grants (account, created);
CREATE TABLE gateway_oauth_refresh (
	hash     bytea PRIMARY KEY,
	grant_id text NOT NULL,
	expires  timestamptz NOT NULL,
	spent    boolean NOT NULL DEFAULT false
);
CREATE INDEX gateway_oauth_refresh_grant ON gateway_oauth_refresh (grant_id);
CREATE INDEX gateway_oauth_refresh_expires ON gateway_oauth_refresh (expires);
CREATE TABLE gateway_oauth_keys (
	id       text PRIMARY KEY,
	private  bytea NOT NULL,
	active   timestamptz NOT NULL,
	created  timestamptz NOT NULL
);
