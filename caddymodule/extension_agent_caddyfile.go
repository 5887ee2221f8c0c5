package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/adreswijzer/adreswijzer/gateway/limit"
)

// UnmarshalCaddyfile reads, inside the adreswijzer block:
//
//	extension agent {
//		resource             <public URL of /mcp>     # required, e.g. https://api.adreswijzer.nl/mcp
//		authorization_server <issuer URL>             # OAuth 2.1 sign-in; absent: API keys only. The
//		                                              # dashboard's base_url when it has oauth: the
//		                                              # gateway's own server, whose grants are checked
//		jwks_url             <URL>                    # default: from the issuer's metadata
//		account_claim        <claim>                  # default: sub
//		plan                 <plan>                   # quota of OAuth agents; default: default_plan
//		hosts                <name>...                # default: the resource's host; loopback always
//		rate                 <n>/<period> [burst <n>] # default 60/m burst 20, a batch counts its items
//		daily                <n>                      # default 10000 tool calls a day per account
//		repeat               <n>/<window>             # default 5/m: the same call at most 5 times a minute
//		fingerprint_key      <secret>                 # shared by gateways sharing a Redis
//		resource_name        <text>
//		resource_documentation <URL>
//	}
func (a *AgentExtension) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the extension's name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "resource":
			if err := oneArg(d, &a.Resource); err != nil {
				return err
			}
		case "authorization_server":
			if err := oneArg(d, &a.AuthorizationServer); err != nil {
				return err
			}
		case "jwks_url":
			if err := oneArg(d, &a.JWKSURL); err != nil {
				return err
			}
		case "account_claim":
			if err := oneArg(d, &a.AccountClaim); err != nil {
				return err
			}
		case "plan":
			if err := oneArg(d, &a.Plan); err != nil {
				return err
			}
		case "fingerprint_key":
			if err := oneArg(d, &a.FingerprintKey); err != nil {
				return err
			}
		case "resource_name":
			if err := oneArg(d, &a.ResourceName); err != nil {
				return err
			}
		case "resource_documentation":
			if err := oneArg(d, &a.ResourceDocumentation); err != nil {
				return err
			}
		case "hosts":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			a.Hosts = append(a.Hosts, args...)
		case "rate":
			l, err := parseRule(d, "rate", d.RemainingArgs())
			if err != nil {
				return err
			}
			a.Rate = &l
		case "daily":
			var s string
			if err := oneArg(d, &s); err != nil {
				return err
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return d.Errf("daily: want a positive number of tool calls")
			}
			a.Daily = n
		case "repeat":
			var s string
			if err := oneArg(d, &s); err != nil {
				return err
			}
			r, err := limit.ParseRule(s, 1)
			if err != nil {
				return d.Errf("repeat: want <n>/<window>, e.g. 5/m: %v", err)
			}
			a.RepeatMax, a.RepeatWindow = r.Rate, caddy.Duration(r.Period)
		default:
			return d.Errf("extension agent: unrecognized subdirective %q", d.Val())
		}
	}
	return nil
}
