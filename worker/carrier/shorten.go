package carrier

import (
	"strings"

	"github.com/adreswijzer/adreswijzer"
)

// frenchTypes are the street types bpost approves in short form when they open the name
// ("Av. De Broqueville", "Chée Romaine"). A type word inside the name ("Ancienne chaussée de
// Haecht") belongs to the name itself, and bpost asks never to abbreviate names.
var frenchTypes = map[string]string{
	"Avenue":   "Av.",
	"Chaussée": "Chée",
}

// dutchTypes end a Dutch street name as part of a compound word ("Bergensesteenweg",
// "Onze-Lieve-Vrouw van Gratiestraat"); bpost's Dutch rules allow "str.", "ln" and "pl.", and
// "stwg." is how Belgian street data writes steenweg ("Stwg. op Lebbeke").
var dutchTypes = []struct{ full, short string }{
	{"steenweg", "stwg."},
	{"straat", "str."},
	{"laan", "ln"},
	{"plein", "pl."},
}

// shorten abbreviates the street type of a Belgian street name, and nothing else, with
// the forms bpost approves or Belgian data uses. Other common forms are left alone on
// purpose: bpost rejects "Chau", "Cgh", "Aven." and "Sg"; "Bd", "Bld" and "Ste" appear in no
// list we could read; first names and titles are part of the name. No German abbreviation is
// attested, so German names stay whole.
func shorten(street string, lang adreswijzer.Language) string {
	words := strings.Split(street, " ")
	switch lang {
	case adreswijzer.LangFR:
		if short, ok := frenchTypes[words[0]]; ok {
			words[0] = short
		}
	case adreswijzer.LangNL:
		for i, w := range words {
			words[i] = shortenDutch(w)
		}
	}
	return strings.Join(words, " ")
}

func shortenDutch(w string) string {
	if w == "Steenweg" {
		return "Stwg."
	}
	for _, t := range dutchTypes {
		if len(w) > len(t.full) && strings.HasSuffix(w, t.full) {
			return strings.TrimSuffix(w, t.full) + t.short
		}
	}
	return w
}
