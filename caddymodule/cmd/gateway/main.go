// Command gateway is bin/gateway: Caddy with its standard modules plus the adreswijzer
// handler and the `keys` subcommand. Run it like caddy: `gateway run --config
// deploy/Caddyfile.local`, `gateway adapt --config deploy/Caddyfile`.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/adreswijzer/adreswijzer/caddymodule"
)

func main() { caddycmd.Main() }
