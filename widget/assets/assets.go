// Package assets builds the files the gateway serves under /widget/ (widget/dist): the custom
// element's script under its fixed name, which shops link to; the WASI shim and the form's
// core under content-hashed names, which never change once published and are cached for a
// year; and each of them precompressed with brotli and gzip, for the file server's
// precompressed option. Nothing else is written there, so a file server rooted at the
// directory serves only what a shop needs.
package assets

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/andybalholm/brotli"
)

// Entry is the script shops link to; its name never changes.
const Entry = "adreswijzer-form.js"

// Files names what Build wrote, relative to the output directory.
type Files struct {
	Entry, Shim, Core string
}

// All lists every file written, the precompressed ones included.
func (f Files) All() []string {
	var out []string
	for _, n := range []string{f.Entry, f.Shim, f.Core} {
		out = append(out, n, n+".br", n+".gz")
	}
	return out
}

// ours matches the names Build writes, so that a rebuild removes the files of the last one
// and nothing else.
var ours = regexp.MustCompile(`^(adreswijzer-form\.js|wasi\.[0-9a-f]{12}\.js|adreswijzer-core\.[0-9a-f]{12}\.wasm)(\.br|\.gz)?$`)

// Hashed matches the content-hashed names: a server may cache them for good.
var Hashed = regexp.MustCompile(`\.[0-9a-f]{12}\.(js|wasm)$`)

// Build writes the files from the sources in src (adreswijzer-form.js, wasi.js) and the
// core at wasm into out.
func Build(src, wasm, out string) (Files, error) {
	entry, err := os.ReadFile(filepath.Join(src, Entry))
	if err != nil {
		return Files{}, fmt.Errorf("widget assets: %w", err)
	}
	shim, err := os.ReadFile(filepath.Join(src, "wasi.js"))
	if err != nil {
		return Files{}, fmt.Errorf("widget assets: %w", err)
	}
	core, err := os.ReadFile(wasm)
	if err != nil {
		return Files{}, fmt.Errorf("widget assets: %w", err)
	}
	f := Files{Entry: Entry, Shim: hashed("wasi", shim, ".js"), Core: hashed("adreswijzer-core", core, ".wasm")}
	// The entry names the other two; its own name stays, so it is served with a short cache.
	for _, r := range []struct{ constant, from, to string }{
		{"CORE", "./adreswijzer.wasm", "./" + f.Core},
		{"SHIM", "./wasi.js", "./" + f.Shim},
	} {
		decl := "const " + r.constant + " = '" + r.from + "';"
		if n := bytes.Count(entry, []byte(decl)); n != 1 {
			return Files{}, fmt.Errorf("widget assets: %s declares %q %d times, want once", Entry, decl, n)
		}
		entry = bytes.Replace(entry, []byte(decl), []byte("const "+r.constant+" = '"+r.to+"';"), 1)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Files{}, fmt.Errorf("widget assets: %w", err)
	}
	if err := clean(out); err != nil {
		return Files{}, err
	}
	for name, b := range map[string][]byte{f.Entry: entry, f.Shim: shim, f.Core: core} {
		if err := Write(out, name, b); err != nil {
			return Files{}, err
		}
	}
	return f, nil
}

// hashed names content by the first 12 hex digits of its SHA-256: enough to tell builds
// apart, short enough to read.
func hashed(stem string, b []byte, ext string) string {
	sum := sha256.Sum256(b)
	return stem + "." + hex.EncodeToString(sum[:6]) + ext
}

// clean removes the files of an earlier build.
func clean(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("widget assets: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() && ours.MatchString(e.Name()) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("widget assets: %w", err)
			}
		}
	}
	return nil
}

// Write writes a file and its brotli and gzip versions, at the best compression of each: they
// are made once and sent to every shopper.
func Write(dir, name string, b []byte) error {
	var br, gz bytes.Buffer
	bw := brotli.NewWriterOptions(&br, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: 24})
	if _, err := bw.Write(b); err != nil {
		return fmt.Errorf("widget assets: brotli %s: %w", name, err)
	}
	if err := bw.Close(); err != nil {
		return fmt.Errorf("widget assets: brotli %s: %w", name, err)
	}
	gw, err := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	if err != nil {
		return err
	}
	if _, err := gw.Write(b); err != nil {
		return fmt.Errorf("widget assets: gzip %s: %w", name, err)
	}
	if err := gw.Close(); err != nil {
		return fmt.Errorf("widget assets: gzip %s: %w", name, err)
	}
	for suffix, data := range map[string][]byte{"": b, ".br": br.Bytes(), ".gz": gz.Bytes()} {
		if err := os.WriteFile(filepath.Join(dir, name+suffix), data, 0o644); err != nil {
			return fmt.Errorf("widget assets: %w", err)
		}
	}
	return nil
}

// CaddyBlock returns the `handle_path /widget/* { … }` block of a Caddyfile, as written: the
// browser tests and the bench serve the files with the block the gateway ships, not a copy.
func CaddyBlock(caddyfile string) (string, error) {
	lines := strings.Split(caddyfile, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "handle_path /widget/* {" {
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, "\t "))]
		for j := i + 1; j < len(lines); j++ {
			if lines[j] == indent+"}" {
				return strings.Join(lines[i:j+1], "\n") + "\n", nil
			}
		}
	}
	return "", fmt.Errorf("widget assets: no handle_path /widget/* block")
}
