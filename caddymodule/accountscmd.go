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

	"github.com/adreswijzer/adreswijzer/gateway/accounts"
	"github.com/adreswijzer/adreswijzer/gateway/backend"
	"github.com/adreswijzer/adreswijzer/gateway/keys"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "accounts",
		Usage: "list|set-plan",
		Short: "Manages the dashboard's accounts",
		Long: `
Manages the accounts people made in the dashboard: the account file (--file, default
./var/accounts.json, beside --keys) or, when --database or DATABASE_URL is set, Postgres.
Use the same stores as the gateway's Caddyfile (account_file, key_file / database).

  accounts list
  accounts set-plan ACCOUNT PLAN      ACCOUNT is an account id or its e-mail address

A plan change is how an operator records what a customer asked for; no payment is taken
here. It is written to the account and to every key of the account, and a running gateway
applies the new quota within seconds. A plan the Caddyfile does not name gets the default
plan's quota.`,
		CobraFunc: func(cmd *cobra.Command) {
			var file, keyFile, database string
			cmd.PersistentFlags().StringVar(&file, "file", backend.DefaultAccountFile, "account file, when no database is used")
			cmd.PersistentFlags().StringVar(&keyFile, "keys", backend.DefaultKeyFile, "key file, when no database is used")
			cmd.PersistentFlags().StringVar(&database, "database", "", "Postgres URL (default $DATABASE_URL)")
			open := func(ctx context.Context) (accounts.Store, keys.Store, func(), error) {
				if database == "" {
					database = os.Getenv("DATABASE_URL")
				}
				return backend.OpenAccounts(ctx, database, file, keyFile)
			}
			list := &cobra.Command{
				Use:   "list",
				Short: "Lists accounts",
				Args:  cobra.NoArgs,
				RunE: func(c *cobra.Command, _ []string) error {
					return runAccountList(c.Context(), c.OutOrStdout(), open)
				},
			}
			setPlan := &cobra.Command{
				Use:   "set-plan ACCOUNT PLAN",
				Short: "Records an account's new plan",
				Args:  cobra.ExactArgs(2),
				RunE: func(c *cobra.Command, args []string) error {
					return runSetPlan(c.Context(), c.OutOrStdout(), open, args[0], args[1])
				},
			}
			cmd.AddCommand(list, setPlan)
		},
	})
}

type accountOpener func(context.Context) (accounts.Store, keys.Store, func(), error)

func runAccountList(ctx context.Context, out io.Writer, open accountOpener) error {
	ctx, cancel := cmdContext(ctx)
	defer cancel()
	as, _, closeStores, err := open(ctx)
	if err != nil {
		return err
	}
	defer closeStores()
	list, err := as.List(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tPLAN\tCREATED")
	for _, a := range list {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.ID, a.Email, a.Plan, a.Created.Format(time.RFC3339))
	}
	return tw.Flush()
}

func runSetPlan(ctx context.Context, out io.Writer, open accountOpener, who, plan string) error {
	ctx, cancel := cmdContext(ctx)
	defer cancel()
	if !keys.ValidAccount(plan) {
		return errors.New("plan must be 1 to 64 letters, digits or _ - .")
	}
	as, ks, closeStores, err := open(ctx)
	if err != nil {
		return err
	}
	defer closeStores()
	a, err := findAccount(ctx, as, who)
	if err != nil {
		return err
	}
	// The account first: were the keys to fail, running the command again mends them.
	if err := as.SetPlan(ctx, a.ID, plan); err != nil {
		return err
	}
	if err := ks.SetPlan(ctx, a.ID, plan); err != nil {
		return fmt.Errorf("account %s has plan %s, but its keys do not yet (run the command again): %w", a.ID, plan, err)
	}
	fmt.Fprintf(out, "account %s: plan %s (was %s)\n", a.ID, plan, a.Plan)
	return nil
}

// findAccount takes an account id or an e-mail address.
func findAccount(ctx context.Context, as accounts.Store, who string) (*accounts.Account, error) {
	var a *accounts.Account
	var err error
	if strings.Contains(who, "@") {
		email, nerr := accounts.NormaliseEmail(who)
		if nerr != nil {
			return nil, nerr
		}
		a, err = as.ByEmail(ctx, email)
	} else {
		a, err = as.Get(ctx, who)
	}
	if errors.Is(err, accounts.ErrNotFound) {
		return nil, fmt.Errorf("no account %s", who)
	}
	return a, err
}
