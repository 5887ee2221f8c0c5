package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/adreswijzer/adreswijzer"
	"github.com/adreswijzer/adreswijzer/store/postgres"
)

// rollbackCmd serves a country's previous Postgres dataset again, for an operator who finds
// the newest register data wrong; a second rollback undoes the first. It is a command of
// its own so that operators never repeat the store's locking and state rules by hand.
// (Snapshot files are rolled back by putting the previous file in place: the serving
// workers follow it.)
func rollbackCmd(ctx context.Context, args []string, stdout, stderr io.Writer, log *slog.Logger) error {
	fs := flag.NewFlagSet("worker rollback", flag.ContinueOnError)
	country := fs.String("country", "", "country whose previous dataset to serve again: nl or be")
	dbURL := fs.String("database-url", "", "Postgres `URL` (default $DATABASE_URL)")
	rest, err := parse(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("unexpected argument %q", rest[0])
	}
	c, ok := adreswijzer.ParseCountry(*country)
	if !ok {
		return usagef("--country must be nl or be")
	}
	if *dbURL == "" {
		*dbURL = os.Getenv("DATABASE_URL")
	}
	if *dbURL == "" {
		return usagef("give --database-url URL (or set DATABASE_URL)")
	}
	s, err := postgres.Open(ctx, *dbURL, postgres.Options{Logger: log})
	if err != nil {
		return err
	}
	defer s.Close()
	info, err := s.Rollback(ctx, c)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s %s active again\n", info.Country, info.Version)
	return nil
}
