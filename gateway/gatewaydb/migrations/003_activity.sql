-- What each credential did per day and route (usage.Activity), which the dashboard reads.
-- gateway_activity's key starts with the account and the day, the order the dashboard reads
-- a month in; gateway_key_use keeps one time per credential, so that a key's last use is
-- read without going through its whole history.
CREATE TABLE gateway_activity (
	account        text NOT NULL,
	day            date NOT NULL,
	key_id         text NOT NULL,
	route          text NOT NULL,
	calls          bigint NOT NULL DEFAULT 0,
	verifications  bigint NOT NULL DEFAULT 0,
	last_used      timestamptz NOT NULL,
	PRIMARY KEY (account, day, key_id, route)
);
CREATE TABLE gateway_key_use (
	account    text NOT NULL,
	key_id     text NOT NULL,
	last_used  timestamptz NOT NULL,
	PRIMARY KEY (account, key_id)
);
