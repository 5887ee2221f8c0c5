package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// UnmarshalCaddyfile reads, inside the adreswijzer block:
//
//	extension dashboard {
//		base_url     <origin>                        # required, e.g. https://api.adreswijzer.nl
//		smtp <host> [<port>] {                       # absent: sign-in mails go to standard output
//			from     <address>                       # required, e.g. "Adreswijzer <noreply@adreswijzer.nl>"
//			username <user>
//			password <secret>
//			tls      starttls|implicit|opportunistic|none   # default starttls
//		}
//		github <client id> <client secret> {         # sign-in with GitHub; the block is optional
//			auth_url  <URL>                          # GitHub Enterprise, or a test's stand-in
//			token_url <URL>
//			api_url   <URL>
//		}
//		gitlab <client id> <client secret> [<issuer>]   # sign-in with GitLab; default gitlab.com
//		plan_contact <mailto: or https: URL>         # where to ask for another plan
//		oauth {                                      # agents sign in with OAuth 2.1 here; the block is optional
//			resource         <URL of /mcp>           # default <base_url>/mcp; the agent extension's resource
//			token_lifetime   <duration>              # access tokens; default 10m
//			refresh_lifetime <duration>              # refresh tokens, renewed at each use; default 720h
//			key_rotation     <duration>              # a new signing key this often; default 168h
//		}
//	}
//
// With oauth, the gateway is the authorization server agents sign in with: its issuer is
// base_url, its metadata at /.well-known/oauth-authorization-server, its endpoints under
// /oauth/, its consent page /dashboard/consent and the account's agents /dashboard/agents.
// The agent extension names it as its authorization_server (the same origin as base_url)
// and then checks, on every call, that the agent's grant still stands.
func (x *DashboardExtension) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the extension's name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		var err error
		switch d.Val() {
		case "base_url":
			err = oneArg(d, &x.BaseURL)
		case "plan_contact":
			err = oneArg(d, &x.PlanContact)
		case "smtp":
			err = x.parseSMTP(d)
		case "github":
			err = x.parseGitHub(d)
		case "oauth":
			err = x.parseOAuth(d)
		case "gitlab":
			args := d.RemainingArgs()
			if len(args) < 2 || len(args) > 3 {
				return d.Errf("gitlab: want <client id> <client secret> [<issuer>]")
			}
			x.GitLab = &GitLabConfig{ClientID: args[0], ClientSecret: args[1]}
			if len(args) == 3 {
				x.GitLab.Issuer = args[2]
			}
		default:
			return d.Errf("extension dashboard: unrecognized subdirective %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (x *DashboardExtension) parseSMTP(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) < 1 || len(args) > 2 {
		return d.Errf("smtp: want <host> [<port>]")
	}
	x.SMTP = &SMTPConfig{Host: args[0]}
	if len(args) == 2 {
		p, err := strconv.Atoi(args[1])
		if err != nil || p < 1 || p > 65535 {
			return d.Errf("smtp: port must be a number from 1 to 65535")
		}
		x.SMTP.Port = p
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "from":
			err = oneArg(d, &x.SMTP.From)
		case "username":
			err = oneArg(d, &x.SMTP.Username)
		case "password":
			err = oneArg(d, &x.SMTP.Password)
		case "tls":
			err = oneArg(d, &x.SMTP.TLS)
		default:
			return d.Errf("smtp: unrecognized subdirective %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	if x.SMTP.From == "" {
		return d.Errf("smtp: from is required")
	}
	return nil
}

func (x *DashboardExtension) parseGitHub(d *caddyfile.Dispenser) error {
	args := d.RemainingArgs()
	if len(args) != 2 {
		return d.Errf("github: want <client id> <client secret>")
	}
	x.GitHub = &GitHubConfig{ClientID: args[0], ClientSecret: args[1]}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "auth_url":
			err = oneArg(d, &x.GitHub.AuthURL)
		case "token_url":
			err = oneArg(d, &x.GitHub.TokenURL)
		case "api_url":
			err = oneArg(d, &x.GitHub.APIURL)
		default:
			return d.Errf("github: unrecognized subdirective %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*DashboardExtension)(nil)

func (x *DashboardExtension) parseOAuth(d *caddyfile.Dispenser) error {
	if d.NextArg() {
		return d.ArgErr()
	}
	x.OAuth = &OAuthConfig{}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		var err error
		switch d.Val() {
		case "resource":
			err = oneArg(d, &x.OAuth.Resource)
		case "token_lifetime":
			err = durationArg(d, &x.OAuth.TokenLifetime)
		case "refresh_lifetime":
			err = durationArg(d, &x.OAuth.RefreshLifetime)
		case "key_rotation":
			err = durationArg(d, &x.OAuth.KeyRotation)
		default:
			return d.Errf("oauth: unrecognized subdirective %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}
