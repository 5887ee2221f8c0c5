// Command widgetassets builds widget/dist, the files the gateway serves under /widget/
// (package assets): `make build` runs it after building the core.
//
//	go run ./widget/cmd/widgetassets -wasm widget/adreswijzer.wasm -out widget/dist
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/adreswijzer/adreswijzer/widget/assets"
)

func main() {
	src := flag.String("src", "widget", "`DIR` holding adreswijzer-form.js and wasi.js")
	wasm := flag.String("wasm", "widget/adreswijzer.wasm", "the form's core, built for wasip1")
	out := flag.String("out", "widget/dist", "`DIR` to write the served files to")
	flag.Parse()
	f, err := assets.Build(*src, *wasm, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, name := range f.All() {
		fi, err := os.Stat(filepath.Join(*out, name))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Printf("%9d  %s\n", fi.Size(), filepath.Join(*out, name))
	}
}
