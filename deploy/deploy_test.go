// Package deploy_test keeps the operator material in deploy/ honest: every command line in the
// systemd units, their example environment files, the Kubernetes manifests and the Dockerfile
// names a program we build and flags that program really accepts; the manifests hang together
// (selectors, ports, probes, Secrets referenced and never contained, the Amsterdam pin); the
// Kubernetes Caddyfile adapts and stays in step with deploy/Caddyfile; and the refresh and
// backup scripts do what deploy/README.md says, run against the real register samples, the
// real worker binary and a real Postgres.
package deploy_test

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2/caddyconfig"
	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	_ "github.com/caddyserver/caddy/v2/modules/standard"
	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/adreswijzer/adreswijzer"
	_ "github.com/adreswijzer/adreswijzer/caddymodule" // the adreswijzer directive and `keys`
	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaydb"
	"github.com/adreswijzer/adreswijzer/gateway/gatewaytest"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
	"github.com/adreswijzer/adreswijzer/gateway/usage"
	"github.com/adreswijzer/adreswijzer/store/memory"
	"github.com/adreswijzer/adreswijzer/store/postgres"
	"github.com/adreswijzer/adreswijzer/store/storetest"
)

// installDir is where the units, the manifests and the images put our programs.
const installDir = "/opt/adreswijzer/bin/"

// quiet keeps the stores the tests open from logging activations.
var quiet = slog.New(slog.DiscardHandler)

// ---------------------------------------------------------------------------------------
// The programs and the flags they accept.

var built struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// workerBinary builds bin/worker once per run: its own -h output is the truth about its flags,
// and the scripts' tests run it.
func workerBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "adreswijzer-deploy-")
		if built.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(built.dir, "worker"), "./worker/cmd/worker")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("build worker: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return filepath.Join(built.dir, "worker")
}

var (
	workerFlagsMu sync.Mutex
	workerFlagSet = map[string]map[string]bool{}
	flagLine      = regexp.MustCompile(`(?m)^\s+-([a-z][a-z0-9-]*)`)
)

// workerFlags are the options `worker <sub> -h` lists.
func workerFlags(t *testing.T, sub string) map[string]bool {
	t.Helper()
	workerFlagsMu.Lock()
	defer workerFlagsMu.Unlock()
	if f, ok := workerFlagSet[sub]; ok {
		return f
	}
	out, err := exec.Command(workerBinary(t), sub, "-h").CombinedOutput()
	if err != nil {
		t.Fatalf("worker %s -h: %v\n%s", sub, err, out)
	}
	f := map[string]bool{}
	for _, m := range flagLine.FindAllStringSubmatch(string(out), -1) {
		f[m[1]] = true
	}
	if len(f) == 0 {
		t.Fatalf("worker %s -h lists no options:\n%s", sub, out)
	}
	workerFlagSet[sub] = f
	return f
}

// gatewayCommand finds the bin/gateway (sub)command that args name, as Caddy's command line
// builds it, and returns it with the arguments left after the command names.
func gatewayCommand(t *testing.T, where string, args []string) (*cobra.Command, []string) {
	t.Helper()
	if len(args) == 0 {
		t.Errorf("%s: gateway without a command", where)
		return nil, nil
	}
	c, ok := caddycmd.Commands()[args[0]]
	if !ok {
		t.Errorf("%s: gateway has no command %q", where, args[0])
		return nil, nil
	}
	cur := &cobra.Command{Use: c.Name}
	c.CobraFunc(cur)
	rest := args[1:]
	for len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		var next *cobra.Command
		for _, sc := range cur.Commands() {
			if sc.Name() == rest[0] {
				next = sc
			}
		}
		if next == nil {
			break
		}
		cur, rest = next, rest[1:]
	}
	return cur, rest
}

// scriptModes are the first arguments a deploy/bin script accepts, from its usage lines
// ("#   adreswijzer-refresh nl-stand   …") and the one-word forms it documents.
func scriptModes(t *testing.T, name string) map[string]bool {
	t.Helper()
	src := readFile(t, filepath.Join("bin", name))
	modes := map[string]bool{}
	re := regexp.MustCompile(`(?m)^#\s+` + regexp.QuoteMeta(name) + `\s+([a-z][a-z-]*)`)
	for _, m := range re.FindAllStringSubmatch(src, -1) {
		modes[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`\b((?:import|rollback)-(?:nl|be))\b`).FindAllStringSubmatch(src, -1) {
		modes[m[1]] = true
	}
	if len(modes) == 0 {
		t.Fatalf("bin/%s documents no modes", name)
	}
	return modes
}

// checkCommand checks one command line: the program is ours and installed where the images
// and packages put it, its (sub)command exists and every option is one it accepts.
func checkCommand(t *testing.T, where string, argv []string) {
	t.Helper()
	if len(argv) == 0 {
		t.Errorf("%s: empty command", where)
		return
	}
	prog := filepath.Base(argv[0])
	if prog == "sh" {
		if len(argv) != 3 || argv[1] != "-c" {
			t.Errorf("%s: want sh -c SCRIPT, got %q", where, argv)
			return
		}
		for _, part := range regexp.MustCompile(`&&|;|\|\|`).Split(argv[2], -1) {
			checkCommand(t, where, strings.Fields(part))
		}
		return
	}
	if argv[0] != installDir+prog {
		t.Errorf("%s: %s is not installed as %s%s", where, argv[0], installDir, prog)
	}
	switch prog {
	case "worker":
		if len(argv) < 2 || (argv[1] != "import" && argv[1] != "serve") {
			t.Errorf("%s: worker needs import or serve: %q", where, argv)
			return
		}
		flags := workerFlags(t, argv[1])
		for _, a := range argv[2:] {
			if name, ok := optionName(a); ok && !flags[name] {
				t.Errorf("%s: worker %s has no option --%s", where, argv[1], name)
			}
		}
	case "gateway":
		c, rest := gatewayCommand(t, where, argv[1:])
		if c == nil {
			return
		}
		for _, a := range rest {
			name, ok := optionName(a)
			if !ok {
				continue
			}
			found := c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil ||
				(len(name) == 1 && c.Flags().ShorthandLookup(name) != nil)
			if !found {
				t.Errorf("%s: gateway %s has no option --%s", where, c.CommandPath(), name)
			}
		}
	case "adreswijzer-refresh", "adreswijzer-backup":
		fi, err := os.Stat(filepath.Join("bin", prog))
		if err != nil || fi.Mode()&0o111 == 0 {
			t.Errorf("%s: deploy/bin/%s is missing or not executable", where, prog)
			return
		}
		if len(argv) < 2 || !scriptModes(t, prog)[argv[1]] {
			t.Errorf("%s: %s does not take %q", where, prog, argv[1:])
		}
	default:
		t.Errorf("%s: %s is none of our programs", where, argv[0])
	}
}

func optionName(a string) (string, bool) {
	if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
		return "", false
	}
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name, true
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// ---------------------------------------------------------------------------------------
// systemd

type unit struct {
	name     string
	sections map[string]map[string][]string
}

func (u unit) get(section, key string) []string { return u.sections[section][key] }

func (u unit) first(section, key string) string {
	if v := u.get(section, key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func parseUnit(t *testing.T, path string) unit {
	t.Helper()
	u := unit{name: filepath.Base(path), sections: map[string]map[string][]string{}}
	var sec string
	for n, line := range strings.Split(readFile(t, path), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			sec = line[1 : len(line)-1]
			u.sections[sec] = map[string][]string{}
		default:
			k, v, ok := strings.Cut(line, "=")
			if !ok || sec == "" {
				t.Errorf("%s:%d: not a setting: %q", u.name, n+1, line)
				continue
			}
			k = strings.TrimSpace(k)
			u.sections[sec][k] = append(u.sections[sec][k], strings.TrimSpace(v))
		}
	}
	return u
}

// envFile reads an example environment file: the settings, and for each name also the
// alternatives shown commented out ("#WORKER_FLAGS=--snapshot …").
func envFile(t *testing.T, path string) (env map[string]string, alt map[string][]string) {
	t.Helper()
	env, alt = map[string]string{}, map[string][]string{}
	assign := regexp.MustCompile(`^(#?)([A-Z][A-Z0-9_]*)=(.*)$`)
	for _, line := range strings.Split(readFile(t, path), "\n") {
		m := assign.FindStringSubmatch(strings.TrimSpace(line))
		if m == nil {
			continue
		}
		if m[1] == "#" {
			alt[m[2]] = append(alt[m[2]], m[3])
		} else {
			env[m[2]] = m[3]
		}
	}
	return env, alt
}

// expand applies systemd's rules: ${NAME} is one word, $NAME is split on white space.
func expand(word string, env map[string]string) []string {
	if m := regexp.MustCompile(`^\$\{([A-Z0-9_]+)\}$`).FindStringSubmatch(word); m != nil {
		return []string{env[m[1]]}
	}
	if m := regexp.MustCompile(`^\$([A-Z0-9_]+)$`).FindStringSubmatch(word); m != nil {
		return strings.Fields(env[m[1]])
	}
	return []string{word}
}

func unitEnv(u unit) map[string]string {
	env := map[string]string{}
	for _, line := range u.get("Service", "Environment") {
		for _, kv := range strings.Fields(line) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				env[k] = v
			}
		}
	}
	return env
}

