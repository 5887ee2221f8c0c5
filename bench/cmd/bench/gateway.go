package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// gatewayPorts are the sites of the one gateway process the gateway loads use.
type gatewayPorts struct {
	static, proxy, cached, uncached int
	// The parts of the uncached load, each against the proxy baseline: the gateway's
	// policy in front of the trivial handler, Caddy alone in front of the worker, and Caddy
	// alone with the gateway's transport in front of the trivial handler (the hop itself).
	policyTrivial, proxyWorker, hopTrivial int
}

// caddyfile configures bin/gateway with the two baselines and the two ways a lookup goes
// through the gateway. Limits and quota are set out of reach, so that the loads measure the
// work of checking them rather than refusals. No access log, as in deploy/Caddyfile.local.
// The gateway's sites reach the worker as deploy/ does, through transport adreswijzer; the
// baseline proxy keeps Caddy's own transport, the hop as Caddy ships it.
func caddyfile(p gatewayPorts, trivial, worker int, work string) string {
	policy := func(cache string) string {
		return fmt.Sprintf(`	adreswijzer {
		key_file %s
		usage_file %s
		limit live 1000000000/s burst 1000000000
		plan bench unlimited
		default_plan bench
		workers http://127.0.0.1:%d
		%s
	}
`, filepath.Join(work, "keys.json"), filepath.Join(work, "usage.json"), worker, cache)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{
	admin off
	auto_https off
	persist_config off
	servers {
		protocols h1
	}
	log default {
		level ERROR
	}
}

# Baseline: Caddy answering by itself with the trivial handler's body.
http://127.0.0.1:%d {
	bind 127.0.0.1
	header Content-Type application/json
	respond `+"`%s`"+` 200
}

# Baseline: Caddy proxying to the trivial handler.
http://127.0.0.1:%d {
	bind 127.0.0.1
	reverse_proxy 127.0.0.1:%d
}

# The gateway with its answer cache, in front of the worker.
http://127.0.0.1:%d {
	bind 127.0.0.1
%s	reverse_proxy 127.0.0.1:%d {
		transport adreswijzer
	}
}

# The gateway without the cache: every lookup goes to the worker.
http://127.0.0.1:%d {
	bind 127.0.0.1
%s	reverse_proxy 127.0.0.1:%d {
		transport adreswijzer
	}
}

# The gateway without the cache in front of the trivial handler: what the policy costs.
http://127.0.0.1:%d {
	bind 127.0.0.1
%s	reverse_proxy 127.0.0.1:%d {
		transport adreswijzer
	}
}

# Caddy alone in front of the worker, as the gateway reaches it: what the worker's lookup
# costs behind the hop.
http://127.0.0.1:%d {
	bind 127.0.0.1
	reverse_proxy 127.0.0.1:%d {
		transport adreswijzer
	}
}

# Caddy alone with the gateway's transport in front of the trivial handler: the hop as
# the gateway makes it, against Caddy's own transport.
http://127.0.0.1:%d {
	bind 127.0.0.1
	reverse_proxy 127.0.0.1:%d {
		transport adreswijzer
	}
}
`, p.static, fixedBody, p.proxy, trivial, p.cached, policy("# the default answer cache"), worker, p.uncached, policy("cache off"), worker,
		p.policyTrivial, policy("cache off"), trivial, p.proxyWorker, worker, p.hopTrivial, trivial)
	return b.String()
}

var secretLine = regexp.MustCompile(`(?m)^secret:\s+(\S+)`)

// createKey makes the live key of the run in the gateway's key file.
func createKey(ctx context.Context, cfg config, work string) (string, error) {
	_, out, err := runLogged(ctx, filepath.Join(work, "keys.log"), nil, cfg.gateway, "keys", "create",
		"--file", filepath.Join(work, "keys.json"), "--kind", "live", "--account", "bench", "--plan", "bench", "--name", "make bench")
	if err != nil {
		return "", err
	}
	m := secretLine.FindSubmatch(out)
	if m == nil {
		return "", fmt.Errorf("gateway keys create: no secret in its output")
	}
	return string(m[1]), nil
}

// caddyEnv keeps Caddy's data and configuration directories inside the working directory.
func caddyEnv(work string) []string {
	return []string{"XDG_DATA_HOME=" + filepath.Join(work, "caddy-data"), "XDG_CONFIG_HOME=" + filepath.Join(work, "caddy-config")}
}

func writeCaddyfile(work string, p gatewayPorts, trivial, worker int) (string, error) {
	path := filepath.Join(work, "Caddyfile")
	return path, os.WriteFile(path, []byte(caddyfile(p, trivial, worker, work)), 0o644)
}
