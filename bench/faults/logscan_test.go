//go:build faults

package faults_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/adreswijzer/adreswijzer"
)

// needle is one form of a submitted value (or a secret) that must not appear in any log.
type needle struct {
	text string // lower case
	what string
}

// minNeedle is the shortest text searched for on its own: a shorter one (a house number, an
// addition such as "ben", a Belgian postcode) occurs in timestamps, durations and words by
// chance, so those are searched only together with what surrounds them in a leak: the
// street, the parameter name, the JSON quotes.
const minNeedle = 5

// needles lists the forms in which the values of calls could be written: as sent, URL-
// and JSON-encoded, normalised (postcode without and with space) and as the register writes
// the address, plus the key secrets.
func needles(calls []*call, secrets ...string) []needle {
	set := map[string]string{}
	add := func(s, what string) {
		s = strings.ToLower(strings.TrimSpace(s))
		if s == "" {
			return
		}
		forms := []string{s, url.QueryEscape(s), strings.ReplaceAll(url.QueryEscape(s), "+", "%20")}
		if b, err := json.Marshal(s); err == nil {
			forms = append(forms, strings.ToLower(string(b[1:len(b)-1])))
		}
		for _, f := range forms {
			if len([]rune(f)) >= minNeedle && !onlyDigits(f) {
				if _, ok := set[f]; !ok {
					set[f] = what
				}
			}
		}
	}
	for _, c := range calls {
		a := c.addr
		for _, s := range c.submitted {
			add(s, "submitted "+c.route+" value")
		}
		if c.q != "" {
			add(c.q, "typed text")
		}
		pc := a.Postcode
		num := strconv.Itoa(a.HouseNumber)
		if a.Country == adreswijzer.NL {
			add(pc, "postcode")
			add(pc[:4]+" "+pc[4:], "postcode")
		} else {
			for _, f := range []string{"postcode=" + pc, `"` + pc + `"`, `\"` + pc + `\"`} {
				add(f, "postcode")
			}
		}
		add("number="+num, "house number")
		for _, st := range a.Street.All() {
			add(st, "street")
			words := strings.Fields(st)
			add(words[len(words)-1]+" "+num+a.HouseNumberSuffix, "street and number")
		}
		for _, loc := range a.Locality.All() {
			add(loc, "place")
			add(pc+" "+loc, "postcode and place")
			add(adreswijzer.FormatPostcode(a.Country, pc)+" "+loc, "postcode and place")
		}
		if u := a.Unit(); u != "" {
			add(num+" "+u, "number and addition")
			add(num+a.HouseNumberSuffix+" "+u, "number and addition")
		}
	}
	for _, s := range secrets {
		add(s, "key secret")
		if i := strings.LastIndexByte(s, '_'); i > 0 {
			add(s[i+1:], "key secret")
		}
	}
	out := make([]needle, 0, len(set))
	for t, w := range set {
		out = append(out, needle{text: t, what: w})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].text < out[j].text })
	return out
}

func onlyDigits(s string) bool {
	for _, r := range s {
		if !unicode.IsDigit(r) && r != ' ' {
			return false
		}
	}
	return true
}

// scanLogs searches every file in dir for every needle and reports the lines that hold one.
func scanLogs(t *testing.T, dir string, ns []needle) {
	t.Helper()
	f, scanned, err := leaks(dir, ns)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("log scan: %d forms of submitted values and secrets searched in %s", len(ns), strings.Join(scanned, ", "))
	f.report(t)
}

// leaks finds the needles in the files of dir, in any letter case.
func leaks(dir string, ns []needle) (*findings, []string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, err
	}
	var scanned []string
	f := newFindings()
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, nil, err
		}
		scanned = append(scanned, e.Name()+" ("+strconv.Itoa(len(b))+" bytes)")
		lower := bytes.ToLower(b)
		for _, n := range ns {
			i := bytes.Index(lower, []byte(n.text))
			if i < 0 {
				continue
			}
			start := bytes.LastIndexByte(lower[:i], '\n') + 1
			end := bytes.IndexByte(lower[i:], '\n')
			if end < 0 {
				end = len(lower) - i
			}
			f.add("submitted value or secret in a log", "%s %q in %s: %s", n.what, n.text, e.Name(), clip(b[start:i+end]))
		}
	}
	return f, scanned, nil
}
