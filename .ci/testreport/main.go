// Command testreport reads the JSON stream of `go test -json` and says what failed and what
// skipped. A skipped test proves nothing, so a skip fails the run just as a failure does:
// tests that need Postgres, Redis, Chromium or Node fail loudly when those are missing
// instead of passing quietly (set ADRESWIJZER_SKIP_SERVICES=1 or ADRESWIJZER_SKIP_NODE=1 to
// skip them on purpose, and expect this report to fail).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: testreport FILE (the output of go test -json)")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer f.Close()
	os.Exit(report(f, os.Stdout))
}

func report(r io.Reader, w io.Writer) int {
	output := map[string]*strings.Builder{}
	var failed, skipped []string
	packages := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// A build failure prints plain text into the stream; keep it visible.
			fmt.Fprintln(w, sc.Text())
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			b := output[key]
			if b == nil {
				b = &strings.Builder{}
				output[key] = b
			}
			b.WriteString(e.Output)
		case "fail":
			if e.Test != "" {
				failed = append(failed, key)
			} else {
				packages[e.Package] = "FAIL"
			}
		case "skip":
			if e.Test != "" {
				skipped = append(skipped, key)
			}
		case "pass":
			if e.Test == "" {
				packages[e.Package] = fmt.Sprintf("ok %.1fs", e.Elapsed)
			}
		}
	}
	names := make([]string, 0, len(packages))
	for p := range packages {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, p := range names {
		fmt.Fprintf(w, "%-70s %s\n", p, packages[p])
	}
	for _, k := range failed {
		fmt.Fprintf(w, "\n--- FAIL %s\n%s", k, output[k])
	}
	for _, k := range skipped {
		fmt.Fprintf(w, "\n--- SKIP %s\n%s", k, output[k])
	}
	// A package that failed to build has no test events; its output holds the error.
	for _, p := range names {
		if packages[p] == "FAIL" {
			if b := output[p+" "]; b != nil && !strings.Contains(b.String(), "--- FAIL") {
				fmt.Fprintf(w, "\n--- FAIL %s\n%s", p, b)
			}
		}
	}
	fmt.Fprintf(w, "\n%d packages, %d failed tests, %d skipped tests\n", len(names), len(failed), len(skipped))
	if len(failed) > 0 || len(skipped) > 0 {
		return 1
	}
	for _, p := range names {
		if packages[p] == "FAIL" {
			return 1
		}
	}
	return 0
}
