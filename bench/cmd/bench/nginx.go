package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/adreswijzer/adreswijzer/bench/measure"
)

// nginx is the gateway phase's anchor: a C proxy doing the hop the gateway does, in front
// of the same worker, so that the gateway's cost per request is held to a multiple of the
// hop's cost at its leanest rather than to Caddy's own proxy.
const (
	nginxDebianPath = "/usr/sbin/nginx"
	nginxInstall    = "sudo apt-get install -y nginx-light"
)

// nginxPath finds nginx on the PATH, or where Debian installs it: /usr/sbin is not on every
// user's PATH.
func nginxPath() (string, error) {
	if p, err := exec.LookPath("nginx"); err == nil {
		return p, nil
	}
	if _, err := os.Stat(nginxDebianPath); err == nil {
		return nginxDebianPath, nil
	}
	return "", fmt.Errorf("nginx is needed by the gateway phase (the proxy anchor); install it with: %s", nginxInstall)
}

// nginxVersion is what `nginx -v` says, "" without nginx.
func nginxVersion(ctx context.Context) string {
	p, err := nginxPath()
	if err != nil {
		return ""
	}
	out, _ := exec.CommandContext(ctx, p, "-v").CombinedOutput() // it prints to stderr
	v, _ := strings.CutPrefix(strings.TrimSpace(string(out)), "nginx version: ")
	return firstLine(v)
}

// nginxPorts are nginx's two sites: in front of the worker, and in front of the trivial
// handler (the hop alone).
type nginxPorts struct{ worker, trivial int }

// nginxConf configures nginx as a reverse proxy would be set up for speed: keep-alive
// connections to the upstream (HTTP/1.1, no Connection header passed on), no access log,
// and every path it writes inside dir, so that it runs as any user.
//
// worker_processes auto is one single-threaded worker per core, Debian's default and how
// nginx is deployed. The gateway is one Go process whose goroutines run on every core
// (GOMAXPROCS is the core count), so nginx gets the same two cores. One worker would cap
// it at one core while wrk's two threads keep it saturated, and a saturated event loop
// handles more events per wakeup: its CPU per request would look lower than deployed
// nginx's. The master process stays (as deployed): it only supervises, and its CPU is
// counted with the workers'. daemon off keeps the master a child of the driver, stopped
// like the other servers.
//
// keepalive holds as many idle upstream connections per worker process as wrk opens at
// most, and keepalive_requests is lifted on both sides (nginx closes a connection after
// 1,000 requests by default; Caddy does not), so that no connection is opened again during
// a load. Answers are never buffered to disk (proxy_max_temp_file_size 0): a worker process
// run by root as nobody could not write into the working directory. The error log goes to
// stderr, which the driver keeps in the working directory.
func nginxConf(dir string, p nginxPorts, worker, trivial, keepalive int) string {
	path := func(name string) string { return filepath.Join(dir, name) }
	return fmt.Sprintf(`# Written by make bench (bench/cmd/bench/nginx.go).
daemon off;
master_process on;
worker_processes auto;
pid %s;
lock_file %s;
error_log stderr warn;

events {
	worker_connections 4096;
}

http {
	access_log off;
	keepalive_requests 1000000000;
	proxy_max_temp_file_size 0;
	client_body_temp_path %s;
	proxy_temp_path %s;
	fastcgi_temp_path %s;
	uwsgi_temp_path %s;
	scgi_temp_path %s;

	proxy_http_version 1.1;
	proxy_set_header Connection "";
	proxy_set_header Host $host;

	upstream worker {
		server 127.0.0.1:%d;
		keepalive %d;
		keepalive_requests 1000000000;
	}

	upstream trivial {
		server 127.0.0.1:%d;
		keepalive %d;
		keepalive_requests 1000000000;
	}

	# nginx in front of the worker: the anchor of the uncached gateway load.
	server {
		listen 127.0.0.1:%d;
		location / {
			proxy_pass http://worker;
		}
	}

	# nginx in front of the trivial handler: the hop alone.
	server {
		listen 127.0.0.1:%d;
		location / {
			proxy_pass http://trivial;
		}
	}
}
`, path("nginx.pid"), path("nginx.lock"), path("client_body"), path("proxy"), path("fastcgi"), path("uwsgi"), path("scgi"),
		worker, keepalive, trivial, keepalive, p.worker, p.trivial)
}

// startNginx writes nginx's configuration into the working directory, starts it in front
// of the worker and the trivial handler, and returns it with the processes its CPU is
// measured from: the master and its workers.
func (b *benchRun) startNginx(ctx context.Context, p nginxPorts) (*server, []int, error) {
	bin, err := nginxPath()
	if err != nil {
		return nil, nil, err
	}
	dir := filepath.Join(b.work, "nginx")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	conf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(conf, []byte(nginxConf(dir, p, b.workerPort, b.trivialPort, maxConns(b.cfg.conns))), 0o644); err != nil {
		return nil, nil, err
	}
	// -e: the error log until the configuration is read, which otherwise goes to a path
	// of the system's.
	ng, err := b.start("nginx", nil, bin, "-p", dir, "-e", "stderr", "-c", conf)
	if err != nil {
		return nil, nil, err
	}
	if err := waitReady(ctx, ng, fmt.Sprintf("http://127.0.0.1:%d/", p.trivial), 30*time.Second,
		func(status int, _ []byte) bool { return status == 200 }); err != nil {
		b.stop(ng)
		return nil, nil, err
	}
	pids, err := nginxProcesses(ng)
	if err != nil {
		b.stop(ng)
		return nil, nil, err
	}
	return ng, pids, nil
}

// nginxProcesses lists the master and its workers. The master forks every worker before
// it serves the first request, which startNginx has waited for; the list is taken once,
// since workers live as long as the master unless one crashes, which its log would show.
func nginxProcesses(ng *server) ([]int, error) {
	pids := measure.ProcessTree(ng.pid())
	if len(pids) < 2 {
		return nil, fmt.Errorf("nginx serves without worker processes (%v)\n%s", pids, logTail(ng.log))
	}
	return pids, nil
}

func maxConns(conns []int) int {
	m := 1
	for _, c := range conns {
		m = max(m, c)
	}
	return m
}
