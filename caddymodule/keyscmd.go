package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/adreswijzer/adreswijzer/gateway/backend"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "keys",
		Usage: "create|list|revoke",
		Short: "Manages the gateway's API keys",
		Long: `
Manages API keys in the gateway's key store: the key file (--file, default ./var/keys.json)
or, when --database or DATABASE_URL is set, Postgres. Use the same store as the gateway's
Caddyfile (key_file / database). A running gateway sees changes within seconds.

  keys create --kind live|test|pk_live|pk_test --account ID [--plan free] [--name N]
              [--origin https://shop.example]... [--scope address:verify]...
  keys list
  keys revoke KEY_ID

The secret is printed once, by create, and never stored: only its SHA-256 hash is kept.`,
		CobraFunc: func(cmd *cobra.Command) {
			var file, database string
			cmd.PersistentFlags().StringVar(&file, "file", backend.DefaultKeyFile, "key file, when no database is used")
			cmd.PersistentFlags().StringVar(&database, "database", "", "Postgres URL (default $DATABASE_URL)")
			open := func(ctx context.Context) (keys.Store, func(), error) {
				if database == "" {
					database = os.Getenv("DATABASE_URL")
				}
				return backend.OpenKeys(ctx, database, file)
			}

			var o keys.Options
			var kind string
			create := &cobra.Command{
				Use:   "create --kind KIND --account ID [flags]",
				Short: "Creates a key and prints its secret once",
				Args:  cobra.NoArgs,
				RunE: func(c *cobra.Command, _ []string) error {
					k, ok := keys.ParseKind(kind)
					if !ok {
						return fmt.Errorf("--kind must be one of %v", keys.Kinds)
					}
					o.Kind = k
					return runCreate(c.Context(), c.OutOrStdout(), open, o)
				},
			}
			create.Flags().StringVar(&kind, "kind", "", "live, test, pk_live or pk_test")
			create.Flags().StringVar(&o.Account, "account", "", "account the key bills to")
			create.Flags().StringVar(&o.Plan, "plan", "free", "plan of the account")
			create.Flags().StringVar(&o.Name, "name", "", "who uses the key, for people")
			create.Flags().StringArrayVar(&o.Origins, "origin", nil, "allowed origin of a publishable key (repeatable)")
			create.Flags().StringArrayVar(&o.Scopes, "scope", nil, "scope (repeatable; default address:verify)")
			_ = create.MarkFlagRequired("kind")
			_ = create.MarkFlagRequired("account")

			list := &cobra.Command{
				Use:   "list",
				Short: "Lists keys (never their secrets)",
				Args:  cobra.NoArgs,
				RunE: func(c *cobra.Command, _ []string) error {
					return runList(c.Context(), c.OutOrStdout(), open)
				},
			}
			revoke := &cobra.Command{
				Use:   "revoke KEY_ID",
				Short: "Revokes a key",
				Args:  cobra.ExactArgs(1),
				RunE: func(c *cobra.Command, args []string) error {
					return runRevoke(c.Context(), c.OutOrStdout(), open, args[0])
				},
			}
			cmd.AddCommand(create, list, revoke)
		},
	})
}

type opener func(context.Context) (keys.Store, func(), error)

func cmdContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	return context.WithTimeout(ctx, 30*time.Second)
}

func runCreate(ctx context.Context, out io.Writer, open opener, o keys.Options) error {
	ctx, cancel := cmdContext(ctx)
	defer cancel()
	k, secret, err := keys.New(o, time.Now())
	if err != nil {
		return err
	}
	store, closeStore, err := open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	if err := store.Create(ctx, k); err != nil {
		return err
	}
	fmt.Fprintf(out, "id:      %s\nkind:    %s\naccount: %s\nplan:    %s\n", k.ID, k.Kind, k.Account, k.Plan)
	if len(k.Origins) > 0 {
		fmt.Fprintf(out, "origins: %s\n", strings.Join(k.Origins, " "))
	}
	fmt.Fprintf(out, "secret:  %s\n\nThe secret is shown only now. Store it safely; it cannot be recovered.\n", secret)
	return nil
}

func runList(ctx context.Context, out io.Writer, open opener) error {
	ctx, cancel := cmdContext(ctx)
	defer cancel()
	store, closeStore, err := open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	list, err := store.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tKIND\tACCOUNT\tPLAN\tNAME\tSCOPES\tORIGINS\tCREATED\tREVOKED")
	for _, k := range list {
		revoked := "-"
		if k.Revoked != nil {
			revoked = k.Revoked.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Kind, k.Account, k.Plan, dash(k.Name),
			strings.Join(k.Scopes, ","), dash(strings.Join(k.Origins, ",")), k.Created.Format(time.RFC3339), revoked)
	}
	return tw.Flush()
}

func runRevoke(ctx context.Context, out io.Writer, open opener, id string) error {
	ctx, cancel := cmdContext(ctx)
	defer cancel()
	store, closeStore, err := open(ctx)
	if err != nil {
		return err
	}
	defer closeStore()
	if err := store.Revoke(ctx, id, time.Now()); err != nil {
		if errors.Is(err, keys.ErrNotFound) {
			return fmt.Errorf("no key with id %s", id)
		}
		return err
	}
	fmt.Fprintf(out, "revoked %s\n", id)
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