func TestSystemdUnits(t *testing.T) {
	paths, _ := filepath.Glob("systemd/*.service")
	timers, _ := filepath.Glob("systemd/*.timer")
	if len(paths) < 4 || len(timers) < 3 {
		t.Fatalf("expected the gateway, worker, import and backup services and their timers; got %v %v", paths, timers)
	}
	sysusers := readFile(t, "systemd/adreswijzer.sysusers")

	// The instances each template is started as: the workers' from their example
	// environment files, the imports' from the timers.
	instances := map[string][]string{}
	for _, p := range mustGlob(t, "systemd/worker-*.env.example") {
		c := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "worker-"), ".env.example")
		instances["adreswijzer-worker@.service"] = append(instances["adreswijzer-worker@.service"], c)
	}
	for _, p := range timers {
		tm := parseUnit(t, p)
		target := tm.first("Timer", "Unit")
		if target == "" {
			target = strings.TrimSuffix(tm.name, ".timer") + ".service"
		}
		file, inst := target, ""
		if at := strings.Index(target, "@"); at >= 0 {
			file = target[:at+1] + ".service"
			inst = strings.TrimSuffix(target[at+1:], ".service")
			instances[file] = append(instances[file], inst)
		}
		if _, err := os.Stat(filepath.Join("systemd", file)); err != nil {
			t.Errorf("%s starts %s, which has no unit file", tm.name, target)
		}
		if tm.first("Timer", "OnCalendar") == "" || tm.first("Timer", "Persistent") != "true" {
			t.Errorf("%s: want OnCalendar and Persistent=true (a run missed while down is made up)", tm.name)
		}
		if tm.first("Install", "WantedBy") != "timers.target" {
			t.Errorf("%s: want WantedBy=timers.target", tm.name)
		}
	}
	for _, want := range []string{"nl-mutations", "nl-stand", "be"} {
		if !slices.Contains(instances["adreswijzer-import@.service"], want) {
			t.Errorf("no timer starts adreswijzer-import@%s", want)
		}
	}
	if got := instances["adreswijzer-worker@.service"]; !slices.Contains(got, "nl") || !slices.Contains(got, "be") {
		t.Errorf("worker instances %v: want an example environment for nl and for be", got)
	}

	for _, p := range paths {
		u := parseUnit(t, p)
		for k, want := range map[string]string{
			"NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
			"PrivateTmp": "yes", "LimitCORE": "0", "MemoryDenyWriteExecute": "yes",
		} {
			if got := u.first("Service", k); got != want {
				t.Errorf("%s: %s=%q, want %q", u.name, k, got, want)
			}
		}
		switch user := u.first("Service", "User"); {
		case u.first("Service", "DynamicUser") == "yes":
		case user != "" && regexp.MustCompile(`(?m)^u\s+`+regexp.QuoteMeta(user)+`\s`).MatchString(sysusers):
		default:
			t.Errorf("%s: runs neither as a dynamic user nor as a user adreswijzer.sysusers creates", u.name)
		}

		insts := []string{""}
		if strings.Contains(u.name, "@") {
			insts = instances[u.name]
			if len(insts) == 0 {
				t.Errorf("%s: a template nothing starts", u.name)
			}
		}
		for _, inst := range insts {
			where := strings.Replace(u.name, "@", "@"+inst, 1)
			env := unitEnv(u)
			var alt map[string][]string
			for _, ef := range u.get("Service", "EnvironmentFile") {
				ef = strings.ReplaceAll(strings.TrimPrefix(ef, "-"), "%i", inst)
				if !strings.HasPrefix(ef, "/etc/adreswijzer/") {
					t.Errorf("%s: EnvironmentFile %s is not under /etc/adreswijzer", where, ef)
					continue
				}
				example := filepath.Join("systemd", filepath.Base(ef)+".example")
				if _, err := os.Stat(example); err != nil {
					t.Errorf("%s: no example %s for %s", where, example, ef)
					continue
				}
				var e map[string]string
				e, alt = envFile(t, example)
				for k, v := range e {
					env[k] = v
				}
			}
			for _, key := range []string{"ExecStartPre", "ExecStart", "ExecReload", "ExecStartPost"} {
				for _, line := range u.get("Service", key) {
					line = strings.TrimLeft(strings.ReplaceAll(line, "%i", inst), "-@+!:")
					variants := []map[string]string{env}
					for name, vals := range alt {
						for _, v := range vals {
							e := maps(env)
							e[name] = v
							variants = append(variants, e)
						}
					}
					for _, e := range variants {
						var argv []string
						for _, w := range strings.Fields(line) {
							argv = append(argv, expand(w, e)...)
						}
						checkCommand(t, where+" "+key, argv)
					}
				}
			}
		}
	}

	worker := parseUnit(t, "systemd/adreswijzer-worker@.service")
	if max := bytesOf(t, worker.first("Service", "MemoryMax")); max < 2<<30 {
		t.Errorf("worker MemoryMax %s: the memory store needs about 1 GB per country", worker.first("Service", "MemoryMax"))
	} else if lim := bytesOf(t, unitEnv(worker)["GOMEMLIMIT"]); lim == 0 || lim >= max {
		t.Errorf("worker GOMEMLIMIT %q must be set below MemoryMax", unitEnv(worker)["GOMEMLIMIT"])
	}
	imp := parseUnit(t, "systemd/adreswijzer-import@.service")
	rw := strings.Fields(strings.Join(imp.get("Service", "ReadWritePaths"), " "))
	_, alt := envFile(t, "systemd/import.env.example")
	for _, dir := range alt["SNAPSHOT_DIR"] {
		if !slices.Contains(rw, dir) {
			t.Errorf("import unit: ReadWritePaths %v lacks the snapshot directory %s", rw, dir)
		}
	}
	for _, p := range mustGlob(t, "systemd/worker-*.env.example") {
		_, alt := envFile(t, p)
		for _, flags := range alt["WORKER_FLAGS"] {
			for _, f := range regexp.MustCompile(`--snapshot\s+(\S+)`).FindAllStringSubmatch(flags, -1) {
				if !slices.Contains(rw, filepath.Dir(f[1])) {
					t.Errorf("%s: snapshot %s is not in the directory the import unit writes", p, f[1])
				}
			}
		}
	}
}

