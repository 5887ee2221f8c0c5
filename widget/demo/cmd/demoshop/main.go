// Command demoshop serves the demo checkout (package demo) on its own origin, in front of a
// running gateway:
//
//	bin/gateway keys create --kind pk_test --account demo --origin http://127.0.0.1:8090
//	ADRESWIJZER_DEMO_KEY=aw_pk_test_… go run ./widget/demo/cmd/demoshop -api http://127.0.0.1:8080
//
// The key comes from the environment, not a flag, so that it stays out of process listings.
package main

import (
	"errors"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/adreswijzer/adreswijzer/widget/demo"
)

func main() {
	addr := flag.String("listen", "127.0.0.1:8090", "`ADDR`ess of the shop; the key's allowed origin is http://ADDR")
	api := flag.String("api", "http://127.0.0.1:8080", "base `URL` of the gateway")
	widget := flag.String("widget", "", "base `URL` of the form's files (default API/widget/)")
	country := flag.String("country", "nl", "starting country of the form: nl or be")
	lang := flag.String("lang", "nl", "language of the form: nl, fr, de or en")
	flag.Parse()
	key := os.Getenv("ADRESWIJZER_DEMO_KEY")
	if key == "" {
		slog.Error("set ADRESWIJZER_DEMO_KEY to a publishable key whose allowed origin is this shop")
		os.Exit(2)
	}
	srv := &http.Server{
		Addr:              *addr,
		Handler:           demo.Handler(demo.Config{API: *api, Widget: *widget, Key: key, Country: *country, Lang: *lang}),
		ReadHeaderTimeout: 5 * time.Second,
	}
	slog.Info("demo shop", "url", "http://"+*addr+"/")
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		slog.Error("demo shop stopped", "err", err)
		os.Exit(1)
	}
}
