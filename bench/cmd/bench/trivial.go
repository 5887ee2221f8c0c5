package main

import (
	"flag"
	"io"
	"net/http"
	"strconv"
	"time"
)

// fixedBody is the baselines' answer: about 600 bytes of JSON shaped like a lookup answer,
// the size of the worker's typical answers, so that the baselines move the same bytes.
const fixedBody = `{"addresses":[{"country":"NL","id":"0363200000123456","street":"Synthetische Straatnaam",` +
	`"houseNumber":12,"houseNumberSuffix":null,"addition":null,"postcode":"1234AB","locality":"Plaatsnaam",` +
	`"municipality":"Gemeente Voorbeeld","status":"in use","address1":"Synthetische Straatnaam 12",` +
	`"address2":null,"zip":"1234 AB","city":"PLAATSNAAM"}],"additions":[],"issues":[],` +
	`"nextStep":"Het adres is gevonden; kies eventueel een toevoeging.","meta":{"datasetVersion":"bag:2025-09-15",` +
	`"source":"BAG (Kadaster)","attribution":"baseline: a fixed body, not an address","language":"nl","padding":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}`

// trivialCmd serves fixedBody on every path and method: the cheapest answer net/http can
// give, the ceiling every Go handler on this machine is compared with.
func trivialCmd(args []string, _ io.Writer) error {
	fs := flag.NewFlagSet("trivial", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:18080", "address")
	if err := fs.Parse(args); err != nil {
		return err
	}
	body := []byte(fixedBody)
	length := strconv.Itoa(len(body))
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A POST body must be read for the connection to be reused, as any handler would.
		_, _ = io.Copy(io.Discard, r.Body)
		hd := w.Header()
		hd["Content-Type"] = []string{"application/json"}
		hd["Content-Length"] = []string{length}
		_, _ = w.Write(body)
	})
	srv := &http.Server{Addr: *listen, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	return srv.ListenAndServe()
}
