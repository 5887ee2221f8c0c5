package best

import (
	"strings"
	"time"
)

// layoutID drops the version from a load-layout identifier ("BA/110975/2" → "BA/110975",
// "VA/206000/2013-10-05T15:58:31.813" → "VA/206000"). The version changes with every edit of the
// object in its regional register, while callers and stores need an id that stays the same from
// one dataset to the next. ok is false when the prefix or the object identifier is missing.
func layoutID(s string) (id string, ok bool) {
	s = strings.TrimSpace(s)
	prefix, rest, found := strings.Cut(s, "/")
	if !found || prefix == "" {
		return "", false
	}
	obj, _, _ := strings.Cut(rest, "/")
	if obj == "" {
		return "", false
	}
	return s[:len(prefix)+1+len(obj)], true
}

// objectPart returns the object identifier of a load-layout identifier ("BP/1130/2" → "1130").
func objectPart(s string) string {
	_, rest, _ := strings.Cut(strings.TrimSpace(s), "/")
	obj, _, _ := strings.Cut(rest, "/")
	return obj
}

// namespacePrefixes maps the namespaces the regions use in the XML to the short prefixes BOSA's
// load layout writes (BOSA's own converter keeps the same table), so that an address has the
// same id whichever BeST format it came from. Keys are normalised by normNamespace.
var namespacePrefixes = map[string]string{
	"be.brussels.bric.adm.addr":                 "BA",
	"be.brussels.bric.adm.str":                  "BS",
	"be.brussels.bric.adm.municipality":         "BM",
	"be.brussels.bric.adm.pz":                   "BP",
	"data.vlaanderen.be/id/adres":               "VA",
	"data.vlaanderen.be/id/straatnaam":          "VS",
	"data.vlaanderen.be/id/gemeente":            "VM",
	"data.vlaanderen.be/id/postinfo":            "VP",
	"geodata.wallonie.be/id/address":            "WA",
	"geodata.wallonie.be/id/streetname":         "WS",
	"geodata.wallonie.be/id/municipality":       "WM",
	"geodata.wallonie.be/id/partofmunicipality": "WMP",
	"geodata.wallonie.be/id/postalinfo":         "WP",
}

// normNamespace lets "https://data.vlaanderen.be/id/adres/" and "data.vlaanderen.be/id/adres"
// name the same namespace: the regions have written them with and without scheme and slash.
func normNamespace(ns string) string {
	ns = strings.ToLower(strings.TrimSpace(ns))
	ns = strings.TrimPrefix(ns, "https://")
	ns = strings.TrimPrefix(ns, "http://")
	return strings.TrimRight(ns, "/")
}

// Official CSV region codes and the first letter of the load-layout prefixes.
var regionLetters = map[string]string{
	"BE-BRU": "B",
	"BE-VLG": "V",
	"BE-WAL": "W",
}

// regionFromFileName reads the region from "openaddress-be{bru,vlg,wal}.csv", for files whose
// rows lack region_code.
func regionFromFileName(base string) string {
	b := strings.ToLower(base)
	for _, r := range []struct{ abbr, letter string }{{"bru", "B"}, {"vlg", "V"}, {"wal", "W"}} {
		if strings.HasPrefix(b, "openaddress-be"+r.abbr) {
			return r.letter
		}
	}
	return ""
}

// validPostcode accepts the four digits of a Belgian postcode. The range is not checked: bpost
// hands out special numbers (0612) that the register may one day carry.
func validPostcode(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// timestampLayouts are the forms BeST timestamps take across the regions and formats:
// "2000-01-01T00:00Z" (no seconds), "2019-06-05T11:43:08Z", "2017-10-18T14:26:44.823" (no zone),
// "2024-04-04T18:44:37+02:00", or a bare date.
var timestampLayouts = []string{
	"2006-01-02T15:04:05.999999999Z07:00",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	time.DateOnly,
}

// parseTimestamp reads a BeST timestamp; one without a zone is taken as UTC, which is off by at
// most two hours and only matters for an address that ends on the day of the import.
func parseTimestamp(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, l := range timestampLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}
