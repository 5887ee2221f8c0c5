package match

import (
	"strconv"
	"strings"
)

// Street names are written with and without their customary abbreviations, by customers and
// by the registers themselves: the BAG holds both "Dr. Schaepmanstraat" and "Dr
// Schaepmanstraat", its NEN 5825 short names write "Burg Nahuyssingel" and "Kerkstr", and
// Belgian data has "Stwg. op Brussel" beside "Steenweg op Brussel". Rather than expanding an
// abbreviation (which is ambiguous: "Kon." is Koning or Koningin, "pl." plein or place), both
// sides are reduced to one canonical short form and compared. This is used for recall only:
// whether the match is exact is always judged on what was typed.

// canonWord maps whole words (folded) to their canonical short form.
var canonWord = map[string]string{
	// Dutch titles and first words (address-rules §5.1, Adresmatch ToggleAbbreviations).
	"burgemeester": "burg", "burg": "burg",
	"professor": "prof", "prof": "prof",
	"dokter": "dr", "doctor": "dr", "dr": "dr",
	"meester": "mr", "mr": "mr",
	"koning": "kon", "koningin": "kon", "kon": "kon",
	"prins": "pr", "prinses": "pr", "pr": "pr",
	"jonkvrouw": "jkvr", "jkvr": "jkvr",
	"jonkheer": "jhr", "jhr": "jhr",
	"pastoor": "past", "past": "past",
	"generaal": "gen", "gen": "gen",
	"verlengde": "verl", "verl": "verl",
	"commandant": "comm", "comm": "comm",
	"heilige": "h", "heilig": "h",
	"sint": "st", "st": "st", "saint": "st", "sankt": "st",
	"sainte": "ste", "ste": "ste",
	"van": "v", "v": "v",
	"vd": "vd", "vdr": "vd",
	// Dutch street words written as separate words ("Kerk str", Belgian "Stwg. op Brussel").
	"straat": "str", "str": "str",
	"laan": "ln", "ln": "ln",
	"weg": "wg", "wg": "wg",
	"plein": "pl", "pln": "pl", "place": "pl", "pl": "pl",
	"dijk": "dk", "dk": "dk",
	"gracht": "gr", "gr": "gr",
	"kade": "kd", "kd": "kd",
	"plantsoen": "plnts", "plnts": "plnts",
	"steenweg": "stwg", "stwg": "stwg", "stw": "stwg",
	// French street types (bpost approved abbreviations and common usage).
	"avenue": "av", "av": "av", "ave": "av",
	"boulevard": "bd", "bd": "bd", "bld": "bd", "boul": "bd",
	"chaussee": "chee", "chee": "chee", "chss": "chee", "ch": "chee",
	"chemin": "chem", "chem": "chem",
	"square": "sq", "sq": "sq",
	"impasse": "imp", "imp": "imp",
	"route": "rte", "rte": "rte",
}

// canonPhrase folds multi-word forms before the words are looked at.
var canonPhrase = []struct{ from, to string }{
	{"van der", "vd"},
	{"van den", "vd"},
	{"van de", "vd"},
	{"v d", "vd"},
}

// canonSuffix shortens the street word glued to the end of a name ("Kerkstraat" and
// "Kerkstr" meet as "kerkstr"). Longest first, so "steenweg" is not read as "weg".
var canonSuffix = []struct{ from, to string }{
	{"plantsoen", "plnts"},
	{"steenweg", "stwg"},
	{"straat", "str"},
	{"plein", "pl"},
	{"pln", "pl"},
	{"gracht", "gr"},
	{"laan", "ln"},
	{"kade", "kd"},
	{"dijk", "dk"},
	{"weg", "wg"},
}

// canon returns the canonical key of a name: folded, abbreviations reduced, no spaces.
func canon(s string) string { return canonFolded(fold(s)) }

// ambiguousWords are abbreviations of more than one street word: "Ch." is Chaussée ("Ch.
// de Haecht") as often as Chemin ("Ch. du Lêfa"). canon reduces them to the first; a typed
// name is also compared in the other reading (canonAlt).
var ambiguousWords = [...]struct{ word, other string }{{"ch", "chem"}}

