package caddymodule

import (
	"strconv"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

// UnmarshalCaddyfile reads, inside a reverse_proxy block:
//
//	transport adreswijzer {
//		dial_timeout            <duration>  # default 250ms
//		response_header_timeout <duration>  # default: the request's deadline
//		max_idle                <n>         # idle connections per worker, default 64
//		idle_timeout            <duration>  # default 90s
//	}
func (t *Transport) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // the transport's name
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		var err error
		switch d.Val() {
		case "dial_timeout":
			err = durationArg(d, &t.DialTimeout)
		case "response_header_timeout":
			err = durationArg(d, &t.ResponseHeaderTimeout)
		case "idle_timeout":
			err = durationArg(d, &t.IdleTimeout)
		case "max_idle":
			var s string
			if err = oneArg(d, &s); err == nil {
				if t.MaxIdle, err = strconv.Atoi(s); err != nil || t.MaxIdle < 0 {
					return d.Errf("max_idle: %q is not a number of connections", s)
				}
			}
		default:
			return d.Errf("transport adreswijzer: unrecognized subdirective %q", d.Val())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

var _ caddyfile.Unmarshaler = (*Transport)(nil)