func maps(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("no files match %s", pattern)
	}
	return m
}

// bytesOf reads 3G, 512M, 2GiB, 900MiB.
func bytesOf(t *testing.T, s string) int64 {
	t.Helper()
	m := regexp.MustCompile(`^(\d+)([KMGT]?)(i?B?)$`).FindStringSubmatch(s)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(m[1], 10, 64)
	shift := map[string]uint{"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m[2]]
	return n << shift
}

// The example worker environments are workers the production Caddyfile routes to.
func TestSystemdWorkersInCaddyfile(t *testing.T) {
	caddyfile := readFile(t, "Caddyfile")
	for _, c := range []string{"nl", "be"} {
		env, _ := envFile(t, "systemd/worker-"+c+".env.example")
		addr := env["WORKER_LISTEN"]
		pool := caddyBlock(caddyfile, "handle @"+c+" {")
		if addr == "" || !strings.Contains(strings.Join(pool, "\n"), addr) {
			t.Errorf("worker-%s.env.example listens on %q, which deploy/Caddyfile's @%s pool does not list", c, addr, c)
		}
	}
	env, _ := envFile(t, "systemd/gateway.env.example")
	for _, name := range caddyEnvNames(caddyfile) {
		if _, ok := env[name]; !ok {
			t.Errorf("deploy/Caddyfile reads %s, which gateway.env.example does not set", name)
		}
	}
}

// caddyEnvNames are the environment variables a Caddyfile reads: {env.X} at run time and
// {$X} when adapted.
func caddyEnvNames(src string) []string {
	var out []string
	for _, m := range regexp.MustCompile(`\{(?:env\.|\$)([A-Z][A-Z0-9_]*)`).FindAllStringSubmatch(src, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// ---------------------------------------------------------------------------------------
// Caddyfiles

// caddyBlock returns the lines inside the block that opens with the line opener, trimmed,
// without blank lines and comments.
func caddyBlock(src, opener string) []string {
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != opener {
			continue
		}
		var out []string
		depth := 0
		for _, l := range lines[i:] {
			depth += strings.Count(l, "{") - strings.Count(l, "}")
			if s := strings.TrimSpace(l); s != "" && !strings.HasPrefix(s, "#") {
				out = append(out, s)
			}
			if depth == 0 {
				return out
			}
		}
	}
	return nil
}

func adaptCaddyfile(t *testing.T, src []byte) map[string]any {
	t.Helper()
	out, warns, err := caddyconfig.GetAdapter("caddyfile").Adapt(src, map[string]any{"filename": "Caddyfile"})
	if err != nil {
		t.Fatalf("adapt: %v", err)
	}
	for _, w := range warns {
		t.Errorf("adapt warning: %s", w.String())
	}
	var cfg map[string]any
	if err := json.Unmarshal(out, &cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The Kubernetes copy of the production Caddyfile adapts, keeps the access log filtered and
// agrees with deploy/Caddyfile on everything but what the cluster changes.
func TestKubernetesCaddyfile(t *testing.T) {
	prod := readFile(t, "Caddyfile")
	k8s := readFile(t, "k8s/gateway.Caddyfile")
	cfg := adaptCaddyfile(t, []byte(k8s))
	js, _ := json.Marshal(cfg)
	for _, want := range []string{`"handler":"adreswijzer"`, `"delete":["Authorization"`,
		`"request\u003euri":{"filter":"regexp"`, `"request\u003eheaders\u003eAuthorization":{"filter":"delete"`,
		`"handler":"metrics"`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("adapted k8s/gateway.Caddyfile lacks %s", want)
		}
	}
	if bytes.Contains(js, []byte(`"level":"DEBUG"`)) {
		t.Error("a DEBUG log would carry request URIs")
	}

	dropWorkers := func(lines []string) []string {
		return slices.DeleteFunc(lines, func(l string) bool { return strings.HasPrefix(l, "workers ") })
	}
	for _, opener := range []string{"servers {", "(worker_pool) {", "format filter {", "header {", "handle_path /widget/* {", "adreswijzer {"} {
		a, b := caddyBlock(prod, opener), caddyBlock(k8s, opener)
		if opener == "adreswijzer {" {
			a, b = dropWorkers(a), dropWorkers(b)
		}
		if a == nil {
			t.Errorf("deploy/Caddyfile has no block %q; update this test and k8s/gateway.Caddyfile together", opener)
			continue
		}
		if !slices.Equal(a, b) {
			t.Errorf("block %q differs between deploy/Caddyfile and deploy/k8s/gateway.Caddyfile; copy it over:\n--- deploy/Caddyfile\n%s\n--- deploy/k8s/gateway.Caddyfile\n%s",
				opener, strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
	}
}

// handler finds the first HTTP handler of a kind in an adapted configuration.
func handler(v any, kind string) map[string]any {
	switch v := v.(type) {
	case map[string]any:
		if v["handler"] == kind {
			return v
		}
		for _, x := range v {
			if h := handler(x, kind); h != nil {
				return h
			}
		}
	case []any:
		for _, x := range v {
			if h := handler(x, kind); h != nil {
				return h
			}
		}
	}
	return nil
}

// envPlaceholder is a value read from the environment when the gateway starts.
var envPlaceholder = regexp.MustCompile(`^\{env\.([A-Z][A-Z0-9_]*)\}$`)

// Every shipped Caddyfile's dashboard block reads its secrets from the environment at run
// time and holds none itself. In production it mails over TLS from an https origin, can offer
// both code hosts, sends QUOTA_EXCEEDED to its plans page, and the Kubernetes gateway takes
// its secrets from an optional Secret, so that a cluster without one still starts.
func TestDashboardConfig(t *testing.T) {
	secrets := [][]string{{"smtp", "username"}, {"smtp", "password"}, {"github", "client_id"}, {"github", "client_secret"},
		{"gitlab", "client_id"}, {"gitlab", "client_secret"}}
	for _, name := range []string{"Caddyfile", "k8s/gateway.Caddyfile", "Caddyfile.local"} {
		t.Run(name, func(t *testing.T) {
			h := handler(adaptCaddyfile(t, []byte(readFile(t, name))), "adreswijzer")
			var dash map[string]any
			for _, x := range list(h["extensions"]) {
				if str(dig(x, "extension")) == "dashboard" {
					dash = object(x)
				}
			}
			if dash == nil {
				t.Fatal("no extension dashboard")
			}
			var env []string
			for _, f := range secrets {
				v := dig(dash, f...)
				if v == nil {
					continue
				}
				m := envPlaceholder.FindStringSubmatch(str(v))
				if m == nil {
					t.Errorf("dashboard %s is %q: a secret comes from the environment at run time, {env.NAME}", strings.Join(f, " "), str(v))
					continue
				}
				env = append(env, m[1])
			}
			if name == "Caddyfile.local" {
				return
			}

			base := str(dash["base_url"])
			if !strings.HasPrefix(base, "https://") {
				t.Errorf("base_url %q: sign-in links and cookies need https", base)
			}
			if tls := str(dig(dash, "smtp", "tls")); dig(dash, "smtp") == nil || (tls != "starttls" && tls != "implicit") {
				t.Errorf("smtp %v: production sends sign-in mail through a mail server, over TLS", dash["smtp"])
			}
			if dash["github"] == nil || dash["gitlab"] == nil || str(dash["plan_contact"]) == "" {
				t.Error("production names both code hosts (switched on by their secrets) and where to ask for a plan")
			}
			if u := str(h["upgrade_url"]); u != "" && u != base+"/dashboard/plans" {
				t.Errorf("upgrade_url %q: QUOTA_EXCEEDED sends people to the dashboard's plans page", u)
			}
			if name != "k8s/gateway.Caddyfile" {
				return
			}
			ms, _ := loadManifests(t)
			for _, m := range ms {
				if m.kind() != "Deployment" || m.name() != "adreswijzer-gateway" {
					continue
				}
				_, spec := podSpec(m)
				refs := map[string]map[string]any{}
				for _, e := range list(dig(list(spec["containers"])[0], "env")) {
					refs[str(dig(e, "name"))] = object(dig(e, "valueFrom", "secretKeyRef"))
				}
				for _, name := range env {
					if ref := refs[name]; ref == nil || ref["optional"] != true {
						t.Errorf("the gateway takes %s from %v: want an optional Secret key, so that a cluster without it starts", name, ref)
					}
				}
			}
		})
	}
}

// Every server that trusts proxies' X-Forwarded-For reads it strictly, from the right: the
// leftmost address is whatever the client wrote, and a publishable key's limit per client
// address would not hold against it. caddymodule's TestDeployClientAddress runs the shipped
// servers block against such a client.
func TestTrustedProxiesStrict(t *testing.T) {
	for _, name := range []string{"Caddyfile", "k8s/gateway.Caddyfile"} {
		t.Run(name, func(t *testing.T) {
			cfg := adaptCaddyfile(t, []byte(readFile(t, name)))
			servers := object(dig(cfg, "apps", "http", "servers"))
			trusting := 0
			for id, srv := range servers {
				s := object(srv)
				if s["trusted_proxies"] == nil {
					continue
				}
				trusting++
				if n, _ := s["trusted_proxies_strict"].(float64); n != 1 {
					t.Errorf("server %s trusts proxies without trusted_proxies_strict", id)
				}
			}
			if trusting == 0 {
				t.Error("no server trusts the load balancer; the per-client limits would see only its address")
			}
		})
	}
}

// ---------------------------------------------------------------------------------------
// Kubernetes

type manifest struct {
	file string
	obj  map[string]any
}

func (m manifest) kind() string { return str(m.obj["kind"]) }
func (m manifest) name() string { return str(dig(m.obj, "metadata", "name")) }
func (m manifest) String() string {
	return m.file + ": " + m.kind() + " " + m.name()
}

func dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func str(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func list(v any) []any { l, _ := v.([]any); return l }

func object(v any) map[string]any { m, _ := v.(map[string]any); return m }

func strs(v any) []string {
	var out []string
	for _, x := range list(v) {
		out = append(out, str(x))
	}
	return out
}

func labelsMatch(selector, labels map[string]any) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if str(labels[k]) != str(v) {
			return false
		}
	}
	return true
}

func loadManifests(t *testing.T) ([]manifest, map[string]any) {
	t.Helper()
	var out []manifest
	var kust map[string]any
	for _, p := range mustGlob(t, "k8s/*.yaml") {
		dec := yaml.NewDecoder(strings.NewReader(readFile(t, p)))
		for {
			var doc map[string]any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if doc == nil {
				continue
			}
			if filepath.Base(p) == "kustomization.yaml" {
				kust = doc
				continue
			}
			m := manifest{file: filepath.Base(p), obj: doc}
			if m.kind() == "" || m.name() == "" || str(doc["apiVersion"]) == "" {
				t.Errorf("%s: a document without apiVersion, kind or metadata.name", p)
			}
			out = append(out, m)
		}
	}
	if kust == nil {
		t.Fatal("no k8s/kustomization.yaml")
	}
	return out, kust
}

// podSpec is the pod template of a workload.
func podSpec(m manifest) (labels, spec map[string]any) {
	switch m.kind() {
	case "Deployment":
		return object(dig(m.obj, "spec", "template", "metadata", "labels")), object(dig(m.obj, "spec", "template", "spec"))
	case "CronJob":
		t := dig(m.obj, "spec", "jobTemplate", "spec", "template")
		return object(dig(t, "metadata", "labels")), object(dig(t, "spec"))
	}
	return nil, nil
}

func TestKubernetesManifests(t *testing.T) {
	ms, kust := loadManifests(t)

	// kustomization.yaml lists every manifest, and every file it names exists.
	var files []string
	for _, p := range mustGlob(t, "k8s/*.yaml") {
		if b := filepath.Base(p); b != "kustomization.yaml" {
			files = append(files, b)
		}
	}
	resources := strs(kust["resources"])
	slices.Sort(resources)
	if !slices.Equal(resources, files) {
		t.Errorf("kustomization resources %v, files %v", resources, files)
	}
	configMaps := map[string]bool{}
	for _, g := range list(kust["configMapGenerator"]) {
		configMaps[str(dig(g, "name"))] = true
		for _, f := range append(strs(dig(g, "files")), strs(dig(g, "envs"))...) {
			_, path, ok := strings.Cut(f, "=")
			if !ok {
				path = f
			}
			if _, err := os.Stat(filepath.Join("k8s", path)); err != nil {
				t.Errorf("configMapGenerator %s: %v", str(dig(g, "name")), err)
			}
		}
	}
	images := map[string]bool{}
	for _, im := range list(kust["images"]) {
		images[str(dig(im, "name"))] = true
	}

	byKind := map[string][]manifest{}
	for _, m := range ms {
		byKind[m.kind()] = append(byKind[m.kind()], m)
		if m.kind() == "Secret" {
			t.Errorf("%s: Secrets are referenced, never shipped", m)
		}
	}
	pvcs := map[string]bool{}
	for _, m := range byKind["PersistentVolumeClaim"] {
		pvcs[m.name()] = true
	}

	gatewayCfg := adaptCaddyfile(t, []byte(readFile(t, "k8s/gateway.Caddyfile")))
	readme := readFile(t, "README.md")
	secrets := map[string]map[string]bool{}
	workloads := append(slices.Clone(byKind["Deployment"]), byKind["CronJob"]...)
	for _, m := range workloads {
		_, spec := podSpec(m)
		if str(dig(spec, "nodeSelector", "topology.kubernetes.io/region")) == "" {
			t.Errorf("%s: no nodeSelector on topology.kubernetes.io/region: pods could leave Amsterdam", m)
		}
		if dig(spec, "securityContext", "runAsNonRoot") != true {
			t.Errorf("%s: pods must run as non-root", m)
		}
		for _, v := range list(spec["volumes"]) {
			if c := str(dig(v, "persistentVolumeClaim", "claimName")); c != "" && !pvcs[c] {
				t.Errorf("%s: volume claims %s, which no manifest defines", m, c)
			}
			if c := str(dig(v, "configMap", "name")); c != "" && !configMaps[c] {
				t.Errorf("%s: volume from ConfigMap %s, which kustomization.yaml does not generate", m, c)
			}
		}
		for _, c := range list(spec["containers"]) {
			where := m.String() + " container " + str(dig(c, "name"))
			if !images[str(dig(c, "image"))] {
				t.Errorf("%s: image %s is not in kustomization.yaml's images", where, str(dig(c, "image")))
			}
			for _, r := range []string{"requests", "limits"} {
				for _, res := range []string{"cpu", "memory"} {
					if str(dig(c, "resources", r, res)) == "" {
						t.Errorf("%s: no resources.%s.%s", where, r, res)
					}
				}
			}
			if dig(c, "securityContext", "allowPrivilegeEscalation") != false {
				t.Errorf("%s: allowPrivilegeEscalation must be false", where)
			}
			env := map[string]string{}
			for _, e := range list(dig(c, "env")) {
				name := str(dig(e, "name"))
				env[name] = str(dig(e, "value"))
				if ref := object(dig(e, "valueFrom", "secretKeyRef")); ref != nil {
					env[name] = "secret"
					if secrets[str(ref["name"])] == nil {
						secrets[str(ref["name"])] = map[string]bool{}
					}
					secrets[str(ref["name"])][str(ref["key"])] = true
				}
			}
			for _, e := range list(dig(c, "envFrom")) {
				if n := str(dig(e, "configMapRef", "name")); n != "" && !configMaps[n] {
					t.Errorf("%s: envFrom ConfigMap %s, which kustomization.yaml does not generate", where, n)
				}
			}
			argv := append(strs(dig(c, "command")), strs(dig(c, "args"))...)
			for i, a := range argv {
				argv[i] = regexp.MustCompile(`\$\(([A-Z0-9_]+)\)`).ReplaceAllStringFunc(a, func(ref string) string {
					name := ref[2 : len(ref)-1]
					if _, ok := env[name]; !ok {
						t.Errorf("%s: argument refers to $(%s), which the container does not define", where, name)
					}
					return "value-of-" + name
				})
			}
			checkCommand(t, where, argv)
			if m.kind() == "Deployment" {
				checkServing(t, where, c, argv, gatewayCfg)
			}
			if filepath.Base(argv[0]) == "gateway" {
				for _, name := range caddyEnvNames(readFile(t, "k8s/gateway.Caddyfile")) {
					if _, ok := env[name]; !ok && !strings.Contains(readFile(t, "k8s/gateway.Caddyfile"), "{$"+name+":") {
						t.Errorf("%s: gateway.Caddyfile reads %s, which the container does not set", where, name)
					}
				}
			}
		}
	}
	for name, keys := range secrets {
		if !strings.Contains(readme, "`"+name+"`") {
			t.Errorf("README.md does not document the Secret %s", name)
		}
		for k := range keys {
			if !strings.Contains(readme, k) {
				t.Errorf("README.md does not document key %s of the Secret %s", k, name)
			}
		}
	}

	deployments := byKind["Deployment"]
	findDeployment := func(selector map[string]any) *manifest {
		for i, d := range deployments {
			labels, _ := podSpec(d)
			if labelsMatch(selector, labels) {
				return &deployments[i]
			}
		}
		return nil
	}
	for _, d := range deployments {
		labels, _ := podSpec(d)
		if !labelsMatch(object(dig(d.obj, "spec", "selector", "matchLabels")), labels) {
			t.Errorf("%s: selector does not match its pod template", d)
		}
		covered := false
		for _, s := range byKind["Service"] {
			if labelsMatch(object(dig(s.obj, "spec", "selector")), labels) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("%s: no Service selects its pods", d)
		}
		for _, kind := range []string{"HorizontalPodAutoscaler", "PodDisruptionBudget"} {
			found := false
			for _, x := range byKind[kind] {
				if str(dig(x.obj, "spec", "scaleTargetRef", "name")) == d.name() ||
					labelsMatch(object(dig(x.obj, "spec", "selector", "matchLabels")), labels) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no %s", d, kind)
			}
		}
		if dig(d.obj, "spec", "replicas") != nil {
			t.Errorf("%s: replicas is set; the HorizontalPodAutoscaler owns it", d)
		}
	}
	for _, s := range byKind["Service"] {
		sel := object(dig(s.obj, "spec", "selector"))
		if sel == nil {
			continue // an external service: its EndpointSlice says where
		}
		d := findDeployment(sel)
		if d == nil {
			t.Errorf("%s: selects no Deployment's pods", s)
			continue
		}
		_, spec := podSpec(*d)
		for _, p := range list(dig(s.obj, "spec", "ports")) {
			if !containerHasPort(spec, str(dig(p, "targetPort"))) {
				t.Errorf("%s: targetPort %s is no port of %s", s, str(dig(p, "targetPort")), *d)
			}
		}
	}
	for _, h := range byKind["HorizontalPodAutoscaler"] {
		if !slices.ContainsFunc(deployments, func(d manifest) bool { return d.name() == str(dig(h.obj, "spec", "scaleTargetRef", "name")) }) {
			t.Errorf("%s: scales no Deployment of ours", h)
		}
		if !strings.Contains(fmt.Sprint(h.obj["spec"]), "cpu") {
			t.Errorf("%s: no CPU target", h)
		}
	}
	for _, p := range byKind["PodDisruptionBudget"] {
		if findDeployment(object(dig(p.obj, "spec", "selector", "matchLabels"))) == nil {
			t.Errorf("%s: selects no Deployment's pods", p)
		}
	}
	for _, s := range byKind["EndpointSlice"] {
		svc := str(dig(s.obj, "metadata", "labels", "kubernetes.io/service-name"))
		if !slices.ContainsFunc(byKind["Service"], func(m manifest) bool { return m.name() == svc }) {
			t.Errorf("%s: belongs to Service %q, which does not exist", s, svc)
		}
	}

	// One worker pool and one refresh job per country.
	for _, c := range []string{"nl", "be"} {
		if !slices.ContainsFunc(deployments, func(d manifest) bool { return d.name() == "adreswijzer-worker-"+c }) {
			t.Errorf("no Deployment adreswijzer-worker-%s", c)
		}
		if !slices.ContainsFunc(byKind["CronJob"], func(j manifest) bool {
			labels, _ := podSpec(j)
			return str(labels["adreswijzer.nl/country"]) == c && str(labels["app.kubernetes.io/name"]) == "adreswijzer-refresh"
		}) {
			t.Errorf("no refresh CronJob for %s", c)
		}
	}

	checkNetworkPolicies(t, byKind["NetworkPolicy"], deployments)
}

func containerHasPort(spec map[string]any, port string) bool {
	for _, c := range list(spec["containers"]) {
		for _, p := range list(dig(c, "ports")) {
			if str(dig(p, "name")) == port || str(dig(p, "containerPort")) == port {
				return true
			}
		}
	}
	return false
}

// checkServing checks a serving container's ports against what its process listens on, and
// that its probes ask a path that port serves: readiness on /health.
func checkServing(t *testing.T, where string, c any, argv []string, gatewayCfg map[string]any) {
	t.Helper()
	served := map[string][]string{} // port -> paths
	switch filepath.Base(argv[0]) {
	case "worker":
		listen, metrics := "127.0.0.1:8081", ""
		for i := 0; i+1 < len(argv); i++ {
			switch argv[i] {
			case "--listen":
				listen = argv[i+1]
			case "--metrics-listen":
				metrics = argv[i+1]
			}
		}
		port := func(addr string) string { _, p, _ := strings.Cut(addr, ":"); return p }
		if !strings.HasPrefix(listen, ":") && !strings.HasPrefix(listen, "0.0.0.0:") {
			t.Errorf("%s: --listen %s is not reachable from outside the pod", where, listen)
		}
		served[port(listen)] = []string{"/health"}
		if metrics == "" {
			served[port(listen)] = append(served[port(listen)], "/metrics")
		} else {
			served[port(metrics)] = []string{"/metrics"}
		}
	case "gateway":
		for _, srv := range object(dig(gatewayCfg, "apps", "http", "servers")) {
			for _, l := range strs(dig(srv, "listen")) {
				_, p, _ := strings.Cut(l, ":")
				paths := []string{"/health"} // the main site passes /health to a worker
				js, _ := json.Marshal(srv)
				if bytes.Contains(js, []byte(`"handler":"metrics"`)) {
					paths = nil
					for _, m := range regexp.MustCompile(`"path":\["([^"]+)"\]`).FindAllSubmatch(js, -1) {
						paths = append(paths, string(m[1]))
					}
				}
				served[p] = paths
			}
		}
	}
	ports := map[string]string{} // name and number -> number
	for _, p := range list(dig(c, "ports")) {
		n := str(dig(p, "containerPort"))
		ports[n], ports[str(dig(p, "name"))] = n, n
		if _, ok := served[n]; !ok {
			t.Errorf("%s: containerPort %s, but the process listens on %v", where, n, keysOf(served))
		}
	}
	for _, probe := range []string{"readinessProbe", "livenessProbe", "startupProbe"} {
		get := object(dig(c, probe, "httpGet"))
		if get == nil {
			if probe != "startupProbe" {
				t.Errorf("%s: no %s.httpGet", where, probe)
			}
			continue
		}
		path, port := str(get["path"]), ports[str(get["port"])]
		if probe == "readinessProbe" && path != "/health" {
			t.Errorf("%s: readiness asks %s, want /health", where, path)
		}
		if !slices.Contains(served[port], path) {
			t.Errorf("%s: %s asks %s on port %q, which serves %v", where, probe, path, str(get["port"]), served[port])
		}
	}
}

func keysOf(m map[string][]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkNetworkPolicies: ingress is denied by default, and the workers' API port is open to
// the gateway's pods only.
func checkNetworkPolicies(t *testing.T, policies, deployments []manifest) {
	t.Helper()
	denyAll := false
	for _, p := range policies {
		if len(object(dig(p.obj, "spec", "podSelector"))) == 0 && len(list(dig(p.obj, "spec", "ingress"))) == 0 &&
			slices.Contains(strs(dig(p.obj, "spec", "policyTypes")), "Ingress") {
			denyAll = true
		}
	}
	if !denyAll {
		t.Error("no default-deny ingress NetworkPolicy")
	}
	var gatewayLabels map[string]any
	for _, d := range deployments {
		if d.name() == "adreswijzer-gateway" {
			gatewayLabels, _ = podSpec(d)
		}
	}
	for _, d := range deployments {
		labels, spec := podSpec(d)
		if !strings.HasPrefix(d.name(), "adreswijzer-worker-") {
			continue
		}
		apiPort := ""
		for _, c := range list(spec["containers"]) {
			for _, p := range list(dig(c, "ports")) {
				if str(dig(p, "name")) == "http" {
					apiPort = str(dig(p, "containerPort"))
				}
			}
		}
		reached := false
		for _, p := range policies {
			sel := object(dig(p.obj, "spec", "podSelector", "matchLabels"))
			if len(sel) == 0 || !labelsMatch(sel, labels) {
				continue
			}
			for _, rule := range list(dig(p.obj, "spec", "ingress")) {
				ports := list(dig(rule, "ports"))
				opens := len(ports) == 0
				for _, port := range ports {
					if str(dig(port, "port")) == apiPort || str(dig(port, "port")) == "http" {
						opens = true
					}
				}
				if !opens {
					continue
				}
				from := list(dig(rule, "from"))
				if len(from) == 0 {
					t.Errorf("%s: opens the worker API port to everyone", p)
				}
				for _, f := range from {
					if dig(f, "namespaceSelector") != nil || dig(f, "ipBlock") != nil ||
						!labelsMatch(object(dig(f, "podSelector", "matchLabels")), gatewayLabels) {
						t.Errorf("%s: opens the worker API port to something other than the gateway", p)
					}
				}
				reached = true
			}
		}
		if !reached {
			t.Errorf("%s: no NetworkPolicy lets the gateway reach port %s", d, apiPort)
		}
	}
}

// The images put the programs where the manifests run them.
func TestDockerfile(t *testing.T) {
	src := readFile(t, "Dockerfile")
	for _, want := range []string{
		"./worker/cmd/worker", "./caddymodule/cmd/gateway", installDir + "worker", installDir + "gateway",
		"deploy/bin/adreswijzer-refresh", "deploy/bin/adreswijzer-backup", installDir,
		"AS worker", "AS gateway", "postgresql-client", "curl", "unzip",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
	for _, m := range regexp.MustCompile(`(?m)^(?:ENTRYPOINT|CMD) (\[.*\])$`).FindAllStringSubmatch(src, -1) {
		var argv []string
		if err := json.Unmarshal([]byte(m[1]), &argv); err != nil {
			t.Errorf("Dockerfile: %s: %v", m[0], err)
		}
	}
}

// ---------------------------------------------------------------------------------------
// The scripts, end to end.

// script runs a deploy/bin script with exactly the given environment on top of a clean one.
func script(t *testing.T, env map[string]string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join("bin", args[0]), args[1:]...)
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case name == "DATABASE_URL", name == "SNAPSHOT_DIR", name == "REGISTER_DIR", name == "WORKER",
			name == "PGPASSWORD", strings.HasPrefix(name, "NL_"), strings.HasPrefix(name, "BE_"),
			strings.HasPrefix(name, "BACKUP_"):
		default:
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func mustScript(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	out, err := script(t, env, args...)
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("the deploy scripts need %s, which is not installed: %v", tool, err)
		}
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func snapshotVersion(t *testing.T, path string, c adreswijzer.Country) string {
	t.Helper()
	s := memory.New(memory.Options{Logger: quiet})
	if err := s.LoadSnapshot(path); err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	ds, err := s.Active(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return string(ds.Info().Version)
}

// publisher serves files over HTTPS the way a download site does (Last-Modified,
// If-Modified-Since), and returns its address and a CA bundle for curl.
func publisher(t *testing.T, files map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, from := range files {
		copyFile(t, from, filepath.Join(dir, name))
	}
	srv := httptest.NewTLSServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(ca, pemBytes, 0o644); err != nil {
		t.Fatal(err)
	}
	return srv.URL, ca
}

// zipOf packs files into a zip, as a BeST download comes.
func zipOf(t *testing.T, files ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "best.zip")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range files {
		w, err := zw.Create(filepath.Base(name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

const (
	standVersion    = "bag:2021-10-15"
	mutationVersion = "bag:2021-10-15+bagmut:2021-11-14"
)

// The memory store's refresh: downloads, imports, skips what is unchanged, and rolls back.
func TestRefreshMemoryStore(t *testing.T) {
	t.Parallel()
	needTools(t, "curl", "unzip", "flock", "cmp")
	data := storetest.DataDir(t)
	be := filepath.Join(data, "be")
	url, ca := publisher(t, map[string]string{
		"lvbag-extract-nl.zip": filepath.Join(data, "nl", "BAGGEM0457L-15102021.zip"),
		"best.zip": zipOf(t, filepath.Join(be, "addresses_part.csv"), filepath.Join(be, "streets_part.csv"),
			filepath.Join(be, "municipalities.csv"), filepath.Join(be, "municipalityparts.csv"), filepath.Join(be, "postals.csv")),
	})
	root := t.TempDir()
	snaps := filepath.Join(root, "snapshots")
	if err := os.Mkdir(snaps, 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"WORKER": workerBinary(t), "REGISTER_DIR": filepath.Join(root, "registers"), "SNAPSHOT_DIR": snaps,
		"NL_STAND_URL": url + "/lvbag-extract-nl.zip", "BE_URLS": url + "/best.zip", "BE_DATE": "2021-10-20",
		"CURL_CA_BUNDLE": ca,
	}
	nl := filepath.Join(snaps, "nl.snap")

	out := mustScript(t, env, "adreswijzer-refresh", "nl-stand")
	if !strings.Contains(out, "NL "+standVersion+" active") || snapshotVersion(t, nl, adreswijzer.NL) != standVersion {
		t.Fatalf("first stand refresh:\n%s", out)
	}
	out = mustScript(t, env, "adreswijzer-refresh", "nl-stand")
	if !strings.Contains(out, "BAG stand unchanged") || strings.Contains(out, "active:") {
		t.Errorf("an unchanged stand was imported again:\n%s", out)
	}

	copyFile(t, filepath.Join(data, "nl", "BAGNLDM-13112021-14112021.zip"), filepath.Join(root, "registers", "nl", "incoming", "BAGNLDM-13112021-14112021.zip"))
	out = mustScript(t, env, "adreswijzer-refresh", "nl-mutations")
	if got := snapshotVersion(t, nl, adreswijzer.NL); got != mutationVersion {
		t.Fatalf("after the mutations %s is served, want %s:\n%s", got, mutationVersion, out)
	}

	mustScript(t, env, "adreswijzer-refresh", "rollback", "nl")
	if got := snapshotVersion(t, nl, adreswijzer.NL); got != standVersion {
		t.Errorf("after rollback %s is served, want %s", got, standVersion)
	}
	out = mustScript(t, env, "adreswijzer-refresh", "nl")
	if strings.Contains(out, "active:") || snapshotVersion(t, nl, adreswijzer.NL) != standVersion {
		t.Errorf("a rolled-back dataset must stay until new deliveries arrive:\n%s", out)
	}
	mustScript(t, env, "adreswijzer-refresh", "rollback-nl")
	if got := snapshotVersion(t, nl, adreswijzer.NL); got != mutationVersion {
		t.Errorf("a second rollback serves %s, want %s", got, mutationVersion)
	}

	// A damaged download is refused and changes nothing.
	bad := filepath.Join(root, "registers", "nl", "incoming", "BAGNLDM-14112021-15112021.zip")
	if err := os.WriteFile(bad, []byte("PK\x03\x04 not a zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := script(t, env, "adreswijzer-refresh", "nl-mutations"); err == nil || !strings.Contains(out, "quarantine") {
		t.Errorf("a damaged delivery was not refused (%v):\n%s", err, out)
	}
	if got := snapshotVersion(t, nl, adreswijzer.NL); got != mutationVersion {
		t.Errorf("after a refused delivery %s is served, want %s", got, mutationVersion)
	}

	out = mustScript(t, env, "adreswijzer-refresh", "be")
	if got := snapshotVersion(t, filepath.Join(snaps, "be.snap"), adreswijzer.BE); got != "best:2021-10-20" {
		t.Errorf("BeST refresh serves %s:\n%s", got, out)
	}
}

func activeVersion(t *testing.T, dbURL string, c adreswijzer.Country) string {
	t.Helper()
	ctx := context.Background()
	s, err := postgres.Open(ctx, dbURL, postgres.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ds, err := s.Active(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	return string(ds.Info().Version)
}

// The Postgres store's refresh: imports activate, the previous dataset stays for rollback,
// and the rollback the script does is the one the store sees.
func TestRefreshPostgres(t *testing.T) {
	t.Parallel()
	db := gatewaytest.Postgres(t)
	needTools(t, "unzip", "flock", "psql")
	data := storetest.DataDir(t)
	root := t.TempDir()
	regs := filepath.Join(root, "registers")
	copyFile(t, filepath.Join(data, "nl", "BAGGEM0457L-15102021.zip"), filepath.Join(regs, "nl", "stand", "BAGGEM0457L-15102021.zip"))
	env := map[string]string{"WORKER": workerBinary(t), "REGISTER_DIR": regs, "DATABASE_URL": db}

	mustScript(t, env, "adreswijzer-refresh", "import", "nl")
	if got := activeVersion(t, db, adreswijzer.NL); got != standVersion {
		t.Fatalf("after the stand import %s is active", got)
	}
	copyFile(t, filepath.Join(data, "nl", "BAGNLDM-13112021-14112021.zip"), filepath.Join(regs, "nl", "incoming", "BAGNLDM-13112021-14112021.zip"))
	mustScript(t, env, "adreswijzer-refresh", "nl")
	if got := activeVersion(t, db, adreswijzer.NL); got != mutationVersion {
		t.Fatalf("after the mutations %s is active", got)
	}
	out := mustScript(t, env, "adreswijzer-refresh", "rollback", "nl")
	if got := activeVersion(t, db, adreswijzer.NL); got != standVersion || !strings.Contains(out, "NL "+standVersion+" active again") {
		t.Errorf("after rollback %s is active:\n%s", got, out)
	}
	// As from a worker's container: nothing to write but the database.
	blocked := filepath.Join(root, "read-only")
	if err := os.WriteFile(blocked, nil, 0o444); err != nil {
		t.Fatal(err)
	}
	mustScript(t, map[string]string{"WORKER": env["WORKER"], "REGISTER_DIR": filepath.Join(blocked, "registers"), "DATABASE_URL": db}, "adreswijzer-refresh", "rollback-nl")
	if got := activeVersion(t, db, adreswijzer.NL); got != mutationVersion {
		t.Errorf("a second rollback leaves %s active", got)
	}
	if out, err := script(t, env, "adreswijzer-refresh", "rollback", "be"); err == nil || !strings.Contains(out, "rollback BE: no previous dataset") {
		t.Errorf("rollback without a previous dataset: %v\n%s", err, out)
	}

	// What the rollback holds while it runs is the store's import lock: an import of the
	// country running elsewhere makes it refuse.
	ctx := context.Background()
	s, err := postgres.Open(ctx, db, postgres.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	w, err := s.Begin(ctx, adreswijzer.NL)
	if err != nil {
		t.Fatal(err)
	}
	out, err = script(t, env, "adreswijzer-refresh", "rollback", "nl")
	if aerr := w.Abort(ctx); aerr != nil {
		t.Fatal(aerr)
	}
	if err == nil || !strings.Contains(out, "rollback NL: another import of this country is running") {
		t.Errorf("rollback during an import: %v\n%s", err, out)
	}
}

// backupSource is a gateway database with something in every table: keys, usage, activity,
// accounts with a code-host identity, and the short-lived rows a backup leaves out (a
// sign-in link, a dashboard session).
type backupSource struct {
	url     string
	keys    []*keys.Key
	account *accounts.Account
	token   string // the sign-in link's
}

func newBackupSource(t *testing.T) backupSource {
	t.Helper()
	ctx := context.Background()
	src := backupSource{url: gatewaytest.Postgres(t)}
	gw, err := gatewaydb.Open(ctx, src.url)
	if err != nil {
		t.Fatal(err)
	}
	defer gw.Close()
	now := time.Now().UTC().Truncate(time.Second)
	src.account = &accounts.Account{ID: "acct_00000000000000a1", Email: "winkel@example.nl", Plan: "starter", Language: "nl", Created: now}
	if err := gw.Accounts().Create(ctx, src.account); err != nil {
		t.Fatal(err)
	}
	if err := gw.Accounts().AddIdentity(ctx, accounts.Identity{Provider: "github", Subject: "4242", Account: src.account.ID, Created: now}); err != nil {
		t.Fatal(err)
	}
	for _, o := range []keys.Options{{Kind: keys.Live, Account: src.account.ID}, {Kind: keys.Live, Account: "shop-b"}} {
		k, _, err := keys.New(o, now)
		if err != nil {
			t.Fatal(err)
		}
		if err := gw.Keys().Create(ctx, k); err != nil {
			t.Fatal(err)
		}
		src.keys = append(src.keys, k)
	}
	err = gw.Usage().Add(ctx, usage.Batch{
		Deltas: []usage.Delta{{Account: src.account.ID, Month: "2020-01", Totals: usage.Totals{Verifications: 7}}},
		Activity: []usage.Activity{{Account: src.account.ID, Key: src.keys[0].ID, Day: "2020-01-31", Route: "validate",
			Calls: 9, Verifications: 7, LastUsed: now}},
	})
	if err != nil {
		t.Fatal(err)
	}
	token, link, err := accounts.NewLink(src.account.Email, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := gw.Accounts().AddLink(ctx, link); err != nil {
		t.Fatal(err)
	}
	src.token = token
	if err := gw.Sessions().Commit("session-token", []byte("session"), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, src.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE unrelated (x int); INSERT INTO unrelated VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	return src
}

// tables lists a database's tables.
func tables(t *testing.T, url string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// The backup holds every table of the gateway, the short-lived ones without their rows,
// and nothing else; the restore test checks the counts; and a dump restored into an empty
// database is one the gateway opens, with the accounts and keys it had.
func TestBackup(t *testing.T) {
	t.Parallel()
	needTools(t, "psql", "pg_dump", "pg_restore")
	ctx := context.Background()
	src := newBackupSource(t)
	scratch := gatewaytest.Postgres(t)

	dir := t.TempDir()
	env := map[string]string{"DATABASE_URL": src.url, "BACKUP_DIR": dir, "BACKUP_VERIFY_URL": scratch}
	mustScript(t, env, "adreswijzer-backup", "dump")
	dumps, _ := filepath.Glob(filepath.Join(dir, "gateway-*.dump"))
	if len(dumps) != 1 {
		t.Fatalf("dumps: %v", dumps)
	}

	// What the dump holds: the tables the gateway's migrations make, all of them, so that a
	// new migration's table is backed up or this fails; rows of all but the short-lived.
	list, err := exec.Command("pg_restore", "--list", dumps[0]).Output()
	if err != nil {
		t.Fatal(err)
	}
	var schema, data []string
	for _, m := range regexp.MustCompile(`(?m)^\d+; \d+ \d+ TABLE (DATA )?\S+ (\S+) `).FindAllStringSubmatch(string(list), -1) {
		if m[1] == "" {
			schema = append(schema, m[2])
		} else {
			data = append(data, m[2])
		}
	}
	slices.Sort(schema)
	slices.Sort(data)
	gatewayTables := slices.DeleteFunc(tables(t, src.url), func(n string) bool { return n == "unrelated" })
	shortLived := []string{"gateway_signin_links", "sessions", "gateway_oauth_requests", "gateway_oauth_codes", "gateway_oauth_keys"}
	if !slices.Equal(schema, gatewayTables) {
		t.Errorf("the dump holds the tables %v; the gateway's database has %v", schema, gatewayTables)
	}
	if want := slices.DeleteFunc(slices.Clone(gatewayTables), func(n string) bool { return slices.Contains(shortLived, n) }); !slices.Equal(data, want) {
		t.Errorf("the dump holds the rows of %v, want those of %v", data, want)
	}

	out := mustScript(t, env, "adreswijzer-backup", "verify")
	for _, want := range []string{"restores as counted", "gateway_keys 2", "gateway_accounts 1", "gateway_identities 1",
		"gateway_activity 1", "gateway_key_use 1", "sessions 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("verify does not say %q:\n%s", want, out)
		}
	}
	if got := tables(t, scratch); len(got) != 0 {
		t.Errorf("verify left the tables %v in the scratch database", got)
	}

	t.Run("restore", func(t *testing.T) {
		// The restore deploy/README.md gives, into an empty database, then the gateway on it:
		// its migrator finds the version and has nothing to do.
		empty := gatewaytest.Postgres(t)
		if out, err := exec.Command("pg_restore", "-d", empty, "--no-owner", "--no-privileges", "--single-transaction",
			"--exit-on-error", dumps[0]).CombinedOutput(); err != nil {
			t.Fatalf("pg_restore: %v\n%s", err, out)
		}
		gw, err := gatewaydb.Open(ctx, empty)
		if err != nil {
			t.Fatalf("the gateway does not open the restored database: %v", err)
		}
		defer gw.Close()
		if a, err := gw.Accounts().ByEmail(ctx, src.account.Email); err != nil || a.ID != src.account.ID || a.Plan != src.account.Plan ||
			a.Language != src.account.Language || !a.Created.Equal(src.account.Created) {
			t.Errorf("account after the restore: %+v, %v; want %+v", a, err, src.account)
		}
		if a, err := gw.Accounts().ByIdentity(ctx, "github", "4242"); err != nil || a.ID != src.account.ID {
			t.Errorf("identity after the restore: %+v, %v", a, err)
		}
		for _, k := range src.keys {
			if got, err := gw.Keys().Lookup(ctx, k.Hash); err != nil || got.ID != k.ID || got.Account != k.Account {
				t.Errorf("key %s after the restore: %+v, %v", k.ID, got, err)
			}
		}
		if tot, err := gw.Usage().Get(ctx, src.account.ID, "2020-01"); err != nil || tot.Verifications != 7 {
			t.Errorf("usage after the restore: %+v, %v", tot, err)
		}
		if act, err := gw.Usage().Activity(ctx, src.account.ID, "2020-01-01", "2020-01-31"); err != nil || len(act) != 1 || act[0].Calls != 9 {
			t.Errorf("activity after the restore: %+v, %v", act, err)
		}
		// The short-lived rows stay behind: the link no longer signs in, the session is gone,
		// and both tables work.
		if _, err := gw.Accounts().UseLink(ctx, accounts.HashToken(src.token), time.Now()); !errors.Is(err, accounts.ErrLinkInvalid) {
			t.Errorf("a sign-in link survived the restore: %v", err)
		}
		if _, found, err := gw.Sessions().Find("session-token"); err != nil || found {
			t.Errorf("a session survived the restore: %v %v", found, err)
		}
		if err := gw.Sessions().Commit("new-session", []byte("x"), time.Now().Add(time.Hour)); err != nil {
			t.Errorf("sessions after the restore: %v", err)
		}
	})

	// A restore that differs from the counts taken with the dump fails the test.
	counts, _ := filepath.Glob(filepath.Join(dir, "gateway-*.counts"))
	b, err := os.ReadFile(counts[0])
	if err != nil {
		t.Fatal(err)
	}
	tampered := strings.Replace(string(b), "gateway_accounts 1\n", "gateway_accounts 2\n", 1)
	if tampered == string(b) {
		t.Fatalf("no account count in %s:\n%s", counts[0], b)
	}
	if err := os.WriteFile(counts[0], []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := script(t, env, "adreswijzer-backup", "verify"); err == nil || !strings.Contains(out, "gateway_accounts 1 (want 2)") {
		t.Errorf("verify passed a restore with fewer accounts than counted: %v\n%s", err, out)
	}
	env["BACKUP_VERIFY_URL"] = src.url
	if out, err := script(t, env, "adreswijzer-backup", "verify"); err == nil || !strings.Contains(out, "production") {
		t.Errorf("verify must refuse the production database:\n%s", out)
	}
}
