// Package openapi publishes the REST interface's contract: openapi.json, the machine-readable
// description served at /openapi.json, and the human-readable reference served at /docs,
// rendered from the same document so the two cannot disagree.
//
// openapi.json is written by hand, not generated from the Go types, because it carries
// decisions the types cannot express (which error code goes with which status, the severity
// of each issue code, limits, counting rules). The package openapitest holds every answer of
// the integration tests to it, and its own tests prove the wire types of the domain package
// agree with it.
//
// This package depends on the standard library only, so serving the documents adds nothing
// to the worker's binary.
package openapi

import (
	_ "embed"
	"sync"
)

//go:embed openapi.json
var raw []byte

// JSON returns openapi.json. The slice is shared, not copied, because it is written to every
// /openapi.json answer unchanged; callers must not modify it.
func JSON() []byte { return raw }

// DocsHTML returns the reference page. It is rendered once, on first use, because the
// document is fixed at build time; callers must not modify the slice. It panics when the
// embedded document cannot be rendered, which the package's tests rule out before a build
// can ship.
func DocsHTML() []byte { return docsHTML() }

var docsHTML = sync.OnceValue(func() []byte {
	b, err := renderDocs(raw)
	if err != nil {
		panic("openapi: render /docs: " + err.Error())
	}
	return b
})