// canonAlt is the canonical key of a folded name with its first ambiguous abbreviation
// read the other way, "" when it has none. Register names never need one: only typed text
// abbreviates that loosely. Every typed name is scanned, so the scan compares words in
// place rather than splitting the name.
func canonAlt(f string) string {
	for start := 0; start < len(f); {
		end := strings.IndexByte(f[start:], ' ')
		if end < 0 {
			end = len(f)
		} else {
			end += start
		}
		for _, a := range ambiguousWords {
			if f[start:end] == a.word {
				return canonFolded(f[:start] + a.other + f[end:])
			}
		}
		start = end + 1
	}
	return ""
}

// canonFolded is canon of a name already folded.
func canonFolded(f string) string {
	if f == "" {
		return ""
	}
	// "Onze Lieve Vrouwestraat", "O.L. Vrouwestraat" and "OLV-straat" name one saint; the
	// last word often runs on into the street word, so only its start must match.
	for _, p := range [...]string{"onze lieve vrouw", "o l vrouw", "o l v "} {
		if i := strings.Index(f, p); i >= 0 && (i == 0 || f[i-1] == ' ') {
			rest := f[i+len(p):]
			if strings.HasSuffix(p, " ") {
				rest = " " + rest
			} else {
				rest = strings.TrimPrefix(rest, "e")
			}
			f = f[:i] + "olv" + rest
		}
	}
	for _, p := range canonPhrase {
		if strings.Contains(f, p.from) {
			f = replaceWords(f, p.from, p.to)
		}
	}
	var b strings.Builder
	b.Grow(len(f))
	for w := range strings.SplitSeq(f, " ") {
		if c, ok := canonWord[w]; ok {
			b.WriteString(c)
			continue
		}
		if n, ok := ordinalValue(w); ok {
			b.WriteString(n)
			b.WriteByte('e')
			continue
		}
		b.WriteString(shortenSuffix(w))
	}
	return b.String()
}

// ordinalValue reads an ordinal word in figures or roman numerals ("1er", "1re", "2ème",
// "2de", "1ste", "Ier", "IIe") as its number: BeST writes kings as "Albert Ier" where people
// type "Albert 1er", and both must reduce to "1e". A lone roman numeral ("Albert I") is no
// ordinal, and neither is a French word that reads as one ("vie").
func ordinalValue(w string) (string, bool) {
	i := 0
	for i < len(w) && isDigit(w[i]) {
		i++
	}
	if i > 0 {
		n := strings.TrimLeft(w[:i], "0")
		switch w[i:] {
		case "e", "er", "re", "ere", "eme", "ieme", "de", "ste":
			return n, n != ""
		}
		return "", false
	}
	for i < len(w) && strings.IndexByte("ivx", w[i]) >= 0 {
		i++
	}
	n := romanValue(w[:i])
	switch suffix := w[i:]; {
	case n == 1 && (suffix == "er" || suffix == "re" || suffix == "ere"):
	case n >= 2 && (suffix == "e" || suffix == "eme" || suffix == "ieme") && w != "vie":
	default:
		return "", false
	}
	return strconv.Itoa(n), true
}

// romanNumerals are the roman numerals 1 to 39 (kings, regiments, centuries), lower case.
var romanNumerals = func() map[string]int {
	ones := []string{"", "i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix"}
	m := make(map[string]int, 39)
	for tens := 0; tens <= 3; tens++ {
		for one := range ones {
			if n := 10*tens + one; n > 0 {
				m[strings.Repeat("x", tens)+ones[one]] = n
			}
		}
	}
	return m
}()

// romanValue is the value of a lower-case roman numeral up to xxxix, 0 when s is none.
func romanValue(s string) int { return romanNumerals[s] }

func shortenSuffix(w string) string {
	for _, s := range canonSuffix {
		if len(w) > len(s.from) && strings.HasSuffix(w, s.from) {
			return w[:len(w)-len(s.from)] + s.to
		}
	}
	return w
}

// replaceWords replaces from by to where from stands as whole words in the folded string f.
func replaceWords(f, from, to string) string {
	padded := " " + f + " "
	padded = strings.ReplaceAll(padded, " "+from+" ", " "+to+" ")
	return strings.TrimSpace(padded)
}
