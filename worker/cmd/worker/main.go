// Command worker is the register worker: it imports the official address registers into a
// store, and serves the REST interface over them.
//
//	worker import --country nl --from BAGGEM0457L-15102021.zip --snapshot var/nl.snap
//	worker import --country be --from best/ --date 2026-11-20 --database-url postgres://...
//	worker serve --snapshot var/nl.snap --snapshot var/be.snap
//	worker serve --database-url postgres://... --replica-url postgres://...
//
// An import never disturbs what is served: it builds the new dataset beside the active one
// and activates it in one step at the end (a snapshot file renamed into place, or one row
// flipped in Postgres), so an import that fails or is killed leaves the previous dataset
// serving. A serving worker follows activations by itself.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/adreswijzer/adreswijzer/worker/logbuf"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// errUsage marks an error in the command line, answered with exit code 2.
var errUsage = errors.New("usage")

const usage = `usage:
  worker import --country nl|be --from FILE... [--date YYYY-MM-DD]
                [--database-url URL | --snapshot FILE] [--quiet]
  worker serve  [--listen 127.0.0.1:8081] [--snapshot FILE]... [--database-url URL]
                [--replica-url URL] [--request-timeout 800ms] [--cache-size N]
                [--lookup-cache N]
                [--metrics-listen ADDR] [--gc-headroom-mb 128]
                [--access-log failures|all] [--slow-request 100ms]
  worker rollback --country nl|be [--database-url URL]

Run "worker import -h", "worker serve -h" or "worker rollback -h" for the options.
DATABASE_URL is the default of --database-url.
`

// run executes one command and returns the exit code. Logs go to stderr as JSON lines;
// stdout carries only the import summary.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "import":
		// The summary tells what an import did; the stores' own notes on activation would
		// only repeat it between the progress lines.
		err = importCmd(ctx, args[1:], stdout, stderr, logger(jsonLines(stderr, slog.LevelWarn)))
	case "serve":
		// The access log's lines are written in batches (see logbuf); the command's own
		// last word, below, comes after them.
		lw := logbuf.New(stderr, 64<<10, 100*time.Millisecond)
		err = serveCmd(ctx, args[1:], stderr, logger(logbuf.Handler(jsonLines(lw, slog.LevelInfo), lw)))
		_ = lw.Close()
	case "rollback":
		err = rollbackCmd(ctx, args[1:], stdout, stderr, logger(jsonLines(stderr, slog.LevelWarn)))
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "worker: unknown command %q\n%s", args[0], usage)
		return exitUsage
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHelp):
		return exitOK
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "worker %s: %v\n", args[0], err)
		return exitUsage
	}
	fmt.Fprintf(stderr, "worker %s: %v\n", args[0], err)
	return exitError
}

// jsonLines writes records of level and above to w as JSON lines.
func jsonLines(w io.Writer, level slog.Level) slog.Handler {
	return slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level})
}

// logger logs through h and is made the default, for the packages that log through slog's
// default logger.
func logger(h slog.Handler) *slog.Logger {
	log := slog.New(h)
	slog.SetDefault(log)
	return log
}
